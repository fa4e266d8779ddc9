import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

let h: Harness
let w: World
beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterAll(() => h.close())

describe('smoke', () => {
  test('live key lists its campaigns', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body.data.map((c: any) => c.name).sort()).toEqual(['Draft campaign', 'Spring roofs'])
    expect(r.headers.get('request-id')).toMatch(/^req_/)
  })
})
