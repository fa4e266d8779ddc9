import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { TelnyxRestClient, type TelnyxAccount } from '../../src/telephony/telnyx/rest-client'

setDefaultTimeout(60_000)

// The TeXML REST client: JSON create, form-encoded everything else, Bearer auth, v3: ids encoded, failures classified.

const ACCOUNT: TelnyxAccount = {
  accountSid: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', apiKey: 'KEY0123456789ABCDEF', applicationSid: '1773070540731319841', publicKey: 'x', apiBaseUrl: 'https://api.telnyx.example/',
}
const SID = 'v3:9X2vxPDFY2RHSJ1EdMS0RHRksMTg7ldNxdjWbVr9zBjbGjGsSe-aiQ'
const BASE = `https://api.telnyx.example/v2/texml/Accounts/${ACCOUNT.accountSid}`

function client(reply: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const seen: { url: string; init: RequestInit }[] = []
  const c = new TelnyxRestClient(ACCOUNT, { fetch: async (url, init) => (seen.push({ url, init }), reply(url, init)) })
  return { c, seen }
}
const header = (init: RequestInit, name: string) => (init.headers as Record<string, string>)[name]

describe('TelnyxRestClient', () => {
  test('create: JSON under the account with Bearer auth; the reply names no call (the first callback does)', async () => {
    const { c, seen } = client(() => Response.json({ from: '+14155550100', status: 'queued', to: '+12125552000' }))
    const r = await c.createCall({
      to: '+12125552000', from: '+14155550100', url: 'https://d/telnyx/calls/c/answer', statusCallback: 'https://d/telnyx/calls/c/status',
      machineDetection: true, asyncAmdStatusCallback: 'https://d/telnyx/calls/c/amd', record: true, recordingStatusCallback: 'https://d/telnyx/calls/c/recording', timeoutSeconds: 30,
    })
    expect(r).toEqual({ ok: true, value: { sid: null } })
    expect(seen[0]!.url).toBe(`${BASE}/Calls`)
    expect(header(seen[0]!.init, 'Authorization')).toBe(`Bearer ${ACCOUNT.apiKey}`)
    expect(header(seen[0]!.init, 'Content-Type')).toBe('application/json')
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual({
      ApplicationSid: ACCOUNT.applicationSid, To: '+12125552000', From: '+14155550100', Url: 'https://d/telnyx/calls/c/answer', UrlMethod: 'POST',
      StatusCallback: 'https://d/telnyx/calls/c/status', StatusCallbackMethod: 'POST', StatusCallbackEvent: 'initiated ringing answered completed', Timeout: 30,
      MachineDetection: 'DetectMessageEnd', AsyncAmd: true, AsyncAmdStatusCallback: 'https://d/telnyx/calls/c/amd', AsyncAmdStatusCallbackMethod: 'POST',
      Record: true, RecordingStatusCallback: 'https://d/telnyx/calls/c/recording', RecordingStatusCallbackMethod: 'POST', RecordingStatusCallbackEvent: 'completed absent',
    })
  })

  test('update: form-encoded at the encoded v3: id; a cancel is Status=completed (canceled is not documented)', async () => {
    const { c, seen } = client(() => Response.json({ sid: SID, status: 'completed' }))
    await c.updateCall(SID, { status: 'canceled' })
    await c.updateCall(SID, { twiml: '<Response><Hangup/></Response>' })
    await c.updateCall(SID, { url: 'https://d/telnyx/calls/c/bridge' })
    expect(seen.map((s) => s.url)).toEqual(Array(3).fill(`${BASE}/Calls/${encodeURIComponent(SID)}`))
    expect(seen.map((s) => header(s.init, 'Content-Type'))).toEqual(Array(3).fill('application/x-www-form-urlencoded'))
    expect(seen.map((s) => Object.fromEntries(new URLSearchParams(String(s.init.body))))).toEqual([
      { Status: 'completed' }, { Texml: '<Response><Hangup/></Response>' }, { Url: 'https://d/telnyx/calls/c/bridge', Method: 'POST' },
    ])
  })

  test('fetch: the Call resource in the engine words (answered_by machine/not_sure become machine_start/unknown)', async () => {
    for (const [answered, expected] of [['human', 'human'], ['machine', 'machine_start'], ['not_sure', 'unknown'], [undefined, null]] as const) {
      const { c } = client(() => Response.json({ sid: SID, status: 'completed', duration: '11', answered_by: answered }))
      expect(await c.fetchCall(SID)).toEqual({ ok: true, value: { status: 'completed', answeredBy: expected, durationSeconds: 11 } })
    }
    const { c } = client(() => Response.json({ sid: SID, status: 'exploded' }))
    expect((await c.fetchCall(SID)).ok).toBe(false)
  })

  test('failures: 429 throttled with its code, 5xx and no answer unavailable, other 4xx rejected; Telnyx detail kept', async () => {
    const body = (code: string, detail: string) => ({ errors: [{ code, title: 't', detail }] })
    const cases: [Response | Error, string, number | null, number | null][] = [
      [Response.json(body('10011', 'Too many requests'), { status: 429 }), 'throttled', 429, 10011],
      [Response.json(body('10002', 'The phone number is invalid.'), { status: 422 }), 'rejected', 422, 10002],
      [Response.json(body('10009', 'Authentication failed'), { status: 401 }), 'rejected', 401, 10009],
      [new Response('<html>bad gateway</html>', { status: 502 }), 'unavailable', 502, null],
      [new Error('ECONNREFUSED'), 'unavailable', null, null],
    ]
    for (const [reply, kind, status, code] of cases) {
      const { c } = client(() => {
        if (reply instanceof Error) throw reply
        return reply
      })
      const r = await c.createCall({ to: '+12125552000', from: '+14155550100', url: 'u', statusCallback: 's', machineDetection: false, record: false })
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error).toMatchObject({ kind, status, code })
    }
    const { c } = client(() => Response.json(body('10002', 'The phone number is invalid.'), { status: 422 }))
    const r = await c.createCall({ to: '+12125552000', from: '+14155550100', url: 'u', statusCallback: 's', machineDetection: false, record: false })
    if (!r.ok) expect(r.error.message).toBe('The phone number is invalid.')
  })

  test('recordings: media_url fetched with the key only at the configured endpoint; delete counts 404 as deleted', async () => {
    const media = (url: string) => client((u) => (u.endsWith('.json') ? Response.json({ media_url: url }) : new Response(new Uint8Array([1, 2, 3]))))
    const ours = media('https://api.telnyx.example/media/r.wav')
    expect(await ours.c.downloadRecording('35094891-3290-4142-b2c2-b2eda57534cf')).toEqual({ ok: true, value: new Uint8Array([1, 2, 3]) })
    expect(ours.seen.map((s) => [s.url, header(s.init, 'Authorization') !== undefined])).toEqual([
      [`${BASE}/Recordings/35094891-3290-4142-b2c2-b2eda57534cf.json`, true], ['https://api.telnyx.example/media/r.wav', true],
    ])
    const elsewhere = media('https://storage.example.net/r.wav?sig=abc')
    await elsewhere.c.downloadRecording('35094891-3290-4142-b2c2-b2eda57534cf')
    expect(header(elsewhere.seen[1]!.init, 'Authorization')).toBeUndefined()
    const gone = client(() => Response.json({ errors: [{ code: '10005', detail: 'Not found' }] }, { status: 404 }))
    expect(await gone.c.deleteRecording('35094891-3290-4142-b2c2-b2eda57534cf')).toEqual({ ok: true, value: null })
    expect(gone.seen[0]!.init.method).toBe('DELETE')
  })

  test('a supervisor: form-encoded participant into the room, under the application', async () => {
    const { c, seen } = client(() => Response.json({ call_sid: SID }))
    const r = await c.addParticipant('0b1c2d3e-0000-4000-8000-000000000000', { from: '+14155550100', to: '+13125550160', mode: 'whisper', coach: SID, timeoutSeconds: 30 })
    expect(r).toEqual({ ok: true, value: { callSid: SID } })
    expect(seen[0]!.url).toBe(`${BASE}/Conferences/0b1c2d3e-0000-4000-8000-000000000000/Participants`)
    expect(Object.fromEntries(new URLSearchParams(String(seen[0]!.init.body)))).toMatchObject({ ApplicationSid: ACCOUNT.applicationSid, Coaching: 'true', CallSidToCoach: SID, EndConferenceOnExit: 'false' })
  })
})
