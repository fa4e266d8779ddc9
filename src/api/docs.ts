import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
// Embedded into the compiled binary, so /docs renders with no internet access.
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import { OPENAPI_PATH } from '../http/pipeline'
import { ErrorEnvelope } from './shared'

const asset = (path: string, type: string) => () =>
  new Response(Bun.file(path), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } })

/** OpenAPI 3.1 generated from the external routes' schemas, and a Swagger UI page at /docs. */
export const docsRoutes = (version: string) =>
  new Elysia()
    .get('/docs/assets/swagger-ui-bundle.js', asset(swaggerBundle, 'text/javascript; charset=utf-8'), { detail: { hide: true } })
    .get('/docs/assets/swagger-ui.css', asset(swaggerCss, 'text/css; charset=utf-8'), { detail: { hide: true } })
    .use(
      openapi({
        path: '/docs',
        specPath: OPENAPI_PATH,
        provider: 'swagger-ui',
        swagger: { cdn: '/docs/assets/swagger-ui-bundle.js', theme: '/docs/assets/swagger-ui.css', autoDarkMode: false },
        exclude: { paths: [/^\/api\/v1\/admin/, '/healthz', '/readyz', /^\/docs/] },
        documentation: {
          info: {
            title: 'Dialer external API',
            version,
            description:
              'Hand leads to dialing campaigns and read what happened. HTTP Basic authentication: ' +
              'username = key ID, password = key secret. Errors use one envelope: `{ error: { type, code, message, param, request_id } }`.',
          },
          components: {
            securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } },
            schemas: { Error: ErrorEnvelope as never },
          },
          security: [{ basicAuth: [] }],
        },
      }),
    )
