import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { addLead, callOf, ny, setup, SID, TOKEN, type World } from './twilio-world'

setDefaultTimeout(60_000)

// Twilio's callback routes under attack (issue 18, "Bad input"): whatever arrives, the reply is
// 403, 404, 400 or a 200 that changes nothing, fast, never a 500 or a stack trace.

async function post(w: World, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return w.h.app.handle(new Request(`${w.h.services.config.publicUrl}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body,
  }))
}

describe('hostile Twilio callbacks', () => {
  test('malformed paths, queries and bodies are refused in the error envelope; the call goes on unharmed', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId, (c) => w.h.services.stores.carrierCalls.get(c.id)?.carrierCallId != null)
    const sid = w.h.services.stores.carrierCalls.get(call.id)!.carrierCallId!
    const base = `/twilio/calls/${call.id}`
    const cases: [string, string, Record<string, string>, number][] = [
      [`${base}/nonsense`, 'CallSid=x', {}, 404],
      [`${base}/leg-action?leg=abc`, '', {}, 400],
      [`${base}/leg-action?leg=99999`, '', {}, 400],
      [`/twilio/calls/${'x'.repeat(100)}/status`, '', {}, 404],
      // The URL parser resolves the dots: an admin path, behind the admin token.
      [`/twilio/calls/../../api/v1/admin/orgs/status`, '', {}, 401],
      [`${base}/status`, '%%%&&&==', { 'x-twilio-signature': 'AAAA' }, 403],
      [`${base}/status`, `CallSid=${sid}&CallStatus=completed`, { 'x-twilio-signature': '' }, 403],
      [`${base}/status`, 'a=' + 'b'.repeat(2_000_000), { 'x-twilio-signature': 'AAAA' }, 413],
      ['/twilio/calls/%00/status', '', {}, 403],
    ]
    for (const [path, body, headers, status] of cases) {
      const started = performance.now()
      const reply = await post(w, path, body, headers)
      const text = await reply.text()
      expect({ path: path.slice(0, 80), status: reply.status }).toEqual({ path: path.slice(0, 80), status })
      expect(performance.now() - started).toBeLessThan(1000)
      expect(text).not.toContain('    at ')
      if (status !== 200) expect(JSON.parse(text).error.code).toBeString()
    }
    // A signed callback with hostile values: an unknown status, a negative duration, a huge transcript: nothing breaks.
    const url = (step: string) => `${w.h.services.config.publicUrl}${base}/${step}`
    const signed = async (step: string, params: Record<string, string>) => {
      const reply = await post(w, `${base}/${step}`, new URLSearchParams(params).toString(), { 'x-twilio-signature': signTwilioRequest(TOKEN, url(step), params) })
      return reply.status
    }
    expect(await signed('status', { AccountSid: SID, CallSid: sid, CallStatus: 'exploded', CallDuration: '-5' })).toBe(200)
    expect(await signed('transcription', { AccountSid: SID, CallSid: sid, TranscriptionEvent: 'transcription-content', Track: 'inbound_track', SequenceId: '999', TranscriptionData: '{"transcript": ' })).toBe(200)
    expect(await signed('recording', { AccountSid: SID, CallSid: sid, RecordingStatus: 'completed', RecordingSid: '../../etc/passwd' })).toBe(200)
    // Another account's signature over our URL: 403.
    expect(await signed('status', { AccountSid: `AC${'b'.repeat(32)}`, CallSid: sid, CallStatus: 'completed' })).toBe(403)
    const done = await callOf(w, leadId)
    expect(done.outcome).toBe('voicemail')
  })

  test('a form over 64 KB is 413 and one of more than 200 fields 400, before any signature work; Twilio-sized forms still work', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId, (c) => w.h.services.stores.carrierCalls.get(c.id)?.carrierCallId != null)
    const sid = w.h.services.stores.carrierCalls.get(call.id)!.carrierCallId!
    const path = `/twilio/calls/${call.id}/status`
    const url = `${w.h.services.config.publicUrl}${path}`
    const signature = signTwilioRequest(TOKEN, url, { CallSid: sid })
    // A 0.9 MB form of many small fields, declared (Content-Length) and streamed (chunked).
    let huge = 'f0=x'
    for (let i = 1; huge.length < 900_000; i++) huge += `&f${i}=x`
    expect(huge.length).toBeLessThan(1_000_000)
    let started = performance.now()
    const declared = await post(w, path, huge, { 'x-twilio-signature': signature, 'content-length': String(huge.length) })
    const declaredMs = performance.now() - started
    expect(declared.status).toBe(413)
    expect(((await declared.json()) as { error: unknown }).error).toMatchObject({ code: 'payload_too_large', type: 'invalid_request_error' })
    let pulled = 0
    const chunk = new TextEncoder().encode('f=x&'.repeat(4096))
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength
        if (pulled > 10_000_000) controller.close()
        else controller.enqueue(chunk)
      },
    })
    started = performance.now()
    const chunked = await w.h.app.handle(new Request(`${w.h.services.config.publicUrl}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: stream,
    }))
    const chunkedMs = performance.now() - started
    expect(chunked.status).toBe(413)
    // Reading stopped soon after the cap, not at the end of the 10 MB.
    expect(pulled).toBeLessThan(256 * 1024)
    console.log(`413 in ${declaredMs.toFixed(1)} ms (declared), ${chunkedMs.toFixed(1)} ms (chunked)`)
    expect(Math.max(declaredMs, chunkedMs)).toBeLessThan(500)
    // 201 fields: 400 whatever the signature; 200 signed fields: a callback like any other.
    const fields = (n: number) => Object.fromEntries([['CallSid', sid], ['CallStatus', 'ringing'], ...Array.from({ length: n - 2 }, (_, i) => [`Extra${i}`, 'x'])])
    const many = fields(201)
    const tooMany = await post(w, path, new URLSearchParams(many).toString(), { 'x-twilio-signature': signTwilioRequest(TOKEN, url, many) })
    expect(tooMany.status).toBe(400)
    expect(((await tooMany.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_request', param: null })
    // Empty pairs are not fields (as URLSearchParams reads the form).
    const padded = new URLSearchParams(fields(200)).toString() + '&&&&'
    const ok = await post(w, path, padded, { 'x-twilio-signature': signTwilioRequest(TOKEN, url, fields(200)) })
    expect(ok.status).toBe(200)
    const unsigned = await post(w, path, new URLSearchParams(fields(200)).toString(), { 'x-twilio-signature': signature })
    expect(unsigned.status).toBe(403)
    const done = await callOf(w, leadId)
    expect(done.outcome).toBe('voicemail')
  })

  test('a replayed final callback after the end changes nothing', async () => {
    const w = await setup()
    const leadId = await addLead(w, ny('03'))
    const call = await callOf(w, leadId)
    const before = await w.h.api('GET', `/calls/${call.id}`, { key: w.live })
    const last = w.emulator.sent.filter((s) => s.kind === 'status').at(-1)!
    const again = await w.h.app.handle(new Request(last.url, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': last.signature }, body: new URLSearchParams(last.params).toString(),
    }))
    expect(again.status).toBe(200)
    // Out of order: a ringing after the end.
    const ringing = { ...last.params, CallStatus: 'ringing' }
    const stale = await w.h.app.handle(new Request(last.url, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest(TOKEN, last.url, ringing) }, body: new URLSearchParams(ringing).toString(),
    }))
    expect(stale.status).toBe(200)
    const after = await w.h.api('GET', `/calls/${call.id}`, { key: w.live })
    expect(after.body.data).toEqual(before.body.data)
  })
})
