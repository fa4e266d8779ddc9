import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { startReferenceAgent, type ReferenceAgent } from '../../scripts/reference-agent'
import { ACCOUNT, API_KEY, CALLER, ny, telnyxService } from './telnyx-service'

setDefaultTimeout(60_000)

/**
 * Telnyx TeXML as an operator meets it, on the service under test (the compiled binary, started
 * from an empty folder) against the Telnyx emulator over loopback: the carrier set with the admin
 * CLI (`--telnyx`, the API key from a file), calls created with JSON and a Bearer key, Ed25519-
 * signed callbacks, the press-1 bridge, the voicemail drop, the recording downloaded (and Telnyx's
 * copy deleted), forged, stale and replayed callbacks, and an AI-seated call streamed in Telnyx's
 * frames to the reference agent, which speaks Twilio's protocol.
 */
const ADMIN = 'dat_telnyx_binary_0123456789abcdef012'
const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me, also with an automated voice.' }

describe('Telnyx through the service as shipped', () => {
  const service = telnyxService({ prefix: 'dialer-telnyx-', adminToken: ADMIN, speed: 20, env: { DIALER_SECRET_KEY: '5e'.repeat(32) } })
  const { emulator, api, admin, callOf, addLead } = service
  let orgId = ''
  let agent: ReferenceAgent

  beforeAll(async () => {
    agent = await startReferenceAgent()
    await service.start()
    const seeded = await service.seedOrg({
      name: 'Spring roofs', lines: 3,
      sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }], closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
      voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
    })
    orgId = seeded.orgId
    expect(seeded.carrierOutput).not.toContain(API_KEY)
    expect(JSON.parse(seeded.carrierOutput).data.carrier).toMatchObject({ kind: 'telnyx', account_sid: ACCOUNT, public_key: emulator.publicKey, api_key_set: true })
  }, 40_000)

  afterAll(async () => {
    await service.close()
    await agent?.stop()
  })

  test('a person answers, the SDR presses 1 and takes the call; the recording is downloaded, served, and deleted at Telnyx', async () => {
    const leadId = await addLead(ny('00', 21))
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.handled_by?.role === 'sdr' && c.recording_available)
    expect(call.handled_by.name).toBe('Alex Rivera')
    const create = emulator.received.find((r) => r.method === 'POST' && r.params.To === ny('00', 21))!
    expect(create.path).toBe(`/v2/texml/Accounts/${ACCOUNT}/Calls`)
    expect(create.contentType).toContain('application/json')
    expect(create.params.From).toBe(CALLER)
    expect(String(create.params.StatusCallback)).toStartWith(`${service.base}/telnyx/calls/${call.id}/status`)
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status}`)).toEqual([])
    // The SDR heard the briefing and pressed 1 (a Gather on their own leg).
    expect(emulator.sent.some((s) => s.kind === 'gather' && s.params.Digits === '1' && s.url.includes(`/telnyx/calls/${call.id}/keypress`))).toBe(true)
    const link = await api('GET', `/calls/${call.id}/recording`)
    expect(link.status).toBe(200)
    const audio = await fetch(link.body.data.url)
    expect(audio.status).toBe(200)
    expect(new TextDecoder().decode((await audio.arrayBuffer()).slice(0, 4))).toBe('RIFF')
    const deadline = Date.now() + 10_000
    while (emulator.deletedRecordings.size === 0 && Date.now() < deadline) await Bun.sleep(50)
    expect(emulator.deletedRecordings.size).toBeGreaterThanOrEqual(1)
  })

  test('an answering machine gets the voicemail drop', async () => {
    const leadId = await addLead(ny('04', 21))
    const call = await callOf(leadId)
    expect(call.outcome).toBe('voicemail')
    const events = await api('GET', `/events?limit=50`)
    const types = (events.body.data as any[]).filter((e) => e.data?.object?.id === call.id || e.data?.object?.call_id === call.id).map((e) => e.type)
    expect(types).toContain('voicemail.left')
  })

  test('callbacks signed by another key, stale or unsigned are refused (403, counted); a replay is 200 and applied once', async () => {
    const leadId = await addLead(ny('02', 21))
    const call = await callOf(leadId)
    expect(call.outcome).toBe('no_answer')
    const final = emulator.sent.find((s) => s.kind === 'status' && s.params.CallStatus === 'no-answer' && s.url.includes(call.id))!
    const forged = new URLSearchParams({ ...final.params, CallStatus: 'completed', CallDuration: '600' }).toString()
    const now = Math.floor(service.clockNow() / 1000)
    const send = (body: string, headers: Record<string, string>) =>
      fetch(final.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body })
    const metric = async (series: string) => {
      const text = await (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text()
      return Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
    }
    const bad = await send(forged, { ...emulator.signedHeaders(forged), 'telnyx-signature-ed25519': final.headers!['telnyx-signature-ed25519']! })
    expect(bad.status).toBe(403)
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('permission_denied')
    expect((await send(forged, emulator.signedHeaders(forged, now - 400))).status).toBe(403)
    expect((await send(forged, {})).status).toBe(403)
    expect(await metric('dialer_carrier_callbacks_refused_total{reason="signature"}')).toBeGreaterThanOrEqual(2)
    expect(await metric('dialer_carrier_callbacks_refused_total{reason="stale"}')).toBeGreaterThanOrEqual(1)
    const applied = await metric('dialer_carrier_callbacks_total{step="status"}')
    expect(await emulator.resend(final)).toBe(200)
    expect(await metric('dialer_carrier_callbacks_total{step="status"}')).toBe(applied)
    const after = await callOf(leadId)
    expect(after).toMatchObject({ outcome: 'no_answer', duration_seconds: 0 })
  })

  test('an AI-seated call: the stream in Telnyx\u2019s frames reaches the reference agent, whose decision ends the call', async () => {
    const created = await admin('POST', `/orgs/${orgId}/campaigns`, {
      name: 'Roof quotes', status: 'active', lines: 1, requires_consent: true, sdrs: [{ name: 'Ada Accepts', phone: '+13125550811' }],
      ai_agent: { kind: 'stream', url: agent.url, parameters: { behaviour: 'end', outcome: 'not_interested', note: 'Has a roofer.', after_ms: '600' }, first_audio_ms: 1000, disclosure: { say: 'An automated assistant for Acme Roofing.' } },
    })
    expect(created.status).toBe(201)
    const leadId = await addLead(ny('01', 22), created.body.data.id, CONSENT)
    const call = await callOf(leadId)
    expect(call).toMatchObject({ outcome: 'not_interested', note: 'Has a roofer.' })
    const seen = agent.call(call.id)!
    expect(seen.callSid).toMatch(/^v3:/)
    expect(seen.parameters).toMatchObject({ dialer_call_id: call.id, dialer_lead_id: leadId })
    const stream = emulator.stream(seen.callSid!)!
    expect(stream.url).toBe(`${service.base.replace(/^http/, 'ws')}/telnyx/streams`)
  })

  test('a call cut by SIGKILL is looked up at Telnyx on the next boot and closed', async () => {
    const leadId = await addLead(ny('01', 29))
    const up = await callOf(leadId, (c) => c.status === 'in_progress')
    await service.stop('SIGKILL')
    // Telnyx's callbacks to the dead process fail; the emulator ends the call.
    const sid = [...emulator.calls.values()].find((c) => c.to === ny('01', 29))!.sid
    await emulator.settled(sid)
    await service.start()
    const closed = await callOf(leadId, (c) => c.id === up.id && c.status === 'ended')
    expect(closed.duration_seconds).toBeGreaterThan(0)
    expect(sid).toStartWith('v3:')
    expect(emulator.received.some((r) => r.method === 'GET' && r.path === `/v2/texml/Accounts/${ACCOUNT}/Calls/${encodeURIComponent(sid)}`)).toBe(true)
  })
})
