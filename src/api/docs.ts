import { Elysia } from 'elysia'
// Embedded into the compiled binary, so /docs renders with no internet access.
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import { OPENAPI_PATH } from '../http/pipeline'
// Generated from the routes' schemas by scripts/generate-openapi.ts (checked by a test and CI).
import generated from './openapi.generated.json'

const asset = (path: string, type: string) => () =>
  new Response(Bun.file(path), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } })

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Dialer external API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: '${OPENAPI_PATH}', dom_id: '#swagger-ui', deepLinking: true })</script>
</body>
</html>`

/** GET /api/v1/external/openapi.json (no authentication) and the Swagger UI page at /docs. */
export const docsRoutes = (publicUrl: string) => {
  const document = JSON.stringify({ ...generated, servers: [{ url: publicUrl }] })
  const json = { 'content-type': 'application/json;charset=utf-8' }
  return new Elysia()
    .get(OPENAPI_PATH, () => new Response(document, { headers: json }), { detail: { hide: true } })
    .get('/docs', () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), { detail: { hide: true } })
    .get('/docs/assets/swagger-ui-bundle.js', asset(swaggerBundle, 'text/javascript; charset=utf-8'), { detail: { hide: true } })
    .get('/docs/assets/swagger-ui.css', asset(swaggerCss, 'text/css; charset=utf-8'), { detail: { hide: true } })
}
