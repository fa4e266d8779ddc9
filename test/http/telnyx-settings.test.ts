import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { createHarness, scratchDir, type Harness } from '../harness'
import { keyPairFromSeed } from '../emulators/telnyx/telnyx-signing'

setDefaultTimeout(60_000)

// carrier.kind "telnyx" through the admin API: the key write-only and sealed, every malformed field a 400 naming it.

const PUBLIC_KEY = keyPairFromSeed().publicKey
const KEY = 'KEY01A2B3C4D5E6F7_secret'
const TELNYX = {
  kind: 'telnyx', account_sid: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', api_key: KEY, application_sid: '1773070540731319841', public_key: PUBLIC_KEY, caller_ids: ['+14155550100'],
}

let h: Harness
let dir: ReturnType<typeof scratchDir>
let orgId: string
beforeEach(async () => {
  dir = scratchDir()
  h = createHarness({ env: { DIALER_DATA_DIR: dir.path, DIALER_DATABASE: `${dir.path}/dialer.db` } })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
})
afterEach(() => {
  h.close()
  dir.remove()
})

describe('Telnyx carrier settings', () => {
  test('defaults filled, the key shown only as api_key_set, sealed at rest; a PATCH without it keeps it', async () => {
    const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: TELNYX })
    expect(r.status).toBe(200)
    const { api_key: _, ...shown } = TELNYX
    expect(r.body.data.carrier).toEqual({ ...shown, api_base_url: 'https://api.telnyx.com', machine_detection: true, api_key_set: true })
    for (const reply of [r, await h.admin('GET', `/orgs/${orgId}`), await h.admin('GET', '/orgs')]) expect(reply.text).not.toContain(KEY)
    h.services.database.flush()
    const db = new Database(`${dir.path}/dialer.db`, { readonly: true })
    const rows = db.query('SELECT settings, secrets_sealed FROM org_carriers WHERE org_id = ?').all(orgId) as { settings: string; secrets_sealed: string }[]
    db.close()
    expect(rows.length).toBe(1)
    expect(JSON.stringify(rows)).not.toContain(KEY)
    const kept = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { ...shown, caller_ids: ['+12125550100'] } })
    expect(kept.status).toBe(200)
    expect(kept.body.data.carrier).toMatchObject({ caller_ids: ['+12125550100'], api_key_set: true })
  })

  const bad: [string, Record<string, unknown>, string][] = [
    ['a key that is not a Telnyx v2 key', { api_key: 'secret-key-123' }, 'carrier.api_key'],
    ['an application id with letters', { application_sid: 'abc' }, 'carrier.application_sid'],
    ['a public key that is not 32 bytes', { public_key: 'AAAA' }, 'carrier.public_key'],
    ['an account that is not a UUID', { account_sid: 'not-a-uuid' }, 'carrier.account_sid'],
    ['no application', { application_sid: undefined }, 'carrier.application_sid'],
    ['Twilio\u2019s token on a Telnyx carrier', { auth_token: 'f'.repeat(32) }, 'carrier.auth_token'],
  ]
  for (const [name, change, param] of bad) {
    test(`400 for ${name}, param ${param}; nothing stored`, async () => {
      const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { ...TELNYX, ...change } })
      expect(r.status).toBe(400)
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param })
      expect(r.text).not.toContain(KEY)
      expect((await h.admin('GET', `/orgs/${orgId}`)).body.data.carrier).toEqual({ kind: 'simulator' })
    })
  }
})
