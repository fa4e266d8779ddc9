import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/config'
import { createHarness, expectError, scratchDir } from '../harness'
import { addLead, ny, setup, SID, TOKEN } from './twilio-world'

setDefaultTimeout(60_000)

// An organization's carrier through the admin API: it cannot change under calls that are up,
// its endpoint may not be a private address, and a start whose secret key cannot open the
// stored tokens stops instead of minting a new key.

const OTHER_TOKEN = '0a'.repeat(16)

describe('PATCH carrier while calls are up', () => {
  test('a change the call relies on is 409 calls_in_progress and saves nothing; other changes go through; once it closed, the change goes through', async () => {
    // Answered, then its final callbacks are lost: the call stays up until the watchdog asks Twilio.
    let drop = false
    const w = await setup({ dropCallback: (url) => drop && (url.endsWith('/status') || url.endsWith('/recording')) })
    const leadId = await addLead(w, ny('01', 41))
    let callId = ''
    for (let i = 0; i < 500 && !callId; i++) {
      const id = w.h.services.stores.calls.recentForLead(leadId, 1)[0]?.id
      if (id && w.h.services.stores.calls.get(id)?.status === 'in_progress') callId = id
      else await Bun.sleep(5)
    }
    expect(callId).not.toBe('')
    drop = true
    await w.emulator.settled(w.h.services.stores.carrierCalls.get(callId)!.carrierCallId!)
    expect(w.h.services.stores.carrierCalls.get(callId)!.open).toBe(true)

    const before = w.h.services.stores.orgs.carrier(w.orgId)!
    const name = w.h.services.stores.orgs.get(w.orgId)!.name
    const twilio = { kind: 'twilio', account_sid: SID, caller_ids: before.settings.caller_ids, api_base_url: w.emulator.url }
    for (const carrier of [
      { kind: 'simulator' },
      { ...twilio, auth_token: OTHER_TOKEN },
      { ...twilio, account_sid: `AC${'b2'.repeat(16)}`, auth_token: OTHER_TOKEN },
      { ...twilio, auth_token: TOKEN, api_base_url: 'https://api.twilio.com' },
    ]) {
      const r = await w.h.admin('PATCH', `/orgs/${w.orgId}`, { name: 'Renamed', carrier })
      expectError(r, 409, 'calls_in_progress', 'carrier')
      expect(r.body.error.type).toBe('invalid_request_error')
      expect(r.body.error.message).toContain('1 carrier call in progress')
      // Nothing saved: neither the carrier nor the name sent with it.
      expect(w.h.services.stores.orgs.carrier(w.orgId)).toEqual(before)
      expect(w.h.services.stores.orgs.get(w.orgId)!.name).toBe(name)
    }
    // What the call does not rely on may change: the name, the caller IDs, detection, the same token again.
    expect((await w.h.admin('PATCH', `/orgs/${w.orgId}`, { name: 'Acme Roofing West' })).status).toBe(200)
    const same = await w.h.admin('PATCH', `/orgs/${w.orgId}`, { carrier: { ...twilio, caller_ids: ['+12125550100'], machine_detection: false } })
    expect(same.status).toBe(200)
    expect(same.body.data.carrier).toMatchObject({ caller_ids: ['+12125550100'], machine_detection: false })
    expect((await w.h.admin('PATCH', `/orgs/${w.orgId}`, { carrier: { ...twilio, auth_token: TOKEN } })).status).toBe(200)

    // The watchdog closes the call; then the account can change.
    await w.h.advance(16 * 60)
    for (let i = 0; i < 200 && w.h.services.stores.carrierCalls.get(callId)!.open; i++) await Bun.sleep(10)
    expect(w.h.services.stores.carrierCalls.get(callId)!.open).toBe(false)
    const after = await w.h.admin('PATCH', `/orgs/${w.orgId}`, { carrier: { kind: 'simulator' } })
    expect(after.status).toBe(200)
    expect(after.body.data.carrier).toEqual({ kind: 'simulator' })
  })
})

describe('api_base_url: private addresses', () => {
  const TWILIO = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+14155550100'] }
  const PRIVATE = ['https://10.0.0.1', 'https://169.254.169.254', 'https://[fd00::1]', 'https://100.64.1.1', 'https://[::ffff:192.168.0.1]']

  test('https to a private, link-local or unique-local address is 400 naming carrier.api_base_url; nothing saved', async () => {
    const h = createHarness()
    try {
      const orgId = (await h.admin('POST', '/orgs', { name: 'Acme' })).body.data.id
      for (const url of PRIVATE) {
        const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { ...TWILIO, api_base_url: url } })
        expectError(r, 400, 'invalid_request', 'carrier.api_base_url')
        expect(r.body.error.reason).toBe('private_address')
        expect(h.services.stores.orgs.carrier(orgId)).toBeUndefined()
      }
      // Creating an organization with one is refused the same way.
      expectError(await h.admin('POST', '/orgs', { name: 'B', carrier: { ...TWILIO, api_base_url: PRIVATE[0] } }), 400, 'invalid_request', 'carrier.api_base_url')
      // Loopback, as today, and a public address are fine.
      for (const url of ['https://127.0.0.1:8443', 'http://127.0.0.1:9999', 'https://8.8.8.8']) {
        expect((await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { ...TWILIO, api_base_url: url } })).status).toBe(200)
      }
    } finally {
      h.close()
    }
  })

  test('DIALER_CARRIER_ALLOW_PRIVATE=1 accepts them', async () => {
    const h = createHarness({ env: { DIALER_CARRIER_ALLOW_PRIVATE: '1' } })
    try {
      const orgId = (await h.admin('POST', '/orgs', { name: 'Acme' })).body.data.id
      for (const url of PRIVATE) {
        const r = await h.admin('PATCH', `/orgs/${orgId}`, { carrier: { ...TWILIO, api_base_url: url } })
        expect(r.status).toBe(200)
        expect(r.body.data.carrier.api_base_url).toBe(new URL(url).origin)
      }
    } finally {
      h.close()
    }
  })
})

describe('a start whose secret key cannot open the sealed tokens', () => {
  test('a missing secret.key stops the start naming it, and no new key is written; the right key starts it again', async () => {
    const dir = scratchDir()
    const env = { DIALER_DATA_DIR: dir.path, DIALER_DATABASE: join(dir.path, 'dialer.db') }
    const keyFile = join(dir.path, 'secret.key')
    try {
      const h1 = createHarness({ env })
      const orgId = (await h1.admin('POST', '/orgs', { name: 'Acme', carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+14155550100'] } })).body.data.id
      h1.close()
      const saved = await Bun.file(keyFile).text()
      rmSync(keyFile)
      let error: unknown = null
      try {
        createHarness({ env }).close()
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toContain(keyFile)
      expect(existsSync(keyFile)).toBe(false)
      // DIALER_SECRET_KEY set to another key: stopped, naming the variable.
      expect(() => createHarness({ env: { ...env, DIALER_SECRET_KEY: 'ab'.repeat(32) } })).toThrow(/DIALER_SECRET_KEY/)
      // The key restored: the start goes on and the token opens.
      await Bun.write(keyFile, saved)
      const { chmodSync } = await import('node:fs')
      chmodSync(keyFile, 0o600)
      const h2 = createHarness({ env })
      try {
        expect(h2.services.orgs.carrier(orgId)).toMatchObject({ kind: 'twilio', authToken: TOKEN })
      } finally {
        h2.close()
      }
      // Without any sealed token a missing key is minted as before.
      const fresh = scratchDir()
      try {
        createHarness({ env: { DIALER_DATA_DIR: fresh.path, DIALER_DATABASE: join(fresh.path, 'dialer.db') } }).close()
        expect(existsSync(join(fresh.path, 'secret.key'))).toBe(true)
      } finally {
        fresh.remove()
      }
    } finally {
      dir.remove()
    }
  })
})
