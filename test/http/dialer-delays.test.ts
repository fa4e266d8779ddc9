import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The dialer's due -> dialed delays are a benchmark's figure (scripts/bench/dialer.ts): a
 * running service keeps none of them; only after measureDelays() are they recorded.
 */

let h: Harness
afterEach(() => h.close())

async function dialOne(harness: Harness, phone: string): Promise<void> {
  const w = await seedWorld(harness)
  harness.services.dialer.setEnabled(true)
  const r = await harness.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone, name: 'Delay Lead' } })
  expect(r.status).toBe(201)
  await harness.advance(30)
  expect((await harness.api('GET', `/leads/${r.body.data.id}`, { key: w.live })).body.data.status).toBe('on_call')
}

describe('dialer delays', () => {
  test('a running service keeps no delays', async () => {
    h = createHarness()
    await dialOne(h, '+12125553100')
    // Nothing to read from outside, and nothing held inside.
    expect((h.services.dialer as unknown as { delays: unknown }).delays).toBeNull()
  })

  test('measureDelays() records one delay per call started from then on', async () => {
    h = createHarness()
    const delays = h.services.dialer.measureDelays()
    expect(delays).toHaveLength(0)
    await dialOne(h, '+12125553100')
    expect(delays).toHaveLength(1)
    expect(delays[0]).toBeGreaterThanOrEqual(0)
    expect(h.services.dialer.measureDelays()).toBe(delays)
  })
})
