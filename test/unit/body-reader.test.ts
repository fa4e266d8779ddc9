import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Elysia } from 'elysia'
import { ApiError } from '../../src/errors'
import { bodyReader, bodyRulesOf, JSON_BODY, readChunks, readText, refuseDeclaredSize, type BodyRule } from '../../src/http/body-reader'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// The one capped body reader: rules declared on routes, found per request, read up to their limit.

const FILE: BodyRule = {
  limit: 10,
  tooLarge: () => new ApiError('payload_too_large', 'too big', { param: 'body' }),
  parse: 'stream',
  accepts: { types: ['text/plain'], ask: 'Send text' },
}
const FORM: BodyRule = { limit: 10, tooLarge: () => new ApiError('payload_too_large', 'form too big'), parse: 'text' }

const caught = async (f: () => unknown): Promise<ApiError | null> => {
  try {
    await f()
    return null
  } catch (error) {
    return error as ApiError
  }
}

/** A body sent without a Content-Length, in pieces; `pulled` counts the pieces the reader took. */
function chunked(pieces: string[]) {
  const state = { pulled: 0, cancelled: false }
  // No read-ahead: a piece is pulled only when the reader asks for it.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[state.pulled++]
      if (piece === undefined) controller.close()
      else controller.enqueue(new TextEncoder().encode(piece))
    },
    cancel() {
      state.cancelled = true
    },
  }, { highWaterMark: 0 })
  return { state, request: new Request('http://x/upload', { method: 'POST', body, headers: { 'content-type': 'text/plain' } }) }
}

describe('rules declared on routes', () => {
  const app = new Elysia({ prefix: '/api' })
    .use(bodyReader())
    .post('/orgs/:id/file', () => 'ok', { reads: FILE })
    .post('/form', () => 'ok', { reads: FORM })
    .post('/orgs/:id/other', () => 'ok')
  const ruleOf = bodyRulesOf(app.routes)

  test('a request to a declared route gets its rule: any segment for a :param, trailing slashes ignored', () => {
    expect(ruleOf('POST', '/api/orgs/abc/file')).toBe(FILE)
    expect(ruleOf('POST', '/api/orgs/abc/file//')).toBe(FILE)
    expect(ruleOf('POST', '/api/form')).toBe(FORM)
    expect(ruleOf('POST', '/api/form/')).toBe(FORM)
  })

  test('anything else is JSON up to 1 MB: another method, route, length or spelling', () => {
    for (const [method, path] of [
      ['PUT', '/api/orgs/abc/file'],
      ['POST', '/api/orgs/abc/other'],
      ['POST', '/api/orgs/abc/file/more'],
      ['POST', '/api/orgs/file'],
      ['POST', '/api/formx'],
      ['POST', '/API/form'],
      ['POST', '/form'],
    ] as const) {
      expect(ruleOf(method, path)).toBe(JSON_BODY)
    }
    expect([JSON_BODY.limit, JSON_BODY.parse, JSON_BODY.tooLarge().status, JSON_BODY.tooLarge().message]).toEqual([
      1_000_000, 'json', 400, 'The request body is larger than 1 MB.',
    ])
  })

  test('the rule survives the route being mounted in another app', () => {
    const outer = new Elysia().group('/v1', (group) => group.use(app))
    expect(bodyRulesOf(outer.routes)('POST', '/v1/api/orgs/x/file')).toBe(FILE)
  })

  test('a wildcard route cannot declare one', () => {
    const wild = new Elysia().use(bodyReader()).post('/files/*', () => 'ok', { reads: FILE })
    expect(() => bodyRulesOf(wild.routes)).toThrow('a body rule needs a plain pattern')
  })
})

describe('the reader', () => {
  const declared = (length: string | null) => new Request('http://x/', { method: 'POST', headers: length === null ? {} : { 'content-length': length } })

  test('a declared size over the limit is the rule\'s refusal; at the limit, or undeclared, it is read', async () => {
    expect(await caught(() => refuseDeclaredSize(declared('10'), FILE))).toBeNull()
    expect(await caught(() => refuseDeclaredSize(declared(null), FILE))).toBeNull()
    const refused = await caught(() => refuseDeclaredSize(declared('11'), FILE))
    expect([refused?.status, refused?.code, refused?.message, refused?.param]).toEqual([413, 'payload_too_large', 'too big', 'body'])
  })

  test('text: whole with a Content-Length, in pieces without, stopped at the piece that passes the limit', async () => {
    expect(await readText(new Request('http://x/', { method: 'POST', body: 'a=1&b=2' }), FORM)).toBe('a=1&b=2')
    expect(await readText(new Request('http://x/', { method: 'POST' }), FORM)).toBe('')
    expect(await readText(chunked(['a=1', '&b=', '2']).request, FORM)).toBe('a=1&b=2')
    const long = chunked(['12345', '67890', 'X', 'never read'])
    expect((await caught(() => readText(long.request, FORM)))?.message).toBe('form too big')
    expect([long.state.pulled, long.state.cancelled]).toEqual([3, true])
  })

  test('text: a body longer than its small Content-Length is still refused', async () => {
    const request = new Request('http://x/', { method: 'POST', body: 'x'.repeat(11), headers: { 'content-length': '2' } })
    expect((await caught(() => readText(request, FORM)))?.message).toBe('form too big')
  })

  test('chunks: another Content-Type is 400 before reading, naming what to send', async () => {
    for (const [type, said] of [[null, 'without a Content-Type'], ['application/json', 'application/json']] as const) {
      const request = new Request('http://x/', { method: 'POST', body: 'x', headers: type ? { 'content-type': type } : {} })
      const refused = await caught(() => readChunks(request, FILE))
      expect([refused?.status, refused?.message, refused?.param]).toEqual([400, `Send text, not ${said}.`, 'Content-Type'])
      expect(request.bodyUsed).toBe(false)
    }
  })

  test('chunks: handed on as they arrive, stopped (and the rest cancelled) once past the limit', async () => {
    const fits = chunked(['12345', '67890'])
    const seen: string[] = []
    for await (const chunk of readChunks(fits.request, FILE)) seen.push(new TextDecoder().decode(chunk))
    expect(seen).toEqual(['12345', '67890'])

    const long = chunked(['12345', '67890', 'X', 'never read'])
    const taken: number[] = []
    const refused = await caught(async () => {
      for await (const chunk of readChunks(long.request, FILE)) taken.push(chunk.byteLength)
    })
    expect([refused?.status, refused?.code, taken, long.state.pulled, long.state.cancelled]).toEqual([413, 'payload_too_large', [5, 5], 3, true])
  })

  test('chunks: a consumer that stops early cancels the rest', async () => {
    const body = chunked(['12', '34', '56'])
    for await (const _ of readChunks(body.request, FILE)) break
    expect([body.state.pulled, body.state.cancelled]).toEqual([1, true])
  })
})
