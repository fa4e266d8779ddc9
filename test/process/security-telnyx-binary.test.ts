import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { join } from 'node:path'
import { enc, headerSafe, hostileString } from './fuzz-kit'
import { ACCOUNT, API_KEY, APP, CALLER, ny, telnyxService } from './telnyx-service'

setDefaultTimeout(60_000)

/**
 * Telnyx's surfaces under attack, on the service as shipped (the compiled binary from an empty
 * folder) against the Telnyx emulator over loopback: callbacks with missing, garbled or oversized
 * signing headers, hostile bodies and ids, a signed callback of one call replayed to another
 * call's path (Telnyx's signature covers the body and time, not the URL), a flood of forged
 * callbacks, the stream socket, and `carriers` pools with a bad field in every place. Every
 * refusal is the spec's envelope, fast; never a 500, a stall or a half-written change.
 */
const ADMIN = 'dat_security_telnyx_0123456789abcdef'
const SECRET_KEY = 'KEYsecretVALUEnever_echoed_01'

type Envelope = { error: { type: string; code: string; message: string; param?: string | null } }

describe('Telnyx surfaces under attack, as shipped', () => {
  const service = telnyxService({ prefix: 'dialer-security-telnyx-', adminToken: ADMIN, speed: 4, env: { DIALER_SECRET_KEY: '7a'.repeat(32) } })
  const { emulator, admin, callOf, addLead } = service
  let orgId = ''
  let otherOrg = ''
  let finalCallback: { url: string; params: Record<string, string>; headers?: Record<string, string> }
  let endedCallId = ''

  const post = (path: string, body: string | Uint8Array | ReadableStream, headers: Record<string, string> = {}) =>
    fetch(`${service.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body })
  /** Posts and checks the reply is the spec's envelope (or a 200/empty), never a 500, within `ms`. */
  const refused = async (reply: Promise<Response>, status: number, ms = 2_000): Promise<Envelope> => {
    const started = Date.now()
    const r = await reply
    const text = await r.text()
    expect(Date.now() - started).toBeLessThan(ms)
    expect({ status: r.status, text: text.slice(0, 300) }).toMatchObject({ status })
    const body = JSON.parse(text) as Envelope
    expect(typeof body.error.type).toBe('string')
    expect(typeof body.error.code).toBe('string')
    expect(typeof body.error.message).toBe('string')
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+|stack/i)
    return body
  }
  const signedBody = () => new URLSearchParams(finalCallback.params).toString()
  // The binary telnyxService copied into its folder (or the source when DIALER_TEST_BINARY is unset).
  const command = () => (process.env.DIALER_TEST_BINARY ? [join(service.work.path, 'dialer')] : [process.execPath, 'run', join(import.meta.dir, '../../src/main.ts')])
  const alive = async () => expect((await fetch(`${service.base}/healthz`)).status).toBe(200)

  beforeAll(async () => {
    await service.start()
    orgId = (await service.seedOrg({ name: 'Spring roofs', lines: 2, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }] })).orgId
    otherOrg = service.json(['org', 'create', '--name', 'Other Co']).id
    // A call that ended busy: its final status callback (signed by the emulator) is the material replayed below.
    const leadId = await addLead(ny('03', 41))
    const call = await callOf(leadId)
    endedCallId = call.id
    finalCallback = emulator.sent.find((s) => s.kind === 'status' && s.url.includes(`/telnyx/calls/${call.id}/status`) && s.params.CallStatus === 'busy')!
    expect(finalCallback.headers?.['telnyx-signature-ed25519']).toBeTruthy()
  }, 50_000)

  afterAll(() => service.close())

  test('signing headers missing, garbled, oversized, or with a timestamp that is not a recent unix second: 403 permission_denied, fast', async () => {
    const path = `/telnyx/calls/${endedCallId}/status`
    const body = signedBody()
    const good = finalCallback.headers!
    const sig = good['telnyx-signature-ed25519']!
    const ts = good['telnyx-timestamp']!
    const now = Math.floor(service.clockNow() / 1000)
    const rows: [string, Record<string, string>][] = [
      ['no headers', {}],
      ['signature only', { 'telnyx-signature-ed25519': sig }],
      ['timestamp only', { 'telnyx-timestamp': ts }],
      ['timestamp not digits', { 'telnyx-signature-ed25519': sig, 'telnyx-timestamp': `${ts}a` }],
      ['timestamp negative', { 'telnyx-signature-ed25519': sig, 'telnyx-timestamp': `-${ts}` }],
      ['timestamp huge', { 'telnyx-signature-ed25519': sig, 'telnyx-timestamp': '9'.repeat(400) }],
      ['timestamp with a fraction', { 'telnyx-signature-ed25519': sig, 'telnyx-timestamp': `${ts}.0` }],
      ['timestamp of the signature changed', { 'telnyx-signature-ed25519': sig, 'telnyx-timestamp': String(Number(ts) + 1) }],
      ['signature not base64', { 'telnyx-signature-ed25519': '!'.repeat(88), 'telnyx-timestamp': ts }],
      ['signature of the wrong length', { 'telnyx-signature-ed25519': sig.slice(4), 'telnyx-timestamp': ts }],
      ['signature 8 KB', { 'telnyx-signature-ed25519': 'A'.repeat(8_000), 'telnyx-timestamp': ts }],
      ['signature flipped', { 'telnyx-signature-ed25519': `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`, 'telnyx-timestamp': ts }],
      ['signed far in the future', emulator.signedHeaders(body, now + 86_400 * 365)],
      ['signed long ago', emulator.signedHeaders(body, now - 301)],
      ['signed at 0', emulator.signedHeaders(body, 0)],
    ]
    for (const [name, headers] of rows) {
      const error = (await refused(post(path, body, headers), 403)).error
      expect({ name, code: error.code, type: error.type }).toEqual({ name, code: 'permission_denied', type: 'permission_error' })
    }
    await alive()
  })

  test('hostile bodies: too big (declared or chunked), too many fields, not UTF-8, JSON: refused before any signature work', async () => {
    const path = `/telnyx/calls/${endedCallId}/status`
    const headers = finalCallback.headers!
    const tooBig = (await refused(post(path, 'a=b&'.repeat(17_000), headers), 413)).error
    expect(tooBig.code).toBe('payload_too_large')
    expect(tooBig.message).not.toContain('Twilio')
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(4096)))
        controller.close()
      },
    })
    expect((await refused(post(path, chunks, headers), 413)).error.code).toBe('payload_too_large')
    const many = Array.from({ length: 2_000 }, (_, i) => `f${i}=1`).join('&')
    expect((await refused(post(path, many, headers), 400)).error.code).toBe('invalid_request')
    expect((await refused(post(path, new Uint8Array([0xff, 0xfe, 0x80, 0x3d, 0x26, 0xc3]), headers), 403)).error.code).toBe('permission_denied')
    const json = JSON.stringify(finalCallback.params)
    expect((await refused(post(path, json, { ...headers, 'content-type': 'application/json' }), 403)).error.code).toBe('permission_denied')
    // Signed by the account but not a form: it names no call, so nothing is applied.
    const signedJson = await post(path, json, { ...emulator.signedHeaders(json), 'content-type': 'application/json' })
    expect({ status: signedJson.status, text: await signedJson.text() }).toEqual({ status: 200, text: '' })
    await alive()
  })

  test('ids with /, %, :, unicode or too long, unknown steps, seats and inbound paths: an envelope, never a 500', async () => {
    const body = signedBody()
    const headers = finalCallback.headers!
    const paths = [
      '/telnyx/calls/%2F..%2Fadmin/status', '/telnyx/calls/%25/status', '/telnyx/calls/v3:abc/status', '/telnyx/calls/%E2%98%83/status',
      `/telnyx/calls/${'a'.repeat(65)}/status`, `/telnyx/calls/${endedCallId}/${'x'.repeat(40)}`, `/telnyx/calls/${endedCallId}/%00`,
      `/telnyx/calls/${endedCallId}/status?leg=x`, `/telnyx/calls/${endedCallId}/status?leg=99999`, '/telnyx/seats/%2F/status',
      `/telnyx/seats/${'s'.repeat(65)}/status`, '/telnyx/seats/seat_unknown/status', '/telnyx/inbound/not-a-uuid', '/telnyx/inbound/%E2%98%83/status',
      `/telnyx/inbound/${crypto.randomUUID()}`, `/telnyx/inbound/${otherOrg}`, `/telnyx/inbound/${otherOrg}/status`, `/telnyx/inbound/${orgId}/status`,
    ]
    for (const path of paths) {
      const r = await post(path, body, headers)
      const text = await r.text()
      expect({ path, status: r.status < 500 }).toEqual({ path, status: true })
      if (r.status !== 200) expect({ path, envelope: typeof (JSON.parse(text) as Envelope).error.code }).toEqual({ path, envelope: 'string' })
    }
    await alive()
  })

  test("one call's signed callback replayed to another call's path (Telnyx signs no URL) changes neither call and is never a 500", async () => {
    // The new call's own callbacks are spoiled, so it stays unnamed (Telnyx's create reply names no call).
    emulator.corruptNext(1_000)
    const leadId = await addLead(ny('02', 42))
    const ringing = await callOf(leadId, (c) => c.status === 'dialing' || c.status === 'ringing')
    const deadline = Date.now() + 10_000
    while (!emulator.sent.some((s) => s.url.includes(`/telnyx/calls/${ringing.id}/`)) && Date.now() < deadline) await Bun.sleep(20)
    // Within the signature's window: the busy callback of the ended call, sent to the new call's status path and to another step of its own.
    for (const step of ['status', 'answer', 'amd']) {
      const r = await post(`/telnyx/calls/${ringing.id}/${step}`, signedBody(), finalCallback.headers!)
      expect({ step, status: r.status }).toEqual({ step, status: 200 })
      await r.text()
    }
    const again = await post(`/telnyx/calls/${ringing.id}/status`, signedBody(), finalCallback.headers!)
    expect(again.status).toBe(200)
    const now = (await service.api('GET', `/calls/${ringing.id}`)).body.data
    expect(now.status === 'dialing' || now.status === 'ringing').toBe(true)
    expect(now.outcome).toBeNull()
    // The rest of its callbacks go out signed again.
    ;(emulator as unknown as { corrupt: number }).corrupt = 0
    await alive()
  })

  test('a flood of forged callbacks (full-size bodies, concurrent) is refused while the service keeps answering', async () => {
    const path = `/telnyx/calls/${endedCallId}/status`
    const body = `${signedBody()}&pad=${'p'.repeat(60_000)}`
    const now = Math.floor(service.clockNow() / 1000)
    const headers = { 'telnyx-signature-ed25519': finalCallback.headers!['telnyx-signature-ed25519']!, 'telnyx-timestamp': String(now) }
    const started = Date.now()
    const replies = await Promise.all(Array.from({ length: 400 }, () => post(path, body, headers).then(async (r) => (await r.text(), r.status))))
    expect(new Set(replies)).toEqual(new Set([403]))
    expect(Date.now() - started).toBeLessThan(15_000)
    const health = Date.now()
    await alive()
    expect(Date.now() - health).toBeLessThan(1_000)
  })

  test('the stream socket: a plain GET is an envelope; junk, huge and unauthenticated frames close it; the service lives', async () => {
    const plain = await fetch(`${service.base}/telnyx/streams`)
    expect(plain.status).toBeGreaterThanOrEqual(400)
    expect(plain.status).toBeLessThan(500)
    const closed = (frames: string[]) => new Promise<number>((resolve) => {
      const ws = new WebSocket(`${service.base.replace(/^http/, 'ws')}/telnyx/streams`)
      ws.onopen = () => { for (const f of frames) ws.send(f) }
      ws.onclose = (e) => resolve(e.code)
      ws.onerror = () => undefined
      // A stream that sends no valid start is closed within 5 s (seat-session.ts).
      setTimeout(() => { ws.close(); resolve(-1) }, 8_000)
    })
    const codes = await Promise.all([
      closed(['not json']),
      closed([JSON.stringify({ event: 'start', start: { call_control_id: 'v3:x', custom_parameters: { token: 'forged' }, media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 } }, stream_id: 's' })]),
      closed(['{"event":"media","media":{"payload":"' + 'A'.repeat(2_000_000) + '"}}']),
    ])
    for (const code of codes) expect(code).not.toBe(-1)
    await alive()
  })

  test('generated: any path, headers and body on the Telnyx callback routes get an envelope or an empty 200, within 1 s, never a 5xx', async () => {
    const piece = fc.oneof(fc.constantFrom(endedCallId, orgId, otherOrg, 'v3:abc', '..', '%2e%2e', '%00', '%', '%zz', 'x'.repeat(70)), hostileString.map(enc), fc.uuid())
    const step = fc.constantFrom('status', 'answer', 'amd', 'recording', 'keypress', 'bridge', 'transcript', 'conference', 'nope', 'STATUS')
    const path = fc.oneof(
      fc.tuple(piece, step, fc.option(fc.constantFrom('?leg=0', '?leg=1', '?leg=x', '?leg=1000', '?leg=1&leg=2'))).map(([id, st, q]) => `/telnyx/calls/${id}/${st}${q ?? ''}`),
      fc.tuple(piece, step).map(([id, st]) => `/telnyx/seats/${id}/${st}`),
      fc.tuple(piece, fc.constantFrom('', '/status', '/x')).map(([id, tail]) => `/telnyx/inbound/${id}${tail}`),
    )
    const sig = fc.oneof(
      fc.constant(null), fc.constant(finalCallback.headers!['telnyx-signature-ed25519']!), hostileString.map(headerSafe),
      fc.uint8Array({ minLength: 64, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
    )
    const ts = fc.oneof(fc.constant(null), fc.constant(finalCallback.headers!['telnyx-timestamp']!), fc.constantFrom('-1', '0', '1e9', '99999999999999999999', ' 1'), hostileString.map(headerSafe))
    const form = fc.array(fc.tuple(fc.constantFrom('CallSid', 'AccountSid', 'CallStatus', 'Digits', 'AnsweredBy', 'RecordingUrl', 'x'), fc.oneof(hostileString, fc.constantFrom(finalCallback.params.CallSid!, ACCOUNT, 'completed'))), { maxLength: 8 })
      .map((pairs) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&'))
    const body = fc.oneof({ weight: 6, arbitrary: form }, { weight: 1, arbitrary: fc.constant(signedBody()) }, { weight: 1, arbitrary: fc.constantFrom('', '{"CallSid":"v3:x"}', '%', 'a=%zz&&&=') })
    const seen = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(path, sig, ts, body, fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', ''), async (p, s, t, b, type) => {
        const headers: Record<string, string> = type ? { 'content-type': type } : {}
        if (s !== null) headers['telnyx-signature-ed25519'] = s
        if (t !== null) headers['telnyx-timestamp'] = t
        const started = Date.now()
        const r = await fetch(`${service.base}${p}`, { method: 'POST', headers, body: b })
        const text = await r.text()
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1)
        expect({ p, ms: Date.now() - started < 1_000, status: r.status < 500 }).toEqual({ p, ms: true, status: true })
        if (r.status === 200) return
        const error = (JSON.parse(text) as Envelope).error
        expect({ p, type: typeof error.type, code: typeof error.code, message: typeof error.message }).toEqual({ p, type: 'string', code: 'string', message: 'string' })
      }),
      { numRuns: 400, seed: 3131 },
    )
    // Mostly refused: the signature is checked before anything is applied.
    expect((seen.get(403) ?? 0) + (seen.get(404) ?? 0) + (seen.get(400) ?? 0)).toBeGreaterThan(300)
    await alive()
  })

  test('carriers pools: a bad field in any entry is 400 naming it, nothing changes, and no secret comes back', async () => {
    const good = { kind: 'telnyx', account_sid: ACCOUNT, application_sid: APP, public_key: emulator.publicKey, api_key: SECRET_KEY, caller_ids: [CALLER], api_base_url: emulator.url, weight: 50 }
    const twilio = { kind: 'twilio', account_sid: `AC${'1'.repeat(32)}`, auth_token: 'f'.repeat(32), caller_ids: [CALLER], api_base_url: emulator.url, weight: 50 }
    const before = (await admin('GET', `/orgs/${orgId}`)).body.data
    const rows: [string, unknown, string][] = [
      ['not an array', { carriers: { ...good } }, 'carriers'],
      ['five entries', { carriers: [good, twilio, good, twilio, good] }, 'carriers'],
      ['both carrier and carriers', { carrier: { kind: 'simulator' }, carriers: [good] }, 'carriers'],
      ['the same kind twice', { carriers: [good, { ...good, weight: 10 }] }, 'carriers[1].kind'],
      ['the simulator in a pool', { carriers: [{ kind: 'simulator', weight: 5 }] }, 'carriers[0].kind'],
      ['an unknown kind', { carriers: [{ ...good, kind: 'vonage' }] }, 'carriers[0].kind'],
      ['weight 0', { carriers: [{ ...good, weight: 0 }] }, 'carriers[0].weight'],
      ['weight 101', { carriers: [{ ...good, weight: 101 }] }, 'carriers[0].weight'],
      ['weight 1.5', { carriers: [{ ...good, weight: 1.5 }] }, 'carriers[0].weight'],
      ['weight missing', { carriers: [{ ...good, weight: undefined }] }, 'carriers[0].weight'],
      ['account_sid not a UUID', { carriers: [{ ...good, account_sid: 'nope' }] }, 'carriers[0].account_sid'],
      ['application_sid not digits', { carriers: [twilio, { ...good, application_sid: '12a' }] }, 'carriers[1].application_sid'],
      ['public_key 31 bytes', { carriers: [{ ...good, public_key: Buffer.alloc(31, 1).toString('base64') }] }, 'carriers[0].public_key'],
      ['api_key with a space', { carriers: [{ ...good, api_key: `${SECRET_KEY} x` }] }, 'carriers[0].api_key'],
      ['api_key not KEY…', { carriers: [{ ...good, api_key: SECRET_KEY.slice(3) }] }, 'carriers[0].api_key'],
      ['api_key 300 chars', { carriers: [{ ...good, api_key: SECRET_KEY + 'k'.repeat(300) }] }, 'carriers[0].api_key'],
      ['caller_ids empty', { carriers: [{ ...good, caller_ids: [] }] }, 'carriers[0].caller_ids'],
      ['caller_ids repeated', { carriers: [{ ...good, caller_ids: [CALLER, CALLER] }] }, 'carriers[0].caller_ids[1]'],
      ['api_base_url plain http elsewhere', { carriers: [{ ...good, api_base_url: 'http://example.com' }] }, 'carriers[0].api_base_url'],
      ['an unknown field', { carriers: [{ ...good, auth_token: `${'f'.repeat(31)}Z` }] }, 'carriers[0].auth_token'],
      ['twilio token wrong in the 2nd entry', { carriers: [good, { ...twilio, auth_token: 'short' }] }, 'carriers[1].auth_token'],
    ]
    for (const [name, body, param] of rows) {
      const started = Date.now()
      const r = await admin('PATCH', `/orgs/${orgId}`, body)
      expect(Date.now() - started).toBeLessThan(2_000)
      expect({ name, status: r.status, code: r.body?.error?.code, param: r.body?.error?.param }).toEqual({ name, status: 400, code: expect.any(String), param })
      expect({ name, echoed: r.text.includes(SECRET_KEY) || r.text.includes('f'.repeat(31)) }).toEqual({ name, echoed: false })
    }
    expect((await admin('GET', `/orgs/${orgId}`)).body.data).toEqual(before)
    expect(service.output()).not.toContain(SECRET_KEY)
  })

  test('the CLI: carriers from --json, --json-file and --json-stdin refuse bad input with an exit code and never print a secret', async () => {
    const file = join(service.work.path, 'pool.json')
    const entry = { kind: 'telnyx', account_sid: ACCOUNT, application_sid: APP, public_key: emulator.publicKey, api_key: SECRET_KEY, caller_ids: [CALLER], weight: 0 }
    await Bun.write(file, JSON.stringify([entry]))
    const fromFile = service.cli(['org', 'carriers', orgId, '--json-file', file])
    expect(fromFile.code).not.toBe(0)
    expect(JSON.parse(fromFile.out).error.param).toBe('carriers[0].weight')
    expect(fromFile.out + fromFile.err).not.toContain(SECRET_KEY)
    const inline = service.cli(['org', 'carriers', orgId, '--json', JSON.stringify([entry])])
    expect(inline.code).not.toBe(0)
    expect(inline.out + inline.err).not.toContain(SECRET_KEY)
    await Bun.write(file, `[{"kind":"telnyx","api_key":"${SECRET_KEY}",`)
    const broken = service.cli(['org', 'carriers', orgId, '--json-file', file])
    expect(broken.code).not.toBe(0)
    expect(broken.out + broken.err).not.toContain(SECRET_KEY)
    const stdin = Bun.spawnSync([...command(), 'admin', 'org', 'carriers', orgId, '--json-stdin'], {
      cwd: service.work.path, env: { PATH: process.env.PATH ?? '', HOME: service.work.path, DIALER_ADMIN_URL: service.base, DIALER_ADMIN_TOKEN: ADMIN },
      stdin: new TextEncoder().encode(JSON.stringify([{ ...entry, weight: 5, public_key: 'bm90IGEga2V5' }])),
    })
    expect(stdin.exitCode).not.toBe(0)
    expect(JSON.parse(stdin.stdout.toString()).error.param).toBe('carriers[0].public_key')
    expect(stdin.stdout.toString() + stdin.stderr.toString()).not.toContain(SECRET_KEY)
    const missing = service.cli(['org', 'carriers', orgId, '--json-file', join(service.work.path, 'absent.json')])
    expect(missing.code).not.toBe(0)
    const both = service.cli(['org', 'carriers', orgId, '--json', '[]', '--json-file', file])
    expect(both.code).not.toBe(0)
    expect(service.output()).not.toContain(SECRET_KEY)
    expect(service.output()).not.toContain(API_KEY)
  })
  test('after all of it the service logged no unhandled error (what a 500 logs)', () => {
    expect(service.output()).not.toMatch(/unhandled_error|response_validation_failed/)
  })
})
