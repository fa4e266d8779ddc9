import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, expectError, seedWorld, type Harness, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Recording consent over HTTP (issue 27, item 3): the campaign's `recording_notice` (admin API
 * and the owner's console settings), and GET /api/v1/admin/calls/{id} with `recording_consent`
 * and `carrier`. Calls come from the simulator (the last two digits pick the scenario; 01:
 * answered, not interested after 45 s). The clock is moved to 17:00 UTC: 09:00 in California.
 */

let h: Harness
let w: World
const { addLead, onlyCall } = apiHelpers(() => ({ h, w }))
const NO_CALL = '01a20000-0000-7000-8000-000000000000'

beforeAll(async () => {
  h = createHarness({ autoDial: true })
  w = await seedWorld(h)
  await h.advance(2 * 3600)
})
afterAll(() => h.close())

describe('campaign recording_notice', () => {
  const patch = (body: unknown) => h.admin('PATCH', `/campaigns/${w.campaignId}`, body)

  test('null by default; create, PATCH and read keep {say} and {audio_url}', async () => {
    expect((await h.admin('GET', `/campaigns/${w.campaignId}`)).body.data.recording_notice).toBeNull()
    const made = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Notice', recording_notice: { say: 'This call is recorded for quality.' } })
    expect(made.status).toBe(201)
    expect(made.body.data.recording_notice).toEqual({ say: 'This call is recorded for quality.' })
    expect((await patch({ recording_notice: { audio_url: 'https://cdn.example.com/notice.mp3' } })).body.data.recording_notice).toEqual({ audio_url: 'https://cdn.example.com/notice.mp3' })
    expect((await h.admin('GET', `/campaigns/${w.campaignId}`)).body.data.recording_notice).toEqual({ audio_url: 'https://cdn.example.com/notice.mp3' })
    expect((await patch({ recording_notice: null })).body.data.recording_notice).toBeNull()
  })

  test('bad notices: 400 invalid_request naming the field, nothing changed', async () => {
    expectError(await patch({ recording_notice: { say: '   ' } }), 400, 'invalid_request', 'recording_notice.say')
    expectError(await patch({ recording_notice: { audio_url: 'http://cdn.example.com/notice.mp3' } }), 400, 'invalid_request', 'recording_notice.audio_url')
    const long = await patch({ recording_notice: { say: 'x'.repeat(1001) } })
    expect(long.status).toBe(400)
    expect(long.body.error.type).toBe('invalid_request_error')
    expect((await patch({ recording_notice: { say: 'Hi', audio_url: 'https://cdn.example.com/a.mp3' } })).status).toBe(400)
    expect((await patch({ recording_notice: 'recorded' })).status).toBe(400)
    expect((await h.admin('GET', `/campaigns/${w.campaignId}`)).body.data.recording_notice).toBeNull()
    // The 1000-character limit itself is fine.
    expect((await patch({ recording_notice: { say: 'x'.repeat(1000) } })).status).toBe(200)
    expect((await patch({ recording_notice: null })).status).toBe(200)
  })

  test("the owner's console settings read and change it", async () => {
    await h.admin('POST', `/orgs/${w.orgId}/users`, { email: 'owner@acme.example', password: 'owner password 123', role: 'owner' })
    const session = await h.call('POST', '/console/api/session', { body: { email: 'owner@acme.example', password: 'owner password 123' } })
    expect(session.status).toBe(200)
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!
    const csrf = session.body.data.csrf_token as string
    const path = `/console/api/orgs/${w.orgId}/campaigns/${w.campaignId}`
    expect((await h.call('GET', path, { headers: { cookie } })).body.data.recording_notice).toBeNull()
    const changed = await h.call('PATCH', path, { headers: { cookie, 'x-csrf-token': csrf }, body: { recording_notice: { say: 'We record calls.' } } })
    expect(changed.status).toBe(200)
    expect(changed.body.data.recording_notice).toEqual({ say: 'We record calls.' })
    const bad = await h.call('PATCH', path, { headers: { cookie, 'x-csrf-token': csrf }, body: { recording_notice: { say: '' } } })
    expect(bad.status).toBe(400)
    expect((await patch({ recording_notice: null })).status).toBe(200)
  })
})

describe('GET /api/v1/admin/calls/{id}', () => {
  let caCall: any
  let nyCall: any

  beforeAll(async () => {
    const ca = await addLead({ phone: '+14155552001' })
    const ny = await addLead({ phone: '+12125552001' })
    await h.advance(120)
    caCall = await onlyCall(ca.id)
    nyCall = await onlyCall(ny.id)
  })

  test('a California lead: the Call object plus carrier and recording_consent (required_by CA, announced after the answer)', async () => {
    const r = await h.admin('GET', `/calls/${caCall.id}`)
    expect(r.status).toBe(200)
    const { org_id, carrier, recording_consent, answered_at, connected_at, abandoned, ai_seated, ai_first_audio_ms, ai_instructions, ai_usage, ai_minutes, ...call } = r.body.data
    // Exactly the Call object GET /calls/{id} serves, then the admin fields.
    expect(call).toEqual((await h.api('GET', `/calls/${caCall.id}`, { key: w.live })).body.data)
    expect(org_id).toBe(w.orgId)
    expect(carrier).toBe('simulator')
    // The abandonment ledger: the AI assistant is on the line at the answer.
    expect([answered_at, connected_at, abandoned]).toEqual([call.answered, call.answered, false])
    // The simulator's assistant is no AI seat (no agent's stream).
    expect([ai_seated, ai_first_audio_ms, ai_instructions, ai_usage, ai_minutes]).toEqual([false, null, null, null, null])
    expect(recording_consent).toMatchObject({ required_by: ['CA'], method: 'say' })
    const announced = Date.parse(recording_consent.announced_at)
    expect(announced).toBeGreaterThan(Date.parse(call.answered))
    expect(call.recording_available).toBe(true)
  })

  test('a New York lead records from the answer: recording_consent is null', async () => {
    const r = await h.admin('GET', `/calls/${nyCall.id}`)
    expect(r.body.data.recording_consent).toBeNull()
    expect(r.body.data.recording_available).toBe(true)
  })

  test('404 not_found in the envelope (a malformed id too, as every admin read); without the admin token 401', async () => {
    expectError(await h.admin('GET', `/calls/${NO_CALL}`), 404, 'not_found')
    expectError(await h.admin('GET', '/calls/not-a-uuid'), 404, 'not_found')
    const none = await h.call('GET', `/api/v1/admin/calls/${caCall.id}`)
    expect(none.status).toBe(401)
    expect(none.body.data).toBeUndefined()
    const wrong = await h.call('GET', `/api/v1/admin/calls/${caCall.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })
    expect(wrong.status).toBe(401)
    // An API key is not the admin token.
    expect((await h.call('GET', `/api/v1/admin/calls/${caCall.id}`, { key: w.live })).status).toBe(401)
  })
})
