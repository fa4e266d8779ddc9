import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { addLead, callOf, eventTypes, ny, setup, TOKEN } from './twilio-world'

setDefaultTimeout(60_000)

// Press 1 to take the call, through the whole handler against the Twilio emulator: the
// `<Number url>` briefing and its Gather's keypress are signed callbacks like every other.

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>'

describe('press 1 to take the call', () => {
  test('silence on the SDR leg is skipped; the closer presses 1 and takes it; replays and other legs change nothing', async () => {
    const w = await setup({ sdrs: [{ name: 'Nia Nokey', phone: '+13125550112' }], closers: [{ name: 'Ada Accepts', phone: '+13125550111' }] })
    const leadId = await addLead(w, ny('00'))
    const call = await callOf(w, leadId, (c) => c.status === 'ended' && c.handled_by?.role === 'closer')
    expect(call.handled_by).toMatchObject({ name: 'Ada Accepts', role: 'closer' })
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'handover.accepted'])
    expect(w.emulator.sent.filter((s) => s.status !== 200)).toEqual([])
    const publicUrl = w.h.services.config.publicUrl
    // Each leg's briefing came from the whisper step; only the closer's Gather posted a key.
    const screens = w.emulator.sent.filter((s) => s.kind === 'screen')
    expect(screens.map((s) => s.url)).toEqual([0, 1].map((leg) => `${publicUrl}/twilio/calls/${call.id}/whisper?leg=${leg}`))
    expect(screens[0]!.body).toContain('<Gather input="dtmf" numDigits="1"')
    const gathers = w.emulator.sent.filter((s) => s.kind === 'gather')
    expect(gathers).toHaveLength(1)
    expect(gathers[0]!.url).toBe(`${publicUrl}/twilio/calls/${call.id}/keypress?leg=1`)
    expect(gathers[0]!.params.Digits).toBe('1')
    expect(gathers[0]!.body).toBe(`${HEAD}<Response/>`)

    const post = (url: string, params: Record<string, string>, token = TOKEN) =>
      w.h.app.handle(new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest(token, url, params) },
        body: new URLSearchParams(params).toString(),
      }))
    // Replayed: 200, the same answer, no second handover.
    const replay = await post(gathers[0]!.url, gathers[0]!.params)
    expect(replay.status).toBe(200)
    expect(await replay.text()).toBe(`${HEAD}<Response/>`)
    // 1 on the SDR's leg, which is not the one ringing: hung up, nothing changes.
    const other = await post(`${publicUrl}/twilio/calls/${call.id}/keypress?leg=0`, gathers[0]!.params)
    expect(other.status).toBe(200)
    expect(await other.text()).toBe(`${HEAD}<Response><Hangup/></Response>`)
    // Not signed by the account: refused.
    expect((await post(gathers[0]!.url, gathers[0]!.params, '0'.repeat(32))).status).toBe(403)
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'handover.accepted'])
    const after = await callOf(w, leadId, (c) => c.status === 'ended')
    expect(after.handled_by).toMatchObject({ name: 'Ada Accepts', role: 'closer' })
  })

  test('the other key and a voicemail box: never bridged, never handled by them; the lead gets a callback', async () => {
    const w = await setup({ sdrs: [{ name: 'Otto Otherkey', phone: '+13125550113' }], closers: [{ name: 'Vic Voicemail', phone: '+13125550114' }] })
    const leadId = await addLead(w, ny('01'))
    const call = await callOf(w, leadId)
    expect(call.outcome).toBe('callback')
    expect(['sdr', 'closer']).not.toContain(call.handled_by?.role)
    expect(eventTypes(w, call.id)).not.toContain('handover.accepted')
    const legs = [...w.emulator.calls.values()].find((c) => c.to === ny('01'))!.legs!
    expect(legs.map((l) => [l.to, l.key, l.bridged])).toEqual([['+13125550113', '2', false], ['+13125550114', null, false]])
  })
})
