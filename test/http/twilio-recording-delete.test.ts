import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CarrierState } from '../../src/telephony/twilio/call-plan'
import { addLead, callOf, ny, setup } from './twilio-world'

setDefaultTimeout(60_000)

// The recording's copy at Twilio is deleted once ours is stored; a delete that fails is tried
// again (a few times, then by the watchdog), and the carrier row stays open until it is done.

const until = async (check: () => boolean, ms = 5_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await Bun.sleep(20)
  }
}

describe('recordings deleted at Twilio', () => {
  test('downloaded, stored, then DELETEd: the row closes with twilioCopy deleted', async () => {
    const w = await setup()
    const call = await callOf(w, await addLead(w, ny('00')), (c) => c.status === 'ended' && c.recording_available)
    const row = () => w.h.services.stores.carrierCalls.get(call.id)!
    await until(() => !row().open)
    const state = row().state as CarrierState
    expect(state.twilioCopy).toBe('deleted')
    expect(w.emulator.deletedRecordings.has(state.recordingSid!)).toBe(true)
    // The service's copy is what the call serves now.
    expect(w.h.services.carriers.twilio.recording({ id: call.id })?.byteLength).toBeGreaterThan(44)
  })

  test('a failing DELETE is retried, then left to the watchdog, never dropped: the row stays open until Twilio has deleted it', async () => {
    const w = await setup()
    for (let i = 0; i < 4; i++) w.emulator.failNextDelete(503, 20500, 'Service unavailable')
    const call = await callOf(w, await addLead(w, ny('00')), (c) => c.status === 'ended' && c.recording_available)
    const row = () => w.h.services.stores.carrierCalls.get(call.id)!
    const deletes = () => w.emulator.received.filter((r) => r.method === 'DELETE')
    // Each failure is answered before its retry is due: time moves on only once the carrier has read it.
    const answered = async (n: number) => {
      await until(() => deletes().length === n)
      await Bun.sleep(150)
    }
    await answered(1)
    // The immediate retries (5 s, 30 s, 120 s on the service clock) fail too.
    for (const [seconds, n] of [[6, 2], [31, 3], [121, 4]] as const) {
      await w.h.advance(seconds)
      await answered(n)
    }
    expect(row().open).toBe(true)
    expect((row().state as CarrierState).twilioCopy).toBe('delete')
    expect(deletes().map((d) => d.status)).toEqual([503, 503, 503, 503])
    // The call itself is over and reported: only the delete is owed.
    expect(call.status).toBe('ended')
    // The watchdog looks at rows quiet for 15 minutes: this time Twilio deletes it.
    await w.h.advance(16 * 60)
    await until(() => !row().open)
    expect((row().state as CarrierState).twilioCopy).toBe('deleted')
    expect(deletes().map((d) => d.status)).toEqual([503, 503, 503, 503, 204])
  })
})
