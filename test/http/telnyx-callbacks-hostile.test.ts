import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN } from '../harness'
import { addLead, callOf, eventTypes, ny, setupTelnyx, type TelnyxWorld } from './telnyx-world'

setDefaultTimeout(60_000)

// Telnyx's signed callbacks through the whole handler: a bad, missing or stale signature is 403 in the
// error envelope and changes nothing; the same signed request again is 200 and applied once.

async function post(w: TelnyxWorld, path: string, body: string, headers: Record<string, string>) {
  const url = `${w.h.services.config.publicUrl}${path}`
  const response = await w.h.app.handle(new Request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body }))
  return { status: response.status, text: await response.text() }
}

async function series(w: TelnyxWorld, name: string, label: string): Promise<number> {
  const response = await w.h.app.handle(new Request(`${w.h.services.config.publicUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
  const text = await response.text()
  return Number(new RegExp(`^${name}\\{${label}\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
}
const refusals = (w: TelnyxWorld, reason: string) => series(w, 'dialer_carrier_callbacks_refused_total', `reason="${reason}"`)

describe('Telnyx callbacks that are not Telnyx\u2019s', () => {
  test('a call\u2019s final callback signed by another key, unsigned, stale or for another account: 403, never applied; the real one ends it once', async () => {
    const w = await setupTelnyx()
    const leadId = await addLead(w, ny('02'))
    const call = await callOf(w, leadId)
    expect(call.outcome).toBe('no_answer')
    const final = w.emulator.sent.find((s) => s.kind === 'status' && s.params.CallStatus === 'no-answer')!
    const path = new URL(final.url).pathname
    // Same call, a forged "completed" with a long duration.
    const forged = new URLSearchParams({ ...final.params, CallStatus: 'completed', CallDuration: '600' }).toString()
    // The service's clock is the reference (a fake one in tests).
    const now = Math.floor(w.h.services.clock.now() / 1000)
    const cases: [string, Record<string, string>, string][] = [
      ['another key', { ...w.emulator.signedHeaders(forged), 'telnyx-signature-ed25519': final.headers!['telnyx-signature-ed25519']! }, 'signature'],
      ['no headers', {}, 'signature'],
      ['a stale timestamp', w.emulator.signedHeaders(forged, now - 301), 'stale'],
      ['from the future', w.emulator.signedHeaders(forged, now + 301), 'stale'],
    ]
    for (const [name, headers, reason] of cases) {
      const before = await refusals(w, reason)
      const r = await post(w, path, forged, headers)
      expect({ name, status: r.status }).toEqual({ name, status: 403 })
      expect(JSON.parse(r.text).error).toMatchObject({ type: 'permission_error', code: 'permission_denied' })
      expect(await refusals(w, reason)).toBe(before + 1)
    }
    // Signed right but for another account (the body's AccountSid): refused too.
    const otherAccount = new URLSearchParams({ ...final.params, AccountSid: '00000000-0000-4000-8000-000000000000' }).toString()
    expect((await post(w, path, otherAccount, w.emulator.signedHeaders(otherAccount))).status).toBe(403)
    // An unknown call id: 403 (nobody can prove who sent it).
    expect((await post(w, '/telnyx/calls/01a00000-0000-7000-8000-000000000000/status', forged, w.emulator.signedHeaders(forged))).status).toBe(403)
    const after = await callOf(w, leadId)
    expect(after.outcome).toBe('no_answer')
    expect(after.duration_seconds).toBe(0)
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.completed'])
  })

  test('the same signed callback again (a replay, byte for byte) is 200 and changes nothing', async () => {
    const w = await setupTelnyx()
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId)
    expect(call.outcome).toBe('voicemail')
    const types = eventTypes(w, call.id)
    const applied = await series(w, 'dialer_carrier_callbacks_total', 'step="status"')
    const replays = w.emulator.sent.filter((s) => s.kind === 'status' || s.kind === 'amd')
    for (const sent of replays) expect(await w.emulator.resend(sent)).toBe(200)
    // Not applied again (the applied-callback counter did not move), so nothing could be told twice.
    expect(await series(w, 'dialer_carrier_callbacks_total', 'step="status"')).toBe(applied)
    expect(eventTypes(w, call.id)).toEqual(types)
    expect((await callOf(w, leadId)).outcome).toBe('voicemail')
  })

  test('oversized and over-long forms are refused before any signature work', async () => {
    const w = await setupTelnyx()
    const big = `CallSid=v3%3Aa&Pad=${'x'.repeat(70 * 1024)}`
    expect((await post(w, '/telnyx/calls/01a00000-0000-7000-8000-000000000000/status', big, w.emulator.signedHeaders(big))).status).toBe(413)
    const many = Array.from({ length: 201 }, (_, i) => `f${i}=1`).join('&')
    const r = await post(w, '/telnyx/calls/01a00000-0000-7000-8000-000000000000/status', many, w.emulator.signedHeaders(many))
    expect(r.status).toBe(400)
    expect(JSON.parse(r.text).error.type).toBe('invalid_request_error')
  })
})

describe('Telnyx delivering callbacks out of order and twice', () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: shuffled and duplicated callbacks give each call the outcome its scenario plays, told once`, async () => {
      const w = await setupTelnyx({ emulator: { shuffle: { seed, duplicate: 0.5 }, replayCallbacks: true } })
      const leads = await Promise.all(['00', '02', '03', '04'].map((nn) => addLead(w, ny(nn, 20 + seed))))
      const [person, noAnswer, busy, machine] = await Promise.all(leads.map((id, i) => callOf(w, id, i === 0 ? (c) => c.status === 'ended' && c.handled_by?.role === 'sdr' : undefined)))
      expect(person.handled_by.role).toBe('sdr')
      expect([noAnswer.outcome, busy.outcome, machine.outcome]).toEqual(['no_answer', 'busy', 'voicemail'])
      expect(eventTypes(w, machine.id)).toEqual(['call.started', 'call.answered', 'voicemail.left', 'call.completed'])
      expect(eventTypes(w, busy.id)).toEqual(['call.started', 'call.completed'])
      expect(w.emulator.sent.filter((s) => s.status !== 200)).toEqual([])
    })
  }
})
