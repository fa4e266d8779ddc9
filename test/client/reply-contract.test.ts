import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { checkReply, documentCheckThrows, type CheckedReply } from './reply-contract'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// The reply check the HTTP suite runs on every reply (test/harness.ts) must catch what a
// generated client would trip over, or it proves nothing.

const headers = (extra: Record<string, string> = {}) =>
  new Headers({ 'content-type': 'application/json', 'request-id': 'req_0123', 'ratelimit-limit': '120', 'ratelimit-remaining': '119', 'ratelimit-reset': '30', ...extra })

const notFound = (code = 'not_found') =>
  JSON.stringify({ error: { type: 'invalid_request_error', code, message: 'No such object', param: null, request_id: 'req_0123' } })

const reply = (fields: Partial<CheckedReply>): CheckedReply => ({
  method: 'GET',
  path: '/api/v1/external/campaigns/01890000-0000-7000-8000-000000000000',
  status: 404,
  headers: headers(),
  text: notFound(),
  ...fields,
})

describe.if(documentCheckThrows)('checkReply against the published document', () => {
  test('a documented error reply passes', () => {
    expect(() => checkReply(reply({}))).not.toThrow()
  })

  test('a code the operation does not document fails, naming the route and the schema error', () => {
    expect(() => checkReply(reply({ text: notFound('no_such_code') }))).toThrow(/GET \/api\/v1\/external\/campaigns\/\{id\}.*answered 404[\s\S]*\/error\/code/)
  })

  test('a body that breaks the schema fails', () => {
    expect(() => checkReply(reply({ text: JSON.stringify({ error: { code: 'not_found' } }) }))).toThrow(/must have required property/)
  })

  test('an undocumented status fails', () => {
    expect(() => checkReply(reply({ status: 418 }))).toThrow(/status 418 is not documented/)
  })

  test('a missing required header fails', () => {
    const h = headers()
    h.delete('request-id')
    expect(() => checkReply(reply({ headers: h }))).toThrow(/required header Request-Id is missing/i)
  })

  test('a header that breaks its schema fails', () => {
    expect(() => checkReply(reply({ headers: headers({ 'ratelimit-limit': 'lots' }) }))).toThrow(/RateLimit-Limit.*not an integer/i)
  })

  test('an undocumented content type fails', () => {
    expect(() => checkReply(reply({ headers: headers({ 'content-type': 'text/html' }), text: '<p>404</p>' }))).toThrow(/content type text\/html is not documented/)
  })

  test('literal segments win over templates; replies outside the external API are not checked', () => {
    expect(() => checkReply(reply({ method: 'POST', path: '/api/v1/external/leads/batch', status: 418 }))).toThrow(/POST \/api\/v1\/external\/leads\/batch /)
    expect(() => checkReply(reply({ path: '/api/v1/admin/orgs', status: 418 }))).not.toThrow()
    expect(() => checkReply(reply({ path: '/api/v1/external/openapi.json', status: 418 }))).not.toThrow()
  })
})
