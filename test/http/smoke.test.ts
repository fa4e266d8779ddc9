import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type World } from '../harness'

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
