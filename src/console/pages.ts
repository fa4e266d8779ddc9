import { Elysia } from 'elysia'
import { notFound } from '../errors'
import { CONSOLE_API_PREFIX } from '../http/console-door'
import { pathnameOf } from '../http/gateway'
import { markRoute } from '../http/pipeline'
import { CONSOLE_SCRIPT, CONSOLE_STYLE, CONSOLE_VERSION } from './bundle.generated'

/**
 * The console's page and assets, served from the bundle built into the binary
 * (scripts/build-console.ts): nothing from a CDN, so it works offline. Every console URL gets
 * the same page; the script shows the page the path names. The assets' names carry the
 * bundle's hash, so they are cached for good and a new version is fetched at once.
 */
const SCRIPT_PATH = `/console/assets/app-${CONSOLE_VERSION}.js`
const STYLE_PATH = `/console/assets/app-${CONSOLE_VERSION}.css`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dialer console</title>
<link rel="stylesheet" href="${STYLE_PATH}">
<script type="module" src="${SCRIPT_PATH}"></script>
</head>
<body><div id="app"></div><noscript>The console needs JavaScript.</noscript></body>
</html>
`

// Only this origin's script, style, data and media (recordings through the signed link); no frames.
const SECURITY = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; media-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
}

const page = ({ request }: { request: Request }) => {
  // An unknown console API path is a 404 in the envelope, not the page.
  if (pathnameOf(request.url).startsWith(`${CONSOLE_API_PREFIX}/`)) throw notFound('No such endpoint.')
  return pageResponse()
}
const pageResponse = () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...SECURITY } })
const asset = (body: string, type: string) => () =>
  new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable', ...SECURITY } })

export const consolePages = () =>
  new Elysia()
    .onTransform(markRoute)
    .get(SCRIPT_PATH, asset(CONSOLE_SCRIPT, 'text/javascript; charset=utf-8'), { detail: { hide: true } })
    .get(STYLE_PATH, asset(CONSOLE_STYLE, 'text/css; charset=utf-8'), { detail: { hide: true } })
    .get('/console', page, { detail: { hide: true } })
    .get('/console/*', page, { detail: { hide: true } })
