import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client'

setDefaultTimeout(60_000)

const SID = `AC${'a'.repeat(32)}`
const CALL = `CA${'1'.repeat(32)}`
const REC = `RE${'2'.repeat(32)}`
const account = { accountSid: SID, authToken: 'secret-token', apiBaseUrl: 'https://api.twilio.test/' }

interface Seen {
  url: string
  method: string
  headers: Headers
  body: string
  signal: AbortSignal | null | undefined
}

function fakeFetch(reply: (seen: Seen) => Response | Promise<Response>) {
  const seen: Seen[] = []
  const fetch = async (input: string, init: RequestInit) => {
    const s = { url: input, method: init.method ?? 'GET', headers: new Headers(init.headers), body: String(init.body ?? ''), signal: init.signal }
    seen.push(s)
    return reply(s)
  }
  return { fetch, seen }
}

const callJson = (over: Record<string, unknown> = {}) =>
  Response.json({ sid: CALL, status: 'queued', to: '+12125550100', from: '+13125550111', answered_by: null, duration: null, start_time: null, end_time: null, ...over }, { status: 201 })

describe('createCall', () => {
  test('sends every parameter the dialer needs, form-encoded, with Basic auth', async () => {
    const { fetch, seen } = fakeFetch(() => callJson())
    const client = new TwilioRestClient(account, { fetch })
    const result = await client.createCall({
      to: '+12125550100',
      from: '+13125550111',
      url: 'https://dialer.example.com/twilio/calls/c1/twiml',
      statusCallback: 'https://dialer.example.com/twilio/calls/c1/status',
      machineDetection: true,
      asyncAmdStatusCallback: 'https://dialer.example.com/twilio/calls/c1/amd',
      record: true,
      recordingStatusCallback: 'https://dialer.example.com/twilio/calls/c1/recording',
    })
    expect(result).toEqual({
      ok: true,
      value: { sid: CALL, status: 'queued', to: '+12125550100', from: '+13125550111', answeredBy: null, durationSeconds: null, startTime: null, endTime: null },
    })
    const [req] = seen
    expect(req!.method).toBe('POST')
    expect(req!.url).toBe(`https://api.twilio.test/2010-04-01/Accounts/${SID}/Calls.json`)
    expect(req!.headers.get('authorization')).toBe(`Basic ${btoa(`${SID}:secret-token`)}`)
    expect(req!.headers.get('content-type')).toBe('application/x-www-form-urlencoded')
    expect(req!.signal).toBeInstanceOf(AbortSignal)
    const form = new URLSearchParams(req!.body)
    expect(form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed'])
    // absent too, so a call that leaves no recording does not wait for one.
    expect(form.getAll('RecordingStatusCallbackEvent')).toEqual(['completed', 'absent'])
    const repeated = new Set(['StatusCallbackEvent', 'RecordingStatusCallbackEvent'])
    expect(Object.fromEntries([...form].filter(([k]) => !repeated.has(k)))).toEqual({
      To: '+12125550100',
      From: '+13125550111',
      Url: 'https://dialer.example.com/twilio/calls/c1/twiml',
      Method: 'POST',
      StatusCallback: 'https://dialer.example.com/twilio/calls/c1/status',
      StatusCallbackMethod: 'POST',
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: 'https://dialer.example.com/twilio/calls/c1/amd',
      AsyncAmdStatusCallbackMethod: 'POST',
      Record: 'true',
      RecordingStatusCallback: 'https://dialer.example.com/twilio/calls/c1/recording',
      RecordingStatusCallbackMethod: 'POST',
    })
  })

  test('no machine detection and no recording leave those parameters out (Record false)', async () => {
    const { fetch, seen } = fakeFetch(() => callJson())
    await new TwilioRestClient(account, { fetch }).createCall({
      to: '+12125550100', from: '+13125550111', url: 'https://x.test/t', statusCallback: 'https://x.test/s', machineDetection: false, record: false, timeoutSeconds: 30,
    })
    const form = new URLSearchParams(seen[0]!.body)
    expect(form.has('MachineDetection')).toBe(false)
    expect(form.has('AsyncAmd')).toBe(false)
    expect(form.get('Record')).toBe('false')
    expect(form.has('RecordingStatusCallback')).toBe(false)
    expect(form.get('Timeout')).toBe('30')
  })
})

describe('errors are classified and keep Twilio\'s code and message', () => {
  const cases: [number, string, number | null][] = [
    [400, 'rejected', 21211],
    [401, 'rejected', 20003],
    [404, 'rejected', 20404],
    [429, 'throttled', 20429],
    [500, 'unavailable', 20500],
    [503, 'unavailable', null],
  ]
  for (const [status, kind, code] of cases) {
    test(`HTTP ${status} -> ${kind}`, async () => {
      const { fetch } = fakeFetch(() =>
        code === null
          ? new Response('<html>Service Unavailable</html>', { status, headers: { 'content-type': 'text/html' } })
          : Response.json({ code, message: `Twilio says ${code}`, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status }),
      )
      const result = await new TwilioRestClient(account, { fetch }).fetchCall(CALL)
      expect(result).toEqual({
        ok: false,
        error: { kind: kind as 'rejected', status, code, message: code === null ? `Twilio answered HTTP ${status}.` : `Twilio says ${code}` },
      })
    })
  }

  test('a network error is unavailable', async () => {
    const fetch = async () => {
      throw new TypeError('connect ECONNREFUSED 127.0.0.1:1')
    }
    const result = await new TwilioRestClient(account, { fetch }).fetchCall(CALL)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error).toMatchObject({ kind: 'unavailable', status: null, code: null })
  })

  test('a timeout is unavailable, and the request is aborted', async () => {
    const fetch = (_: string, init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)))
    const result = await new TwilioRestClient(account, { fetch, timeoutMs: 20 }).fetchCall(CALL)
    expect(result).toEqual({ ok: false, error: { kind: 'unavailable', status: null, code: null, message: 'Twilio did not answer within 20 ms.' } })
  })

  test('a 2xx that is not a Call is unavailable, not a crash', async () => {
    const { fetch } = fakeFetch(() => new Response('not json', { status: 200 }))
    const result = await new TwilioRestClient(account, { fetch }).fetchCall(CALL)
    expect(result.ok).toBe(false)
    const { fetch: f2 } = fakeFetch(() => Response.json({ sid: CALL, status: 'exploded' }))
    expect((await new TwilioRestClient(account, { fetch: f2 }).fetchCall(CALL)).ok).toBe(false)
  })
})

describe('fetchCall, updateCall, downloadRecording', () => {
  test('fetchCall reads status, answered_by and duration', async () => {
    const { fetch, seen } = fakeFetch(() => callJson({ status: 'completed', answered_by: 'machine_end_beep', duration: '42', start_time: 'Mon, 05 Jan 2026 15:00:00 +0000' }))
    const result = await new TwilioRestClient(account, { fetch }).fetchCall(CALL)
    expect(seen[0]!.method).toBe('GET')
    expect(seen[0]!.url).toBe(`https://api.twilio.test/2010-04-01/Accounts/${SID}/Calls/${CALL}.json`)
    expect(result.ok && result.value).toMatchObject({ status: 'completed', answeredBy: 'machine_end_beep', durationSeconds: 42 })
  })

  test('updateCall hangs up with Status=completed, or redirects with Twiml or Url', async () => {
    const { fetch, seen } = fakeFetch(() => callJson({ status: 'completed' }))
    const client = new TwilioRestClient(account, { fetch })
    await client.updateCall(CALL, { status: 'completed' })
    await client.updateCall(CALL, { twiml: '<Response><Hangup/></Response>' })
    await client.updateCall(CALL, { url: 'https://x.test/next' })
    expect(seen.map((s) => [s.method, s.url.endsWith(`/Calls/${CALL}.json`), s.body])).toEqual([
      ['POST', true, 'Status=completed'],
      ['POST', true, 'Twiml=%3CResponse%3E%3CHangup%2F%3E%3C%2FResponse%3E'],
      ['POST', true, 'Url=https%3A%2F%2Fx.test%2Fnext&Method=POST'],
    ])
  })

  test('downloadRecording gets the .wav with Basic auth from the configured host', async () => {
    const wav = new Uint8Array([82, 73, 70, 70, 1, 2, 3])
    const { fetch, seen } = fakeFetch(() => new Response(wav, { headers: { 'content-type': 'audio/x-wav' } }))
    const result = await new TwilioRestClient(account, { fetch }).downloadRecording(REC)
    expect(result).toEqual({ ok: true, value: wav })
    expect(seen[0]!.url).toBe(`https://api.twilio.test/2010-04-01/Accounts/${SID}/Recordings/${REC}.wav`)
    expect(seen[0]!.headers.get('authorization')).toStartWith('Basic ')
  })

  test('deleteRecording DELETEs the .json; 204 and 404 (already gone) are done, 503 and 401 are failures', async () => {
    const replies = [new Response(null, { status: 204 }), Response.json({ code: 20404, message: 'not found', status: 404 }, { status: 404 }),
      Response.json({ code: 20500, message: 'down', status: 503 }, { status: 503 }), Response.json({ code: 20003, message: 'auth', status: 401 }, { status: 401 })]
    const { fetch, seen } = fakeFetch(() => replies.shift()!)
    const client = new TwilioRestClient(account, { fetch })
    expect(await client.deleteRecording(REC)).toEqual({ ok: true, value: null })
    expect(await client.deleteRecording(REC)).toEqual({ ok: true, value: null })
    expect(await client.deleteRecording(REC)).toMatchObject({ ok: false, error: { kind: 'unavailable', status: 503, code: 20500 } })
    expect(await client.deleteRecording(REC)).toMatchObject({ ok: false, error: { kind: 'rejected', status: 401 } })
    expect(seen[0]!.method).toBe('DELETE')
    expect(seen[0]!.url).toBe(`https://api.twilio.test/2010-04-01/Accounts/${SID}/Recordings/${REC}.json`)
    expect(seen[0]!.headers.get('authorization')).toStartWith('Basic ')
    expect((await client.deleteRecording('RE1')).ok).toBe(false)
    expect(seen).toHaveLength(4)
  })

  test('a malformed SID is rejected before any request (no path injection)', async () => {
    const { fetch, seen } = fakeFetch(() => callJson())
    const client = new TwilioRestClient(account, { fetch })
    expect((await client.fetchCall('../../Accounts')).ok).toBe(false)
    expect((await client.downloadRecording(`${REC}/../x`)).ok).toBe(false)
    expect((await client.updateCall('CA1', { status: 'completed' })).ok).toBe(false)
    expect(seen).toHaveLength(0)
  })
})
