import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, expectError, type Harness } from '../harness'

setDefaultTimeout(60_000)

// Issue 31, carrier pools: `carriers` on the admin organization (create, PATCH, read), each
// entry checked by its kind's rules with `param` carriers[i].<field>, secrets write-only and kept
// by kind; `caller_id_rest_days`.

const SID = `AC${'0123456789abcdef'.repeat(2)}`
const TOKEN = 'c0ffee00'.repeat(4)
const API_KEY = `KEY${'0123456789ABCDEF'.repeat(3)}_secretpart`
const ACCOUNT = '3fa85f64-5717-4562-b3fc-2c963f66afa6'
const PUBLIC_KEY = Buffer.alloc(32, 7).toString('base64')
const TWILIO = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+14155550100'], weight: 70 }
const TELNYX = { kind: 'telnyx', account_sid: ACCOUNT, api_key: API_KEY, application_sid: '1773070540731319841', public_key: PUBLIC_KEY, caller_ids: ['+13125550100'], weight: 30 }

let h: Harness
let orgId: string

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
})
afterEach(() => h.close())

const patch = (body: unknown) => h.admin('PATCH', `/orgs/${orgId}`, body)

describe('a pool through the admin API', () => {
  test('reads show carriers in order with their weights and <name>_set, never a secret; no `carrier` beside them', async () => {
    const r = await patch({ carriers: [TWILIO, TELNYX] })
    expect(r.status).toBe(200)
    expect(r.body.data.carrier).toBeUndefined()
    expect(r.body.data.carriers).toEqual([
      { kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100'], api_base_url: 'https://api.twilio.com', machine_detection: true, auth_token_set: true, weight: 70 },
      expect.objectContaining({ kind: 'telnyx', account_sid: ACCOUNT, application_sid: '1773070540731319841', public_key: PUBLIC_KEY, caller_ids: ['+13125550100'], api_key_set: true, weight: 30 }),
    ])
    for (const reply of [r, await h.admin('GET', `/orgs/${orgId}`), await h.admin('GET', '/orgs')]) {
      expect(reply.text).not.toContain(TOKEN)
      expect(reply.text).not.toContain(API_KEY)
    }
    // Each carrier opens its own kind's settings.
    expect(h.services.orgs.carrier(orgId, 'twilio')).toMatchObject({ kind: 'twilio', authToken: TOKEN })
    expect(h.services.orgs.carrier(orgId, 'telnyx')).toMatchObject({ kind: 'telnyx', apiKey: API_KEY })
    expect(h.services.orgs.dialPool(orgId).map((e) => [e.kind, e.weight])).toEqual([['twilio', 70], ['telnyx', 30]])
  })

  test('secrets not sent are kept by kind, also when the order changes; a new account needs its secret again', async () => {
    await patch({ carriers: [TWILIO, TELNYX] })
    const { auth_token: _t, ...twilio } = TWILIO
    const { api_key: _k, ...telnyx } = TELNYX
    const r = await patch({ carriers: [{ ...telnyx, weight: 50 }, { ...twilio, weight: 50 }] })
    expect(r.status).toBe(200)
    expect(r.body.data.carriers.map((c: { kind: string; weight: number }) => [c.kind, c.weight])).toEqual([['telnyx', 50], ['twilio', 50]])
    expect(h.services.orgs.carrier(orgId, 'twilio')).toMatchObject({ authToken: TOKEN })
    expect(h.services.orgs.carrier(orgId, 'telnyx')).toMatchObject({ apiKey: API_KEY })
    expectError(await patch({ carriers: [{ ...twilio, account_sid: `AC${'f'.repeat(32)}` }] }), 400, 'invalid_request', 'carriers[0].auth_token')
  })

  test('from a pool to one carrier and back to the default; a single carrier reads as `carrier`', async () => {
    await patch({ carriers: [TWILIO, TELNYX] })
    const { weight: _w, ...single } = TWILIO
    const one = await patch({ carrier: { ...single, auth_token: undefined } })
    expect(one.status).toBe(200)
    expect(one.body.data.carrier).toMatchObject({ kind: 'twilio', auth_token_set: true })
    expect(one.body.data.carriers).toBeUndefined()
    // The pool's Twilio token was kept for the single carrier; telnyx is gone.
    expect(h.services.orgs.carrier(orgId, 'twilio')).toMatchObject({ authToken: TOKEN })
    expect(h.services.orgs.carrier(orgId, 'telnyx')).toBeNull()
    await patch({ carriers: [TELNYX] })
    const back = await patch({ carriers: [] })
    expect(back.body.data.carrier).toEqual({ kind: 'simulator' })
    expect(h.services.stores.orgs.carrierRows(orgId)).toEqual([])
  })

  test('a pool of one entry is a pool (reads show carriers, with its weight)', async () => {
    const r = await patch({ carriers: [TELNYX] })
    expect(r.body.data.carriers).toHaveLength(1)
    expect(r.body.data.carriers[0]).toMatchObject({ kind: 'telnyx', weight: 30 })
  })

  test('created with a pool and caller_id_rest_days', async () => {
    const r = await h.admin('POST', '/orgs', { name: 'Beta', carriers: [TWILIO, TELNYX], caller_id_rest_days: 14 })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ caller_id_rest_days: 14, carriers: [{ kind: 'twilio', weight: 70 }, { kind: 'telnyx', weight: 30 }] })
    expect(r.text).not.toContain(TOKEN)
  })

  test.each([
    ['carrier and carriers together', { carrier: { kind: 'simulator' }, carriers: [TWILIO] }, 'carriers'],
    ['five entries', { carriers: [TWILIO, TELNYX, TWILIO, TELNYX, TWILIO] }, 'carriers'],
    ['the simulator in a pool', { carriers: [TWILIO, { kind: 'simulator', weight: 10 }] }, 'carriers[1].kind'],
    ['a kind twice', { carriers: [TWILIO, { ...TWILIO, weight: 5 }] }, 'carriers[1].kind'],
    ['weight 0', { carriers: [{ ...TWILIO, weight: 0 }] }, 'carriers[0].weight'],
    ['weight 101', { carriers: [TELNYX, { ...TWILIO, weight: 101 }] }, 'carriers[1].weight'],
    ['a fractional weight', { carriers: [{ ...TWILIO, weight: 2.5 }] }, 'carriers[0].weight'],
    ['no weight', { carriers: [{ ...TWILIO, weight: undefined }] }, 'carriers[0].weight'],
    ['an entry\u2019s malformed field', { carriers: [TWILIO, { ...TELNYX, public_key: 'not-a-key' }] }, 'carriers[1].public_key'],
    ['an entry\u2019s bad caller ID', { carriers: [{ ...TWILIO, caller_ids: ['+14155550100', '555'] }] }, 'carriers[0].caller_ids[1]'],
    ['another kind\u2019s field', { carriers: [{ ...TWILIO, application_sid: '123' }] }, 'carriers[0].application_sid'],
    ['an entry without its secret', { carriers: [{ ...TELNYX, api_key: undefined }] }, 'carriers[0].api_key'],
    ['an unknown field in an entry', { carriers: [{ ...TWILIO, region: 'us1' }] }, 'carriers[0].region'],
    ['caller_id_rest_days 91', { caller_id_rest_days: 91 }, 'caller_id_rest_days'],
    ['caller_id_rest_days -1', { caller_id_rest_days: -1 }, 'caller_id_rest_days'],
  ])('%s: 400 naming %p, nothing stored', async (_, body, param) => {
    const r = await patch(body)
    expectError(r, 400, 'invalid_request', param)
    expect(r.text).not.toContain(TOKEN)
    expect(r.text).not.toContain(API_KEY)
    expect(h.services.stores.orgs.carrierRows(orgId)).toEqual([])
    expect(h.services.stores.orgs.get(orgId)!.callerIdRestDays).toBe(7)
  })

  test('caller_id_rest_days: 0 (never rest) and 90 are taken and read back', async () => {
    expect((await patch({ caller_id_rest_days: 0 })).body.data.caller_id_rest_days).toBe(0)
    expect((await patch({ caller_id_rest_days: 90 })).body.data.caller_id_rest_days).toBe(90)
  })

  test('409 per entry: a call up through one kind holds that entry (left out or its account changed), not the other', async () => {
    await patch({ carriers: [TWILIO, TELNYX] })
    // A Telnyx call up (the carrier's row only: what the guard counts).
    const sqlite = h.services.database.sqlite
    sqlite.run('PRAGMA foreign_keys = OFF')
    sqlite.run(`INSERT INTO carrier_calls (call_id, org_id, carrier, carrier_call_id, plan, state, open, created, updated) VALUES ('c-1', ?, 'telnyx', 'v3:abc', '{}', '{}', 1, 0, 0)`, [orgId])
    sqlite.run('PRAGMA foreign_keys = ON')
    const { auth_token: _t, ...twilio } = TWILIO
    const { api_key: _k, ...telnyx } = TELNYX
    // Twilio's entry changes (new token), Telnyx's stays: fine.
    expect((await patch({ carriers: [{ ...twilio, auth_token: '0a'.repeat(16) }, telnyx] })).status).toBe(200)
    // Telnyx left out, or its account changed: 409 naming carriers.
    expectError(await patch({ carriers: [twilio] }), 409, 'calls_in_progress', 'carriers')
    expectError(await patch({ carriers: [twilio, { ...TELNYX, account_sid: '00000000-0000-4000-8000-000000000000' }] }), 409, 'calls_in_progress', 'carriers')
    expectError(await patch({ carrier: { kind: 'simulator' } }), 409, 'calls_in_progress', 'carrier')
    expect(h.services.stores.orgs.carrierRows(orgId).map((r) => r.kind)).toEqual(['twilio', 'telnyx'])
  })
})
