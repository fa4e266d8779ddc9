import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { addLead, callOf, CALLER_NY, eventTypes, ny, setup, SID, TOKEN } from './twilio-world'

setDefaultTimeout(60_000)

// Live calls through Twilio (issue 18), in process against the emulator: see twilio-world.ts.

describe('live calls through Twilio', () => {
  test('a person answers, the bridge rings the SDR who takes it; the SDR files the outcome', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('00'))
    const call = await callOf(w, leadId, (c) => c.status === 'ended' && c.handled_by.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: 'Alex Rivera', role: 'sdr' })
    expect(call.tth_seconds).toBeGreaterThanOrEqual(0)
    expect(call.outcome).toBeNull()
    // Placed through Twilio from the caller ID sharing the lead's area code (212, listed second), every callback under the public URL.
    const create = w.emulator.received.find((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'))!
    expect(create.params.To).toBe(ny('00'))
    expect(create.params.From).toBe(CALLER_NY)
    expect(create.params.MachineDetection).toBe('DetectMessageEnd')
    expect(create.params.AsyncAmd).toBe('true')
    expect(create.params.Record).toBe('true')
    expect(create.params.StatusCallbackEvent).toEqual(['initiated', 'ringing', 'answered', 'completed'])
    const publicUrl = w.h.services.config.publicUrl
    for (const name of ['Url', 'StatusCallback', 'AsyncAmdStatusCallback', 'RecordingStatusCallback']) expect(String(create.params[name])).toStartWith(`${publicUrl}/twilio/calls/${call.id}/`)
    // Every callback was accepted.
    expect(w.emulator.sent.filter((s) => s.status !== 200)).toEqual([])
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'handover.accepted'])
    const filed = await w.h.admin('POST', `/calls/${call.id}/outcome`, { outcome: 'interested', note: 'Booked an inspection.' })
    expect(filed.status).toBe(200)
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'handover.accepted', 'call.completed'])
    // The recording was downloaded and is served through the service's own signed link.
    const done = await callOf(w, leadId, (c) => c.recording_available)
    const link = await w.h.api('GET', `/calls/${done.id}/recording`, { key: w.live })
    expect(link.status).toBe(200)
    const audio = await w.h.call('GET', new URL(link.body.data.url).pathname + new URL(link.body.data.url).search)
    expect(audio.status).toBe(200)
    expect(audio.headers.get('content-type')).toBe('audio/wav')
    // Transcript lines from real-time transcription: the lead and our side.
    const transcript = await w.h.api('GET', `/calls/${done.id}/transcript`, { key: w.live })
    expect(transcript.status).toBe(200)
    const speakers = new Set((transcript.body.data.lines as any[]).map((l) => l.speaker))
    expect(speakers.has('lead')).toBe(true)
  })

  test('an answering machine gets the voicemail: voicemail.left, outcome voicemail', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId)
    expect(call.outcome).toBe('voicemail')
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'voicemail.left', 'call.completed'])
    const answered = w.h.services.stores.events.forObject(call.id).map((r) => JSON.parse(r.body)).find((e) => e.type === 'call.answered')
    expect(answered.data.object.answered_by).toBe('machine')
  })

  for (const [nn, outcome] of [['02', 'no_answer'], ['03', 'busy'], ['05', 'failed']] as const) {
    test(`scenario ${nn} ends ${outcome}`, async () => {
      const w = await setup()
      const leadId = await addLead(w, ny(nn))
      const call = await callOf(w, leadId)
      expect(call.outcome).toBe(outcome)
      expect(call.answered).toBeNull()
      expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.completed'])
    })
  }

  test('nobody on the campaign picks up: a callback is booked', async () => {
    // SDR and closer numbers ending 02: they never answer.
    const w = await setup({ sdrs: [{ name: 'Alex Rivera', phone: '+13125550102' }], closers: [{ name: 'Sam Chen', phone: '+13125550202' }] })
    const leadId = await addLead(w, ny('01'))
    const call = await callOf(w, leadId)
    expect(call.outcome).toBe('callback')
    expect(call.callback_at).not.toBeNull()
    const lead = await w.h.api('GET', `/leads/${leadId}`, { key: w.live })
    expect(lead.body.data.status).toBe('callback_scheduled')
  })

  test('test keys always use the simulator', async () => {
    const w = await setup()
    const leadId = await addLead(w, '+12125550101', w.test)
    await w.h.advance(60)
    const r = await w.h.api('GET', `/calls?lead_id=${leadId}`, { key: w.test })
    expect(r.body.data[0].outcome).toBe('not_interested')
    expect(w.emulator.received.length).toBe(0)
  })

  test('Twilio refuses the call (4xx): failed with its message in the note; 429 holds the lines and does not count against the number', async () => {
    const w = await setup()
    w.emulator.failNext(400, 21211, "The 'To' number is not a valid phone number.")
    const refused = await addLead(w, ny('01'))
    const call = await callOf(w, refused)
    expect(call.outcome).toBe('failed')
    expect(call.note).toContain("The 'To' number is not a valid phone number.")
    expect(call.note).toContain('21211')
    w.emulator.failNext(429, 20429, 'Too many concurrent calls')
    const throttled = await addLead(w, ny('01', 21))
    const second = await callOf(w, throttled)
    expect(second.outcome).toBe('failed')
    expect(second.note).toContain('429')
    const lead = w.h.services.stores.leads.get(throttled)!
    expect(lead.failStreak).toBe(0)
    expect(lead.status).toBe('scheduled')
  })

  test('callbacks with a missing or wrong signature, or for an unknown call, are 403 and change nothing', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('02'))
    // Once Twilio has named the call (its CallSid stored), so the forged CallSid below cannot be the first one seen.
    const call = await callOf(w, leadId, (c) => w.h.services.stores.carrierCalls.get(c.id)?.carrierCallId != null)
    const url = `${w.h.services.config.publicUrl}/twilio/calls/${call.id}/status`
    const params = { AccountSid: SID, CallSid: `CA${'0'.repeat(32)}`, CallStatus: 'completed', CallDuration: '99' }
    const post = (signature: string | null, target = url) =>
      w.h.app.handle(new Request(target, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature ? { 'x-twilio-signature': signature } : {}) },
        body: new URLSearchParams(params).toString(),
      }))
    expect((await post(null)).status).toBe(403)
    expect((await post(signTwilioRequest('0'.repeat(32), url, params))).status).toBe(403)
    const unknown = url.replace(call.id, '0190a0a0-0000-7000-8000-000000000000')
    expect((await post(signTwilioRequest(TOKEN, unknown, params), unknown)).status).toBe(403)
    // Signed, but not this call's CallSid: accepted and ignored.
    const foreign = await post(signTwilioRequest(TOKEN, url, params))
    expect(foreign.status).toBe(200)
    const done = await callOf(w, leadId)
    expect(done.outcome).toBe('no_answer')
    expect(done.duration_seconds).toBe(0)
  })

  test('a person-handled call with no outcome filed becomes other after 10 minutes', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('00'))
    const call = await callOf(w, leadId, (c) => c.status === 'ended' && c.handled_by.role === 'sdr')
    expect(call.outcome).toBeNull()
    await w.h.advance(600)
    const done = await callOf(w, leadId)
    expect(done.outcome).toBe('other')
    expect(done.note).toBe('No outcome was filed within 10 minutes of the call.')
  })

  test('never more calls up than the campaign\u2019s lines', async () => {
    const w = await setup()
    expect((await w.h.admin('PATCH', `/campaigns/${w.campaignId}`, { lines: 2 })).status).toBe(200)
    const leads = await Promise.all(['01', '06', '08', '12', '13'].map((nn, i) => addLead(w, ny(nn, 30 + i))))
    let most = 0
    const deadline = Date.now() + 20_000
    for (;;) {
      const up = [...w.emulator.calls.values()].filter((c) => c.endedAt === null).length
      most = Math.max(most, up, w.h.services.dialer.callsUp(w.campaignId, true))
      const calls = await Promise.all(leads.map((id) => w.h.api('GET', `/calls?lead_id=${id}`, { key: w.live })))
      if (calls.every((r) => r.body.data[0]?.status === 'ended')) break
      if (Date.now() > deadline) throw new Error('calls did not finish')
      await Bun.sleep(5)
    }
    expect(most).toBe(2)
    expect(w.emulator.calls.size).toBe(5)
  })

  test('machine detection off: no AMD parameters, whoever answers is bridged; recording off: Record=false', async () => {
    const w = await setup({ machineDetection: false, record: false })
    const leadId = await addLead(w, ny('00'))
    const call = await callOf(w, leadId, (c) => c.status === 'ended' && c.handled_by.role === 'sdr')
    const create = w.emulator.received.find((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'))!
    expect(create.params.MachineDetection).toBeUndefined()
    expect(create.params.Record).toBe('false')
    expect(call.recording_available).toBe(false)
    const answered = w.h.services.stores.events.forObject(call.id).map((r) => JSON.parse(r.body)).find((e) => e.type === 'call.answered')
    expect(answered.data.object.answered_by).toBe('person')
  })

  test('recordings past the organization\u2019s retention are deleted: 404 recording_not_available', async () => {
    const w = await setup({ voicemail: { audio_url: 'https://example.com/vm.mp3' } })
    expect((await w.h.admin('PATCH', `/orgs/${w.orgId}`, { recording_retention_days: 2 })).status).toBe(200)
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId, (c) => c.outcome !== null && c.recording_available)
    const file = w.h.services.carriers.twilio.recording({ id: call.id })
    expect(file).not.toBeNull()
    expect((await w.h.api('GET', `/calls/${call.id}/recording`, { key: w.live })).status).toBe(200)
    await w.h.advance(3 * 86_400)
    const gone = await w.h.api('GET', `/calls/${call.id}/recording`, { key: w.live })
    expect(gone.status).toBe(404)
    expect(gone.body.error.code).toBe('recording_not_available')
    expect(w.h.services.carriers.twilio.recording({ id: call.id })).toBeNull()
  })

  test('every callback twice (as Twilio may) gives the same events once', async () => {
    const w = await setup({ replay: true })
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId)
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'voicemail.left', 'call.completed'])
  })
})
