import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness } from '../harness'
import { addLead, callOf, ny, setup } from './twilio-world'

setDefaultTimeout(60_000)

// The window-end margin through the handler (docs/decisions.md, issue 27 "Window margin"): a
// lead is dialed only while its calling window stays open for DIALER_WINDOW_END_MARGIN_SECONDS,
// with the simulator as with Twilio; a Twilio call the account's queue rang after the window
// closed is cancelled at Twilio, never bridged, and its lead waits for the next morning.

/** Tuesday 6 January 2026 in New York (EST, UTC-5), `hh:mm:ss` local, as unix ms. */
const nyTime = (hms: string) => Date.parse(`2026-01-06T${hms}-05:00`)
const NEXT_MORNING = '2026-01-07T13:00:00.000Z'
const LEAD_PHONE = '+12125552000'

let harness: Harness | null = null
afterEach(() => {
  harness?.close()
  harness = null
})

async function dialAt(hms: string, env: Record<string, string> = {}) {
  const h = (harness = createHarness({ autoDial: true, start: nyTime(hms), env }))
  const w = await seedWorld(h)
  const created = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: LEAD_PHONE, name: 'Jordan Lee' } })
  expect(created.status).toBe(201)
  const id = created.body.data.id
  const calls = (await h.api('GET', `/calls?lead_id=${id}`, { key: w.live })).body.data as any[]
  const lead = (await h.api('GET', `/leads/${id}`, { key: w.live })).body.data
  const contact = (await h.api('GET', `/leads/${id}/contactability`, { key: w.live })).body.data
  return { calls, lead, contact }
}

describe('the window-end margin at dial time (the simulator, as live calls)', () => {
  test('20:58:59 local, 60 s: the lead is dialed', async () => {
    const { calls, lead } = await dialAt('20:58:59')
    expect(calls).toHaveLength(1)
    expect(lead.status).toBe('dialing')
  })

  test('20:59:01 local, 60 s: not dialed; scheduled 08:00 next morning, outside_calling_hours, the closing rules recorded', async () => {
    const { calls, lead, contact } = await dialAt('20:59:01')
    expect(calls).toEqual([])
    expect(lead).toMatchObject({ status: 'scheduled', scheduled_for: NEXT_MORNING, scheduled_reason: 'outside_calling_hours', attempts: 0 })
    // The rules alone allow the lead now: the margin decided.
    expect(contact.allowed_now).toBe(true)
    const deferred = (contact.decisions as any[]).filter((d) => d.outcome === 'deferred')
    expect(deferred.map((d) => d.rule_id).sort()).toEqual(['US-hours', 'campaign-hours'])
    expect(deferred.every((d) => d.at === new Date(nyTime('20:59:01')).toISOString() && d.until === NEXT_MORNING)).toBe(true)
  })

  test('DIALER_WINDOW_END_MARGIN_SECONDS=0: dialed at 20:59:59', async () => {
    const { calls } = await dialAt('20:59:59', { DIALER_WINDOW_END_MARGIN_SECONDS: '0' })
    expect(calls).toHaveLength(1)
  })

  test('DIALER_WINDOW_END_MARGIN_SECONDS=900: not dialed at 20:45:01', async () => {
    const { calls, lead } = await dialAt('20:45:01', { DIALER_WINDOW_END_MARGIN_SECONDS: '900' })
    expect(calls).toEqual([])
    expect(lead.scheduled_for).toBe(NEXT_MORNING)
  })
})

/** The emulator's call to `to`, once the service has created it (the dial follows the commit). */
async function emulatedCall(w: Awaited<ReturnType<typeof setup>>, to: string) {
  const deadline = Date.now() + 10_000
  for (;;) {
    const call = [...w.emulator.calls.values()].find((c) => c.to === to)
    if (call) return call
    if (Date.now() > deadline) throw new Error(`no call to ${to} was created`)
    await Bun.sleep(10)
  }
}

describe('a Twilio call the account queued past the window', () => {
  test('rings after 21:00: cancelled at Twilio, never bridged; no attempt, the lead next morning', async () => {
    // One call every 400 emulated seconds (2 s here): the second of two waits in queued.
    const w = await setup({ start: nyTime('20:58:30'), callsPerSecond: 1 / 400, record: false })
    const first = await addLead(w, ny('02', 31))
    // The first rings at once, inside the window.
    const ringing = await emulatedCall(w, ny('02', 31))
    while (!w.emulator.callbacksFor(ringing.sid).some((c) => c.params.CallStatus === 'ringing' && c.status === 200)) await Bun.sleep(5)
    const second = await addLead(w, ny('00', 32))
    const queued = await emulatedCall(w, ny('00', 32))
    expect(queued.status).toBe('queued')
    // The window closes while Twilio holds the call.
    await w.h.advance(120)
    await w.emulator.settled(queued.sid)
    const call = await callOf(w, second)
    expect(call).toMatchObject({ status: 'ended', outcome: 'no_answer', answered: null, duration_seconds: 0 })
    expect(call.note).toContain('calling window')
    const kinds = w.emulator.callbacksFor(queued.sid).map((c) => `${c.kind} ${c.params.CallStatus ?? ''}`.trim())
    expect(kinds).toContain('status ringing')
    expect(kinds.at(-1)).toBe('status canceled')
    // Never answered, never bridged: no TwiML fetched, no leg dialed.
    expect(kinds.some((k) => k.startsWith('twiml') || k.startsWith('leg') || k.startsWith('action'))).toBe(false)
    expect(w.emulator.received.some((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${queued.sid}.json`) && r.params.Status === 'canceled')).toBe(true)
    const lead = (await w.h.api('GET', `/leads/${second}`, { key: w.live })).body.data
    expect(lead).toMatchObject({ status: 'scheduled', scheduled_for: NEXT_MORNING, scheduled_reason: 'outside_calling_hours', attempts: 0, last_outcome: 'no_answer' })
    const contact = (await w.h.api('GET', `/leads/${second}/contactability`, { key: w.live })).body.data
    expect((contact.decisions as any[]).filter((d) => d.outcome === 'deferred').map((d) => d.rule_id).sort()).toEqual(['US-hours', 'campaign-hours'])
    // The first call rang inside the window and ran its course.
    const firstCall = await callOf(w, first)
    expect(firstCall.note).toBe('No answer.')
    expect(firstCall.outcome).toBe('no_answer')
    expect((await w.h.api('GET', `/leads/${first}`, { key: w.live })).body.data.attempts).toBe(1)
  })
})
