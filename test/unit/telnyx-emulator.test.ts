import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { TelnyxEmulator } from '../emulators/telnyx/emulator'
import { verifySignature } from '../emulators/telnyx/telnyx-signing'
import { ACCOUNT, CALLER, type TelnyxStandIn, telnyxStandIn, texmlOf } from '../emulators/telnyx/stand-in'

setDefaultTimeout(60_000)

/**
 * The Telnyx emulator against Telnyx's published wire: Bearer JSON create with a reply that has
 * no call id, Telnyx's error bodies, form-encoded callbacks with Telnyx's fields, each signed
 * with Ed25519 over `timestamp|body` so that WebCrypto verifies it with `.publicKey`.
 */

let s: TelnyxStandIn

beforeAll(() => {
  s = telnyxStandIn(200, { fetchLag: 0 })
})

afterAll(async () => {
  await s.stop()
})

const errorOf = (body: Record<string, unknown>) => (body.errors as { code: string; title: string; detail: string; source?: { pointer: string } }[])[0]!

describe('REST', () => {
  test('the create is JSON with a Bearer key and its reply carries no call id', async () => {
    const r = await s.rest('POST', 'Calls', { ApplicationSid: ACCOUNT.applicationSid, To: '+13125550101', From: CALLER, Url: `${s.base}/c/1/answer` }, 'json')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ from: CALLER, status: 'queued', to: '+13125550101' })
    const call = [...s.emulator.calls.values()].at(-1)!
    expect(call.sid).toMatch(/^v3:[A-Za-z0-9_-]{40,}$/)
    await s.emulator.settled(call.sid)
  })

  test('a wrong or missing key is 401 10009; another account is 404 10005', async () => {
    const wrong = await s.rest('GET', 'Conferences', undefined, 'form', 'KEY_not_it')
    expect(wrong.status).toBe(401)
    expect(errorOf(wrong.body)).toMatchObject({ code: '10009', title: 'Authentication failed' })
    const none = await fetch(`${s.emulator.url}/v2/texml/Accounts/${ACCOUNT.accountSid}/Conferences`)
    expect(none.status).toBe(401)
    const other = await fetch(`${s.emulator.url}/v2/texml/Accounts/00000000-0000-4000-8000-000000000000/Conferences`, { headers: { authorization: `Bearer ${ACCOUNT.apiKey}` } })
    expect(other.status).toBe(404)
    expect(errorOf((await other.json()) as Record<string, unknown>).code).toBe('10005')
  })

  test('bad fields are 422 with the field; a form-encoded create is refused; failNext answers what it is told', async () => {
    const create = (body: Record<string, unknown>) => s.rest('POST', 'Calls', { ApplicationSid: ACCOUNT.applicationSid, To: '+13125550101', From: CALLER, Url: `${s.base}/c/2/answer`, ...body }, 'json')
    const before = s.emulator.calls.size
    const badTo = await create({ To: '3125550101' })
    expect(badTo.status).toBe(422)
    expect(errorOf(badTo.body)).toMatchObject({ code: '10002', source: { pointer: '/To' } })
    const notOurs = await create({ From: '+13125550999' })
    expect(errorOf(notOurs.body)).toMatchObject({ code: '10002', source: { pointer: '/From' } })
    expect((await create({ ApplicationSid: '999' })).status).toBe(422)
    expect((await create({ Timeout: 600 })).status).toBe(422)
    const form = await s.rest('POST', 'Calls', { ApplicationSid: ACCOUNT.applicationSid, To: '+13125550101', From: CALLER, Url: `${s.base}/c/2/answer` }, 'form')
    expect(form.status).toBe(415)
    s.emulator.failNext(503, '10007', 'Unexpected error')
    const down = await create({})
    expect(down.status).toBe(503)
    expect(errorOf(down.body)).toMatchObject({ code: '10007', detail: 'Unexpected error' })
    expect(s.emulator.calls.size).toBe(before)
  })

  test('over the account rate: 429 10011 with x-ratelimit headers', async () => {
    const limited = TelnyxEmulator.start({ accounts: [{ ...ACCOUNT, callsPerSecond: 1 }], speed: 1000 })
    try {
      const create = () => fetch(`${limited.url}/v2/texml/Accounts/${ACCOUNT.accountSid}/Calls`, {
        method: 'POST', headers: { authorization: `Bearer ${ACCOUNT.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ApplicationSid: ACCOUNT.applicationSid, To: '+13125550103', From: CALLER, Texml: texmlOf('<Hangup/>') }),
      })
      expect((await create()).status).toBe(200)
      const second = await create()
      expect(second.status).toBe(429)
      expect(second.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(errorOf((await second.json()) as Record<string, unknown>).code).toBe('10011')
    } finally {
      await limited.stop()
    }
  })

  test('fetch, update and the call id in the path (URL-encoded); Status other than completed is refused', async () => {
    s.answer('answer', texmlOf('<Pause length="600"/>'))
    const sid = await s.place('+13125550100', '/c/3/answer')
    await s.until(() => s.emulator.calls.get(sid)!.status === 'in-progress')
    const path = `Calls/${encodeURIComponent(sid)}`
    const got = await s.rest('GET', path)
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({ sid, status: 'in-progress', direction: 'outbound', account_sid: ACCOUNT.accountSid })
    expect((await s.rest('POST', path, { Status: 'canceled' })).status).toBe(422)
    const ended = await s.rest('POST', path, { Status: 'completed' })
    expect(ended.status).toBe(200)
    await s.emulator.settled(sid)
    expect(s.emulator.calls.get(sid)!.status).toBe('completed')
    const late = await s.rest('POST', path, { Url: `${s.base}/c/3/other` })
    expect(errorOf(late.body).code).toBe('90018')
    expect((await s.rest('GET', 'Calls/v3%3Anot-a-call')).status).toBe(404)
  })

  test('eventual consistency: a fetch right after the create may be 404', async () => {
    const lagging = telnyxStandIn(100, { fetchLag: 30 })
    try {
      lagging.answer('answer', texmlOf('<Hangup/>'))
      const sid = await lagging.place('+13125550102', '/c/4/answer')
      expect((await lagging.rest('GET', `Calls/${encodeURIComponent(sid)}`)).status).toBe(404)
      await lagging.emulator.settled(sid)
      await Bun.sleep(320)
      expect((await lagging.rest('GET', `Calls/${encodeURIComponent(sid)}`)).status).toBe(200)
    } finally {
      await lagging.stop()
    }
  })
})

describe('callbacks', () => {
  test("a call's callbacks: Telnyx's fields, each verified with the public key", async () => {
    s.answer('answer', texmlOf('<Say>Hello there.</Say><Hangup/>'))
    const sid = await s.place('+13125550101', '/c/10/answer', { StatusCallbackEvent: 'initiated ringing answered completed' })
    await s.emulator.settled(sid)
    const mine = s.got.filter((g) => g.params.CallSid === sid)
    expect(mine.length).toBeGreaterThanOrEqual(5)
    expect(mine.every((g) => g.verified)).toBe(true)
    const statuses = mine.filter((g) => g.path.endsWith('/status'))
    expect(statuses.map((g) => g.params.CallStatus)).toEqual(['initiated', 'ringing', 'in-progress', 'completed'])
    for (const g of statuses) {
      expect(g.params).toMatchObject({ AccountSid: ACCOUNT.accountSid, CallSidLegacy: sid, ConnectionId: ACCOUNT.applicationSid, CallbackSource: 'call-progress-events' })
      expect(g.params.Called).toBeUndefined()
      expect(g.params.Direction).toBeUndefined()
      expect(Math.abs(Number(g.timestamp) - Date.now() / 1000)).toBeLessThan(30)
    }
    expect(statuses[0]!.params).toMatchObject({ ShakenStirAttestation: 'A', ShakenStirValidated: 'true' })
    expect(statuses[3]!.params).toMatchObject({ HangupCause: 'normal_clearing' })
    const fetchTexml = mine.find((g) => g.path.endsWith('/answer'))!
    expect(fetchTexml.params).toMatchObject({ ApiVersion: '2010-04-01', CallStatus: 'in-progress' })
  })

  test('corruptNext signs with another key; clockSkew makes the timestamp stale; the sent record keeps the headers', async () => {
    s.answer('answer', texmlOf('<Hangup/>'))
    s.emulator.corruptNext(1)
    s.emulator.clockSkew = -400
    const sid = await s.place('+13125550101', '/c/11/answer')
    await s.emulator.settled(sid)
    s.emulator.clockSkew = 0
    const mine = s.got.filter((g) => g.params.CallSid === sid)
    expect(mine.filter((g) => !g.verified).length).toBe(1)
    expect(mine.every((g) => Number(g.timestamp) < Date.now() / 1000 - 390)).toBe(true)
    const checks = s.emulator.callbacksFor(sid).map((c) => verifySignature(s.emulator.publicKey, c.headers!['telnyx-timestamp']!, new URLSearchParams(c.params).toString(), c.signature))
    expect(checks.filter((ok) => !ok).length).toBe(1)
  })

  test('resend delivers the same bytes and signature again (a replay)', async () => {
    s.answer('answer', texmlOf('<Hangup/>'))
    const sid = await s.place('+13125550101', '/c/12/answer')
    await s.emulator.settled(sid)
    const completed = s.emulator.callbacksFor(sid).find((c) => c.kind === 'status')!
    const count = s.got.length
    expect(await s.emulator.resend(completed)).toBe(200)
    const again = s.got[count]!
    const first = s.got.find((g) => g.params.CallSid === sid && g.path.endsWith('/status'))!
    expect(again.signature).toBe(first.signature)
    expect(again.timestamp).toBe(first.timestamp)
    expect(again.verified).toBe(true)
  })

  test('AMD: the async callback in Telnyx words; the call resource says machine', async () => {
    s.answer('answer', texmlOf('<Pause length="30"/>'))
    const sid = await s.place('+13125550104', '/c/13/answer', { MachineDetection: 'DetectMessageEnd', AsyncAmd: true, AsyncAmdStatusCallback: `${s.base}/c/13/amd` })
    await s.until(() => s.got.some((g) => g.path === '/c/13/amd'))
    const amd = s.got.find((g) => g.path === '/c/13/amd')!
    expect(amd.params).toMatchObject({ AnsweredBy: 'machine_end_beep', CallSid: sid, CallSidLegacy: sid, ConnectionId: ACCOUNT.applicationSid })
    expect(amd.verified).toBe(true)
    expect((await s.rest('GET', `Calls/${encodeURIComponent(sid)}`)).body.answered_by).toBe('machine')
    await s.rest('POST', `Calls/${encodeURIComponent(sid)}`, { Status: 'completed' })
    await s.emulator.settled(sid)
  })

  test('recordings: RecordingUrl only with SendRecordingUrl; the media downloads without a key until deleted', async () => {
    s.answer('answer', texmlOf('<Pause length="2"/><Hangup/>'))
    const plain = await s.place('+13125550101', '/c/14/answer', { Record: true, RecordingStatusCallback: `${s.base}/c/14/recording` })
    const withUrl = await s.place('+13125550101', '/c/15/answer', { Record: true, RecordingStatusCallback: `${s.base}/c/15/recording`, SendRecordingUrl: true })
    await Promise.all([s.emulator.settled(plain), s.emulator.settled(withUrl)])
    const a = s.got.find((g) => g.path === '/c/14/recording')!
    const b = s.got.find((g) => g.path === '/c/15/recording')!
    expect(a.params.RecordingUrl).toBeUndefined()
    expect(a.params).toMatchObject({ RecordingStatus: 'completed', RecordingSource: 'OutboundAPI', CallSidLegacy: plain })
    expect(a.params.RecordingSid).toMatch(/^[0-9a-f-]{36}$/)
    const resource = await s.rest('GET', `Recordings/${a.params.RecordingSid}.json`)
    expect(resource.body).toMatchObject({ call_sid: plain, status: 'completed' })
    const media = await fetch(b.params.RecordingUrl!)
    expect(media.status).toBe(200)
    expect((await media.arrayBuffer()).byteLength).toBeGreaterThan(44)
    expect((await s.rest('DELETE', `Recordings/${b.params.RecordingSid}.json`)).status).toBe(204)
    expect((await fetch(b.params.RecordingUrl!)).status).toBe(404)
  })

  test('transcription: Transcript lines of the inbound track, no started or stopped events', async () => {
    s.answer('answer', texmlOf(`<Start><Transcription transcriptionCallback="${s.base}/c/16/transcript"/></Start><Pause length="40"/>`))
    const sid = await s.place('+13125550101', '/c/16/answer')
    await s.emulator.settled(sid)
    const lines = s.got.filter((g) => g.path === '/c/16/transcript')
    expect(lines.map((g) => g.params.Transcript)).toEqual(['No thanks, I am not interested.'])
    expect(lines[0]!.params).toMatchObject({ IsFinal: 'true', CallSid: sid, CallSidLegacy: sid })
  })
})

describe('request methods', () => {
  test("an application set to GET: the TeXML fetch and status callbacks are GETs with the query signed over an empty body, unless the create names POST", async () => {
    const gets = telnyxStandIn(200, { accounts: [{ ...ACCOUNT, callerIds: [CALLER], applicationMethod: 'GET' }] })
    try {
      gets.answer('answer', texmlOf('<Hangup/>'))
      const byDefault = await gets.place('+13125550101', '/c/40/answer')
      const named = await gets.place('+13125550101', '/c/41/answer', { UrlMethod: 'POST', StatusCallbackMethod: 'POST' })
      await Promise.all([gets.emulator.settled(byDefault), gets.emulator.settled(named)])
      const a = gets.got.filter((g) => g.params.CallSid === byDefault)
      expect(a.map((g) => g.method)).toEqual(['GET', 'GET'])
      expect(a.every((g) => g.verified)).toBe(true)
      expect(a[0]!.params).toMatchObject({ CallStatus: 'in-progress', ConnectionId: ACCOUNT.applicationSid })
      expect(gets.got.filter((g) => g.params.CallSid === named).map((g) => g.method)).toEqual(['POST', 'POST'])
      const bad = await gets.rest('POST', 'Calls', { ApplicationSid: ACCOUNT.applicationSid, To: '+13125550101', From: CALLER, Url: `${gets.base}/c/42/answer`, UrlMethod: 'PUT' }, 'json')
      expect(errorOf(bad.body)).toMatchObject({ source: { pointer: '/UrlMethod' } })
    } finally {
      await gets.stop()
    }
  })
})

describe('the call moment and inbound calls', () => {
  test('<Dial><Number url> with press 1: the leg and the action in Telnyx words (legacy ids, no DialBridged)', async () => {
    s.answer('answer', texmlOf(`<Dial action="${s.base}/c/30/dialed" timeout="20"><Number url="${s.base}/c/30/screen">+13125550111</Number></Dial>`))
    s.answer('screen', texmlOf(`<Gather numDigits="1" action="${s.base}/c/30/pressed"><Say>Press 1 to take the call.</Say></Gather><Hangup/>`))
    s.answer('pressed', texmlOf(''))
    const sid = await s.place('+13125550101', '/c/30/answer')
    await s.emulator.settled(sid)
    const pressed = s.got.find((g) => g.path === '/c/30/pressed')!
    expect(pressed.params).toMatchObject({ Digits: '1', ParentCallSid: sid, ParentCallSidLegacy: sid })
    expect(pressed.verified).toBe(true)
    const dialed = s.got.find((g) => g.path === '/c/30/dialed')!
    expect(dialed.params.DialCallSid).toMatch(/^v3:/)
    expect(dialed.params.DialCallSidLegacy).toBe(dialed.params.DialCallSid!)
    expect(dialed.params.DialBridged).toBeUndefined()
    expect(s.emulator.calls.get(sid)!.legs).toEqual([{ to: '+13125550111', heard: ['Press 1 to take the call.'], key: '1', bridged: true }])
    expect(s.emulator.heardAt(sid)!.firstHeard!.kind).toBe('person')
  })

  test('callIn: the TeXML application is asked with a signed form POST and its TeXML runs', async () => {
    s.answer('incoming', texmlOf('<Say>Thanks for calling.</Say><Hangup/>'))
    const call = await s.emulator.callIn({ from: '+13125550101', to: CALLER, url: `${s.base}/c/31/incoming` })
    await s.emulator.settled(call.sid)
    const incoming = s.got.find((g) => g.path === '/c/31/incoming')!
    expect(incoming.params).toMatchObject({ CallSid: call.sid, CallSidLegacy: call.sid, From: '+13125550101', To: CALLER, CallStatus: 'ringing', ConnectionId: ACCOUNT.applicationSid })
    expect(incoming.verified).toBe(true)
    expect(call.spoken?.map((x) => x.text)).toEqual(['Thanks for calling.'])
  })
})

describe('shuffled and repeated callbacks', () => {
  /** The status callbacks of one busy call as delivered: their SequenceNumber in order of arrival. */
  async function arrivals(seed: number): Promise<string[]> {
    const order: string[] = []
    const emulator = TelnyxEmulator.start({
      accounts: [ACCOUNT], speed: 1000, shuffle: { seed, duplicate: 0.5 },
      fetch: async (_url, init) => {
        order.push(new URLSearchParams(String(init.body)).get('SequenceNumber') ?? '?')
        return new Response('')
      },
    })
    try {
      await fetch(`${emulator.url}/v2/texml/Accounts/${ACCOUNT.accountSid}/Calls`, {
        method: 'POST', headers: { authorization: `Bearer ${ACCOUNT.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ApplicationSid: ACCOUNT.applicationSid, To: '+13125550103', From: CALLER, Url: 'http://127.0.0.1:9/answer', StatusCallback: 'http://127.0.0.1:9/status', StatusCallbackEvent: 'initiated ringing' }),
      })
      const sid = [...emulator.calls.keys()][0]!
      await emulator.settled(sid)
      await Bun.sleep(20)
      return order
    } finally {
      await emulator.stop()
    }
  }

  test('the same seed gives the same order and the same repeats; seeds differ', async () => {
    const first = await arrivals(7)
    expect(await arrivals(7)).toEqual(first)
    expect([...new Set(first)].sort()).toEqual(['0', '1', '2'])
    const runs = await Promise.all([1, 2, 3, 4, 5, 6].map((seed) => arrivals(seed)))
    expect(runs.some((r) => r.join() !== first.join())).toBe(true)
    expect(runs.some((r) => r.length > 3)).toBe(true)
    expect(runs.some((r) => r.join() !== [...r].sort().join())).toBe(true)
  })

  test('replayCallbacks sends each notification twice with the same timestamp and signature', async () => {
    const replaying = telnyxStandIn(1000, { replayCallbacks: true })
    try {
      replaying.answer('answer', texmlOf('<Hangup/>'))
      const sid = await replaying.place('+13125550101', '/c/20/answer')
      await replaying.emulator.settled(sid)
      await Bun.sleep(20)
      const completed = replaying.got.filter((g) => g.params.CallSid === sid && g.path.endsWith('/status'))
      expect(completed.length).toBe(2)
      expect(completed[0]!.signature).toBe(completed[1]!.signature)
      expect(completed.every((g) => g.verified)).toBe(true)
    } finally {
      await replaying.stop()
    }
  })
})
