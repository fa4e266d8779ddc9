import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { createHarness, expectError, scratchDir, type Harness } from '../harness'
import { logger } from '../../src/log'

setDefaultTimeout(60_000)

// Issue 18, item 2: an organization's carrier, its recording retention, and a campaign's
// people phones and voicemail, through the admin API.

const SID = `AC${'0123456789abcdef'.repeat(2)}`
const TOKEN = 'c0ffee00'.repeat(4)
const TWILIO = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+14155550100'] }

let h: Harness
let dir: ReturnType<typeof scratchDir>
let orgId: string
let log = ''
const saved = { enabled: logger.enabled, capture: logger.capture, minLevel: logger.minLevel }

beforeEach(async () => {
  log = ''
  logger.enabled = true
  logger.minLevel = 'debug'
  logger.capture = (chunk) => {
    log += chunk
  }
  dir = scratchDir()
  h = createHarness({ env: { DIALER_DATA_DIR: dir.path, DIALER_DATABASE: `${dir.path}/dialer.db`, DIALER_LOG_REQUESTS: '1' } })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
})
afterEach(() => {
  h.close()
  dir.remove()
  Object.assign(logger, saved)
})

describe('carrier settings', () => {
  test('a new organization uses the simulator and keeps recordings 90 days', async () => {
    const r = await h.admin('GET', `/orgs/${orgId}`)
    expect(r.body.data.carrier).toEqual({ kind: 'simulator' })
    expect(r.body.data.recording_retention_days).toBe(90)
  })

  test('Twilio settings: defaults filled, the token never shown, sealed at rest, never logged', async () => {
    const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: TWILIO })
    expect(r.status).toBe(200)
    expect(r.body.data.carrier).toEqual({
      kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100'], api_base_url: 'https://api.twilio.com', machine_detection: true, auth_token_set: true,
    })
    expect(r.text).not.toContain(TOKEN)
    for (const reply of [await h.admin('GET', `/orgs/${orgId}`), await h.admin('GET', '/orgs')]) {
      expect(reply.text).not.toContain(TOKEN)
      expect(reply.text).toContain('"auth_token_set":true')
    }
    // At rest: sealed, and the plain token is nowhere in the database file.
    h.services.database.flush()
    const db = new Database(`${dir.path}/dialer.db`, { readonly: true })
    const row = db.query('SELECT settings, secrets_sealed FROM org_carriers WHERE org_id = ?').get(orgId) as { settings: string; secrets_sealed: string }
    db.close()
    expect(row.settings).not.toContain(TOKEN)
    const sealed = (JSON.parse(row.secrets_sealed) as { auth_token: string }).auth_token
    expect(sealed).not.toContain(TOKEN)
    expect(sealed.length).toBeGreaterThan(TOKEN.length)
    expect(h.services.orgs.carrier(orgId)).toMatchObject({ kind: 'twilio', authToken: TOKEN })
    expect(log).not.toContain(TOKEN)
  })

  test('a patch without auth_token keeps the stored one; a new account or endpoint needs it again', async () => {
    await h.admin('PATCH', `/orgs/${orgId}`, { carrier: TWILIO })
    const kept = await h.admin('PATCH', `/orgs/${orgId}`, {
      carrier: { kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100', '+12125550100'], machine_detection: false },
    })
    expect(kept.status).toBe(200)
    expect(kept.body.data.carrier).toMatchObject({ caller_ids: ['+14155550100', '+12125550100'], machine_detection: false })
    expect(h.services.orgs.carrier(orgId)).toMatchObject({ authToken: TOKEN })

    const otherSid = `AC${'f'.repeat(32)}`
    expectError(await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { kind: 'twilio', account_sid: otherSid, caller_ids: ['+14155550100'] } }), 400, 'invalid_request', 'carrier.auth_token')
    expectError(
      await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100'], api_base_url: 'https://twilio.example.com' } }),
      400, 'invalid_request', 'carrier.auth_token',
    )
    // Refused patches changed nothing.
    expect(h.services.orgs.carrier(orgId)).toMatchObject({ accountSid: SID, authToken: TOKEN, apiBaseUrl: 'https://api.twilio.com' })
  })

  test('back to the simulator drops the Twilio settings and token', async () => {
    await h.admin('PATCH', `/orgs/${orgId}`, { carrier: TWILIO })
    const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { kind: 'simulator' } })
    expect(r.body.data.carrier).toEqual({ kind: 'simulator' })
    expect(h.services.stores.orgs.carrier(orgId)).toBeUndefined()
    // Twilio again without a token: nothing stored to keep.
    expectError(await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100'] } }), 400, 'invalid_request', 'carrier.auth_token')
  })

  test('an organization created with a carrier', async () => {
    const r = await h.admin('POST', '/orgs', { name: 'Beta', carrier: TWILIO, recording_retention_days: 30 })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ carrier: { kind: 'twilio', auth_token_set: true }, recording_retention_days: 30 })
    expect(r.text).not.toContain(TOKEN)
  })

  test.each([
    ['a malformed SID', { ...TWILIO, account_sid: 'AC123' }, 'carrier.account_sid'],
    ['an upper-case SID', { ...TWILIO, account_sid: SID.toUpperCase() }, 'carrier.account_sid'],
    ['a missing SID', { kind: 'twilio', auth_token: TOKEN, caller_ids: ['+14155550100'] }, 'carrier.account_sid'],
    ['a token that is not 32 hex digits', { ...TWILIO, auth_token: 'secret' }, 'carrier.auth_token'],
    ['no caller IDs', { ...TWILIO, caller_ids: [] }, 'carrier.caller_ids'],
    ['a caller ID that is not E.164', { ...TWILIO, caller_ids: ['+14155550100', '(415) 555-0101'] }, 'carrier.caller_ids[1]'],
    ['a caller ID outside the US and Canada', { ...TWILIO, caller_ids: ['+442071838750'] }, 'carrier.caller_ids[0]'],
    ['a repeated caller ID', { ...TWILIO, caller_ids: ['+14155550100', '+14155550100'] }, 'carrier.caller_ids[1]'],
    ['plain http to a public host', { ...TWILIO, api_base_url: 'http://api.twilio.com' }, 'carrier.api_base_url'],
    ['plain http to a private address', { ...TWILIO, api_base_url: 'http://10.0.0.5:8080' }, 'carrier.api_base_url'],
    ['a URL with credentials', { ...TWILIO, api_base_url: 'https://user:pw@api.twilio.com' }, 'carrier.api_base_url'],
    ['not a URL', { ...TWILIO, api_base_url: 'api.twilio.com' }, 'carrier.api_base_url'],
    ['a non-web scheme', { ...TWILIO, api_base_url: 'ftp://127.0.0.1' }, 'carrier.api_base_url'],
    ['Twilio fields with the simulator', { kind: 'simulator', account_sid: SID }, 'carrier.account_sid'],
  ])('%s: 400 naming the field, nothing stored', async (_, carrier, param) => {
    const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier })
    expectError(r, 400, 'invalid_request', param)
    expect(r.text).not.toContain(TOKEN)
    expect(h.services.stores.orgs.carrier(orgId)).toBeUndefined()
  })

  test.each([
    ['an unknown kind', { kind: 'vonage' }],
    ['an unknown field', { ...TWILIO, region: 'us1' }],
    ['caller_ids not a list', { ...TWILIO, caller_ids: '+14155550100' }],
    ['a 100 KB token', { ...TWILIO, auth_token: 'a'.repeat(100_000) }],
  ])('%s: 400 in the envelope', async (_, carrier) => {
    const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier })
    expect(r.status).toBe(400)
    expect(r.body.error.type).toBe('invalid_request_error')
    expect(r.body.error.param).toStartWith('carrier')
    expect(h.services.stores.orgs.carrier(orgId)).toBeUndefined()
  })

  test.each([
    ['http://localhost:9999'],
    ['http://127.0.0.1:9999/'],
    ['http://[::1]:9999'],
  ])('plain http to loopback %s is allowed (tests, a local emulator)', async (url) => {
    const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { ...TWILIO, api_base_url: url } })
    expect(r.status).toBe(200)
    expect(r.body.data.carrier.api_base_url).toBe(url.replace(/\/$/, ''))
  })

  test('recording_retention_days: 1 to 3650', async () => {
    expect((await h.admin('PATCH', `/orgs/${orgId}`, { recording_retention_days: 7 })).body.data.recording_retention_days).toBe(7)
    for (const bad of [0, 3651, 1.5, -1]) {
      expectError(await h.admin('PATCH', `/orgs/${orgId}`, { recording_retention_days: bad }), 400, 'invalid_request', 'recording_retention_days')
    }
  })
})

describe('campaign people phones and voicemail', () => {
  test('sdrs and closers keep their phones; voicemail is shown and can be cleared', async () => {
    const r = await h.admin('POST', `/orgs/${orgId}/campaigns`, {
      name: 'Spring roofs',
      sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }, { name: 'No Phone' }],
      closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
      voicemail: { say: 'Hi, this is Acme Roofing.' },
    })
    expect(r.status).toBe(201)
    expect(r.body.data.sdrs[0]).toMatchObject({ name: 'Alex Rivera', phone: '+13125550150' })
    expect(r.body.data.sdrs[1].phone).toBeUndefined()
    expect(r.body.data.closers[0].phone).toBe('+13125550151')
    expect(r.body.data.voicemail).toEqual({ say: 'Hi, this is Acme Roofing.' })
    const id = r.body.data.id
    const audio = await h.admin('PATCH', `/campaigns/${id}`, { voicemail: { audio_url: 'https://cdn.example.com/vm.mp3?v=2' } })
    expect(audio.body.data.voicemail).toEqual({ audio_url: 'https://cdn.example.com/vm.mp3?v=2' })
    // Left out of a patch: kept. null: none.
    expect((await h.admin('PATCH', `/campaigns/${id}`, { lines: 3 })).body.data.voicemail).toEqual({ audio_url: 'https://cdn.example.com/vm.mp3?v=2' })
    expect((await h.admin('PATCH', `/campaigns/${id}`, { voicemail: null })).body.data.voicemail).toBeNull()
  })

  test.each([
    [{ sdrs: [{ name: 'A', phone: '3125550150' }] }, 'sdrs[0].phone'],
    [{ closers: [{ name: 'B', phone: '+13125550151' }, { name: 'C', phone: '+4420718387' }] }, 'closers[1].phone'],
    [{ voicemail: { audio_url: 'http://cdn.example.com/vm.mp3' } }, 'voicemail.audio_url'],
    [{ voicemail: { audio_url: 'not a url' } }, 'voicemail.audio_url'],
    [{ voicemail: { say: '   ' } }, 'voicemail.say'],
    [{ voicemail: { say: 'x'.repeat(1001) } }, 'voicemail'],
    [{ voicemail: { say: 'hi', audio_url: 'https://cdn.example.com/vm.mp3' } }, 'voicemail'],
  ])('%j: 400 naming the field', async (body, param) => {
    const r = await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Bad', ...body })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('invalid_request')
    expect(r.body.error.param).toStartWith(param)
  })
})
