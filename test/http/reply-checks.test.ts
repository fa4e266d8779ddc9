import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createApp } from '../../src/app'
import { createServices } from '../../src/services'
import { testConfig } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** The reply schemas of every route, as Elysia will compile them. */
function replySchemas(checkReplies: '0' | '1') {
  const services = createServices(testConfig({ DIALER_CHECK_REPLIES: checkReplies }))
  try {
    const app = createApp(services)
    return app.routes.flatMap((route) => Object.values((route.hooks as { response?: Record<string, object> }).response ?? {}))
  } finally {
    services.close()
  }
}

/** Routes whose reply is not one JSON body: the campaign board's and the floor's event streams (messages BoardReply, FloorReply). */
const NOT_JSON = ['GET /console/api/orgs/:org/floor/stream', 'GET /console/api/orgs/:org/campaigns/stream']

describe('DIALER_CHECK_REPLIES', () => {
  test('every console API route declares its reply schema (src/console/model.ts), so the suite checks it', () => {
    const services = createServices(testConfig({ DIALER_CHECK_REPLIES: '1' }))
    try {
      const routes = createApp(services).routes.filter((route) => route.path.startsWith('/console/api/'))
      expect(routes.length).toBeGreaterThan(30)
      const without = routes.filter((route) => !(route.hooks as { response?: object }).response).map((route) => `${route.method} ${route.path}`)
      expect(without).toEqual(NOT_JSON)
    } finally {
      services.close()
    }
  })

  test('on (the test suite): every reply schema is checked', () => {
    const schemas = replySchemas('1')
    expect(schemas.length).toBeGreaterThan(30)
    expect(schemas.filter((schema) => (schema as { noValidate?: boolean }).noValidate)).toEqual([])
  })

  test('off (serving): every reply schema is marked for Elysia to skip, its shape unchanged', () => {
    const checked = replySchemas('1')
    const skipped = replySchemas('0')
    expect(skipped.length).toBe(checked.length)
    for (const [i, schema] of skipped.entries()) {
      const { noValidate, ...shape } = schema as { noValidate?: boolean }
      expect(noValidate).toBe(true)
      expect(JSON.stringify(shape)).toBe(JSON.stringify(checked[i]))
    }
  })
})
