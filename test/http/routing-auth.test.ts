import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, seedWorld, type Harness, type World } from '../harness'
import { leakingRoutes, rawStatus } from '../raw-http'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 14, item 1: the path that is authorized is the path that is routed, whatever the Host
 * header. Elysia used to find the path 11 characters into the URL, so with `Host: x` the
 * request `GET /abc/api/v1/admin/orgs` was checked as an open path and routed as the admin
 * one. Every route the app has is walked with short and odd hosts, path prefixes and trailing
 * slashes, with no credentials: none may answer 2xx or 5xx.
 */

const HOSTS = ['x', 'a', 'ab', 'abc', 'abcd', 'x:1', 'a.b', '[::1]', '1.2.3.4', 'localhost', 'h?q', 'h#f']
const PREFIXES = ['', '/a', '/ab', '/abc', '/abcd', '/x/y', '/.', '//']
const SUFFIXES = ['', '/', '//', '?limit=5']
const SAMPLE_ID = '01890000-0000-7000-8000-000000000000'

let h: Harness
let w: World
let paths: Array<{ method: string; path: string }>

beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
  // Every route Elysia registered behind a door: the external API (except the open OpenAPI
  // document), the admin API, /metrics and the console's API (sign-in included: it wants a JSON body).
  paths = h.routes.routes
    .filter((r) => (r.path.startsWith('/api/v1/external') && !r.path.endsWith('/openapi.json')) || r.path.startsWith('/api/v1/admin') || r.path === '/metrics' || r.path.startsWith('/console/api/'))
    .map((r) => ({ method: r.method, path: r.path.replace(/:[a-z_]+/gi, SAMPLE_ID).replace(/\*$/, 'x') }))
})
afterAll(() => h.close())

test('the walk covers the external API, the admin API, /metrics and the console API', () => {
  expect(paths.some((p) => p.path === '/metrics')).toBe(true)
  expect(paths.filter((p) => p.path.startsWith('/console/api/')).length).toBeGreaterThan(30)
  expect(paths.filter((p) => p.path.startsWith('/api/v1/admin')).length).toBeGreaterThan(15)
  expect(paths.filter((p) => p.path.startsWith('/api/v1/external')).length).toBeGreaterThan(35)
})

test('no route answers without credentials, whatever the host, prefix or trailing slash (in process)', async () => {
  const leaks: string[] = []
  for (const { method, path } of paths) {
    for (const host of HOSTS) {
      for (const prefix of PREFIXES) {
        for (const suffix of SUFFIXES) {
          const url = `http://${host}${prefix}${path}${suffix}`
          let request: Request
          try {
            request = new Request(url, { method, body: method === 'GET' || method === 'HEAD' ? undefined : '{}' })
          } catch {
            continue // not a URL a server could hand over
          }
          const r = await h.app.handle(request)
          if (r.status < 400 || r.status >= 500) leaks.push(`${r.status} ${method} ${url}`)
          await r.body?.cancel()
        }
      }
    }
  }
  expect(leaks).toEqual([])
})

test('with the admin token the same walk never reaches another door by accident', async () => {
  // A short host with a prefix must not turn an unknown path into an admin route.
  const r = await h.app.handle(new Request('http://x/abc/api/v1/admin/orgs', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
  expect(r.status).toBe(404)
})

describe('over a real socket, where Bun builds the URL from the raw Host header', () => {
  let server: ReturnType<typeof Bun.serve>

  beforeAll(() => {
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => h.app.handle(request) })
  })
  afterAll(() => server.stop(true))

  test('short and odd Host headers with prefixed paths get 4xx for every admin route, external route, console route and /metrics', async () => {
    expect(await leakingRoutes(server.port!, paths)).toEqual([])
  }, 60_000)

  test('the attack from the report: GET /abc/api/v1/admin/orgs with Host: x reads nothing', async () => {
    expect(await rawStatus(server.port!, 'GET', '/abc/api/v1/admin/orgs', 'x')).toBe(404)
    expect(await rawStatus(server.port!, 'POST', `/abc/api/v1/admin/orgs/${w.orgId}/keys`, 'x')).toBe(404)
    expect(await rawStatus(server.port!, 'GET', '/metrics/', 'x')).toBe(401)
  })
})
