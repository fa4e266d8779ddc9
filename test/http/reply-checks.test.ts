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

describe('DIALER_CHECK_REPLIES', () => {
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
