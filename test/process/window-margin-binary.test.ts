import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Issue 27 item 5 on the service as shipped (the compiled binary from an empty folder) against
 * the Twilio emulator over loopback, its account limited to one call every 250 emulated seconds
 * (5 s here): calls created faster wait in Twilio's queue. The service's fake clock is set to a
 * Monday evening in New York and stands still between the steps. With the default 60 s margin,
 * a burst at 20:59:10 is not placed at all, and a call Twilio held past 21:00 is cancelled
 * there when it starts ringing, never bridged, its lead next morning.
 */
const ADMIN = 'dat_window_margin_0123456789abcdef0123'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'b'.repeat(32)
/** Monday 5 January 2026 in New York (EST, UTC-5), `hh:mm:ss` local. */
const evening = (hms: string) => Date.parse(`2026-01-05T${hms}-05:00`)
const NEXT_MORNING = '2026-01-06T13:00:00.000Z'

describe('the window-end margin, through the binary and the Twilio emulator', () => {
  const service = twilioService({ prefix: 'dialer-margin-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50, callsPerSecond: 1 / 250 })
  const { work, emulator, api, start, addLead, callOf } = service

  beforeAll(async () => {
    await start()
    await service.seedOrg({ name: 'Spring roofs', lines: 5, calling_hours: { start: '08:00', end: '21:00' }, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }] })
  }, 40_000)

  afterAll(() => service.close())

  /** The emulator's call to `to`, once the service has created it. */
  async function twilioCall(to: string) {
    const deadline = Date.now() + 15_000
    for (;;) {
      const call = [...emulator.calls.values()].find((c) => c.to === to)
      if (call) return call
      if (Date.now() > deadline) throw new Error(`no call to ${to} reached Twilio`)
      await Bun.sleep(20)
    }
  }
  const lead = async (id: string) => (await api('GET', `/leads/${id}`)).body.data

  // One timeline in two steps: the leads of the first are the second's.
  let early = ''
  let held = ''
  let queued: Awaited<ReturnType<typeof twilioCall>>

  test('a burst near the window end is not all placed', async () => {
    // 20:58:30: two leads dialed. The first rings at once; the second waits in Twilio's queue.
    await service.clockAt(evening('20:58:30'), false)
    early = await addLead(ny('02', 41))
    const first = await twilioCall(ny('02', 41))
    while (!emulator.callbacksFor(first.sid).some((c) => c.params.CallStatus === 'ringing' && c.status === 200)) await Bun.sleep(10)
    held = await addLead(ny('00', 42))
    queued = await twilioCall(ny('00', 42))
    expect(queued.status).toBe('queued')

    // 20:59:10: inside the margin. A burst of three is taken off the queue but not placed.
    await service.clockAt(evening('20:59:10'), false)
    const burst = [await addLead(ny('01', 43)), await addLead(ny('01', 44)), await addLead(ny('01', 45))]
    for (const id of burst) {
      const deadline = Date.now() + 10_000
      // Until the dialer has taken it off the queue (scheduled again, or dialed).
      while ((await lead(id)).status === 'queued' && Date.now() < deadline) await Bun.sleep(20)
      expect(await lead(id)).toMatchObject({ status: 'scheduled', scheduled_for: NEXT_MORNING, scheduled_reason: 'outside_calling_hours', attempts: 0 })
      expect((await api('GET', `/calls?lead_id=${id}`)).body.data).toEqual([])
      const decisions = (await api('GET', `/leads/${id}/contactability`)).body.data.decisions as any[]
      expect(decisions.filter((d) => d.outcome === 'deferred').map((d) => d.rule_id).sort()).toEqual(['US-hours', 'campaign-hours'])
    }
    const placed = new Set([...emulator.calls.values()].map((c) => c.to))
    expect([41, 42, 43, 44, 45].map((n) => placed.has(ny(n === 41 ? '02' : n === 42 ? '00' : '01', n)))).toEqual([true, true, false, false, false])
  })

  test('a call Twilio rings after 21:00 is cancelled there, never bridged; its lead is called next morning', async () => {
    // 21:00:30: the window has closed while Twilio still holds the second call.
    expect(queued.status).toBe('queued')
    await service.clockAt(evening('21:00:30'))
    await emulator.settled(queued.sid)
    const call = await callOf(held, (c) => c.status === 'ended')
    expect(call).toMatchObject({ outcome: 'no_answer', answered: null, duration_seconds: 0, handled_by: { role: 'ai' } })
    expect(call.note).toContain('calling window')
    const kinds = emulator.callbacksFor(queued.sid).map((c) => `${c.kind} ${c.params.CallStatus ?? ''}`.trim())
    expect(kinds).toContain('status ringing')
    expect(kinds.at(-1)).toBe('status canceled')
    expect(kinds.filter((k) => !k.startsWith('status'))).toEqual([])
    expect(emulator.received.some((r) => r.path.endsWith(`/Calls/${queued.sid}.json`) && r.params.Status === 'canceled')).toBe(true)
    expect(await lead(held)).toMatchObject({ status: 'scheduled', scheduled_for: NEXT_MORNING, scheduled_reason: 'outside_calling_hours', attempts: 0 })

    // The call that rang inside the window ran its course and counts.
    expect((await callOf(early, (c) => c.status === 'ended' && c.outcome !== null)).note).toBe('No answer.')
    expect((await lead(early)).attempts).toBe(1)
  })

  test('a margin out of range stops the start with a message naming the setting (exit 2)', () => {
    const r = Bun.spawnSync([...service.command, 'serve', '--port', '0', '--data-dir', join(work.path, 'unused')], {
      cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_WINDOW_END_MARGIN_SECONDS: '901' },
      // A service that takes the value starts and serves: stopped here rather than left running.
      timeout: 10_000,
    })
    expect({ code: r.exitCode, err: r.stderr.toString() }).toEqual({ code: 2, err: 'DIALER_WINDOW_END_MARGIN_SECONDS must be a whole number from 0 to 900, got "901"\n' })
  })
})
