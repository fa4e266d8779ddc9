import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness } from '../harness'

setDefaultTimeout(60_000)

// Issue 31: the console's Numbers page (caller-ID health), through the handler.

const SID = `AC${'ab'.repeat(16)}`
const TOKEN = 'c'.repeat(32)
const [A, B, C] = ['+12125550101', '+12125550102', '+12125550103']

let h: Harness
let orgId = ''
let otherOrgId = ''
let campaignId = ''
let leadId = ''

async function call(method: string, path: string, session?: { cookie: string; csrf?: string }, body?: unknown) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (session) headers.cookie = session.cookie
  if (session?.csrf) headers['x-csrf-token'] = session.csrf
  const r = await h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${orgId}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any }
}
async function signIn(email: string, password: string) {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) }))
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await r.json()) as any).data.csrf_token as string }
}

let seq = 0
/** n ended live outbound calls shown from `callerId`, `answered` of them answered by a person. */
function calls(callerId: string, n: number, answered: number) {
  const now = h.services.clock.now()
  const insert = h.services.database.sqlite.query(`INSERT INTO calls (id, org_id, campaign_id, lead_id, livemode, direction, status, outcome, duration_seconds, started, answered, ended, updated,
    answered_by, handled_by, started_by, carrier, caller_id, rang_at) VALUES (?, ?, ?, ?, 1, 'outbound', 'ended', ?, ?, ?, ?, ?, ?, ?, '{"id":null,"name":"AI","role":"ai"}', '{"type":"dialer","api_key_id":null}', 'twilio', ?, ?)`)
  for (let i = 0; i < n; i++) {
    const started = now - 60_000 - i * 1000
    const took = i < answered
    insert.run(`01890000-0000-7000-8000-${String(++seq).padStart(12, '0')}`, orgId, campaignId, leadId, took ? 'not_interested' : 'no_answer', took ? 40 : 0,
      started, took ? started + 5000 : null, started + 30_000, started + 30_000, took ? 'person' : null, callerId, started + 1000)
  }
}

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  otherOrgId = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
  expect((await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [A, B, C] } })).status).toBe(200)
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'owner@acme.example', password: 'owner password 123', role: 'owner' })
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'sdr@acme.example', password: 'sdr password 12345', role: 'sdr' })
  await h.admin('POST', `/orgs/${otherOrgId}/users`, { email: 'owner@other.example', password: 'owner password 123', role: 'owner' })
  const key = await h.createKey(orgId, { name: 'live', mode: 'live' })
  leadId = (await h.api('POST', '/leads', { key, body: { campaign_id: campaignId, phone: '+12125552001', name: 'Ann' } })).body.data.id
  calls(A, 40, 2)
  calls(B, 40, 20)
  calls(C, 40, 18)
})
afterEach(() => h.close())

describe('console Numbers page', () => {
  test('an owner reads the carriers (no secret) and each number\u2019s figures; the job rests the poor one with its evidence', async () => {
    const owner = await signIn('owner@acme.example', 'owner password 123')
    const before = await call('GET', '/numbers', owner)
    expect(before.status).toBe(200)
    expect(before.body.data.carriers).toEqual([{ kind: 'twilio', weight: null, caller_ids: [A, B, C], settings: { account_sid: SID, api_base_url: 'https://api.twilio.com', machine_detection: true }, secrets_set: ['auth_token'] }])
    expect(JSON.stringify(before.body)).not.toContain(TOKEN)
    const a = before.body.data.numbers.find((n: any) => n.caller_id === A)
    expect(a).toMatchObject({ status: 'in_use', rested_until: null, evidence: null, carriers: ['twilio'], figures: { calls: 40, answered: 2, answer_rate: 0.05, median_talk_seconds: 40 } })
    expect(a.far_below.rule).toBe('answer_rate')
    expect(before.body.data.rest_days).toBe(7)

    const ran = await h.admin('POST', '/jobs/caller_id_health/run')
    expect(ran.status).toBe(200)
    const after = (await call('GET', '/numbers', owner)).body.data.numbers
    const rested = after.find((n: any) => n.caller_id === A)
    expect(rested.status).toBe('rested')
    expect(Date.parse(rested.rested_until) - h.services.clock.now()).toBe(7 * 24 * 3600 * 1000)
    expect(rested.evidence).toMatchObject({ rule: 'answer_rate', campaign_id: campaignId, rest_days: 7, number: { calls: 40 }, baseline: { calls: 80, answered: 38 } })
    expect(after.filter((n: any) => n.status === 'rested')).toHaveLength(1)
    expect(h.services.callerIds.usable(orgId, [A, B, C])).toEqual([B, C])
  })

  test('an owner puts a rested number back (CSRF required); unknown and malformed numbers; SDRs and other organizations refused', async () => {
    await h.admin('POST', '/jobs/caller_id_health/run')
    const owner = await signIn('owner@acme.example', 'owner password 123')
    const path = `/numbers/${encodeURIComponent(A)}/put-back`
    const noCsrf = await call('POST', path, { cookie: owner.cookie })
    expect(noCsrf.status).toBe(403)
    expect(h.services.callerIds.usable(orgId, [A, B])).toEqual([B])

    const back = await call('POST', path, owner)
    expect(back.status).toBe(200)
    expect(back.body.data).toMatchObject({ caller_id: A, status: 'in_use', rested_until: null, figures: { calls: 0 } })
    expect(back.body.data.evidence.rule).toBe('answer_rate')
    expect(h.services.callerIds.usable(orgId, [A, B])).toEqual([A, B])
    // Its old calls no longer count: the next run leaves it in use.
    await h.admin('POST', '/jobs/caller_id_health/run')
    expect((await call('GET', '/numbers', owner)).body.data.numbers.find((n: any) => n.caller_id === A).status).toBe('in_use')

    const unknown = await call('POST', `/numbers/${encodeURIComponent('+13125550199')}/put-back`, owner)
    expect(unknown.status).toBe(404)
    // Not E.164: a path that names no number (the service's rule for bad ids in paths).
    const malformed = await call('POST', '/numbers/2125550101/put-back', owner)
    expect(malformed.status).toBe(404)

    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const refused = await call('GET', '/numbers', sdr)
    expect(refused.status).toBe(403)
    expect(refused.body.error.reason).toBe('owner_only')
    const other = await signIn('owner@other.example', 'owner password 123')
    expect((await call('GET', '/numbers', other)).status).toBe(404)
  })

  test('caller_id_rest_days 0: the job rests nothing, the page still flags the number', async () => {
    h.services.stores.orgs.update(orgId, { callerIdRestDays: 0 })
    await h.admin('POST', '/jobs/caller_id_health/run')
    const owner = await signIn('owner@acme.example', 'owner password 123')
    const page = (await call('GET', '/numbers', owner)).body.data
    expect(page.rest_days).toBe(0)
    expect(page.numbers.every((n: any) => n.status === 'in_use')).toBe(true)
    expect(page.numbers.find((n: any) => n.caller_id === A).far_below.rule).toBe('answer_rate')
  })
})
