import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ApiError } from '../../src/errors'
import { isRawEd25519Key, telnyxCli, telnyxRules } from '../../src/telephony/telnyx/settings'
import { keyPairFromSeed } from '../emulators/telnyx/telnyx-signing'

setDefaultTimeout(60_000)

// carrier.kind "telnyx": every field's check names its param; the API key is write-only and kept only where it already went.

const PUBLIC_KEY = keyPairFromSeed().publicKey
const VALID = {
  account_sid: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', api_key: 'KEY0123456789ABCDEF_test', application_sid: '1773070540731319841',
  public_key: PUBLIC_KEY, caller_ids: ['+14155550100'],
}
const check = (fields: Record<string, unknown>, stored?: Record<string, unknown>) => telnyxRules.check(fields, stored, { param: 'carrier', allowPrivate: false })
const paramOf = (fields: Record<string, unknown>, stored?: Record<string, unknown>): string | null => {
  try {
    check(fields, stored)
    return null
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return error.param ?? null
  }
}

describe('telnyx settings', () => {
  test('valid settings: the key is the only secret; defaults for the endpoint and detection', () => {
    const checked = check(VALID)
    expect(checked.secrets).toEqual({ api_key: VALID.api_key })
    expect(checked.settings).toEqual({ ...VALID, api_key: undefined, api_base_url: 'https://api.telnyx.com', machine_detection: true } as never)
    expect(JSON.stringify(telnyxRules.view(checked.settings))).not.toContain(VALID.api_key)
    expect(telnyxRules.secrets).toEqual(['api_key'])
  })

  const bad: [string, Record<string, unknown>, string][] = [
    ['no account', { account_sid: undefined }, 'carrier.account_sid'],
    ['an account that is not a UUID', { account_sid: 'AC' + 'a'.repeat(32) }, 'carrier.account_sid'],
    ['a key without KEY', { api_key: 'abc0123456789' }, 'carrier.api_key'],
    ['a key too short', { api_key: 'KEY123' }, 'carrier.api_key'],
    ['a key with a space', { api_key: 'KEY0123 456789' }, 'carrier.api_key'],
    ['a key with a control character', { api_key: 'KEY0123456789\n' }, 'carrier.api_key'],
    ['a key too long', { api_key: `KEY${'a'.repeat(198)}` }, 'carrier.api_key'],
    ['no application', { application_sid: undefined }, 'carrier.application_sid'],
    ['an application that is not digits', { application_sid: 'app-1' }, 'carrier.application_sid'],
    ['an application of 33 digits', { application_sid: '1'.repeat(33) }, 'carrier.application_sid'],
    ['no public key', { public_key: undefined }, 'carrier.public_key'],
    ['a public key of 31 bytes', { public_key: Buffer.alloc(31, 1).toString('base64') }, 'carrier.public_key'],
    ['a public key of 33 bytes', { public_key: Buffer.alloc(33, 1).toString('base64') }, 'carrier.public_key'],
    ['a public key in PEM', { public_key: `-----BEGIN PUBLIC KEY-----${PUBLIC_KEY}` }, 'carrier.public_key'],
    ['a public key in base64url', { public_key: PUBLIC_KEY.replace(/\+/g, '-').replace(/\//g, '_') + (PUBLIC_KEY.includes('+') || PUBLIC_KEY.includes('/') ? '' : '-') }, 'carrier.public_key'],
    ['no caller IDs', { caller_ids: [] }, 'carrier.caller_ids'],
    ['a caller ID not in E.164', { caller_ids: ['4155550100'] }, 'carrier.caller_ids[0]'],
    ['a repeated caller ID', { caller_ids: ['+14155550100', '+14155550100'] }, 'carrier.caller_ids[1]'],
    ['plain http to a public host', { api_base_url: 'http://api.telnyx.com' }, 'carrier.api_base_url'],
    ['no key, nothing stored', { api_key: undefined }, 'carrier.api_key'],
  ]
  for (const [name, change, param] of bad) {
    test(`400 for ${name}: param ${param}`, () => expect(paramOf({ ...VALID, ...change })).toBe(param))
  }

  test('without a key the stored one is kept for the same account at the same endpoint, and required when either changes', () => {
    const stored = check(VALID).settings
    const { api_key: _, ...noKey } = VALID
    expect(check(noKey, stored).secrets).toEqual({})
    expect(paramOf({ ...noKey, account_sid: '00000000-0000-4000-8000-000000000000' }, stored)).toBe('carrier.api_key')
    expect(paramOf({ ...noKey, api_base_url: 'http://127.0.0.1:9' }, stored)).toBe('carrier.api_key')
    // http to loopback is allowed (a local emulator).
    expect(check({ ...VALID, api_base_url: 'http://127.0.0.1:9' }).settings.api_base_url).toBe('http://127.0.0.1:9')
  })

  test('calls in progress are stranded by a new account, endpoint, public key or key; not by caller IDs or the application', () => {
    const stored = check(VALID)
    const strands = (change: Record<string, unknown>) =>
      telnyxRules.strandsCalls({ settings: stored.settings, secret: () => VALID.api_key }, check({ ...VALID, ...change }, stored.settings))
    expect(strands({ caller_ids: ['+12125550100'], application_sid: '42', machine_detection: false })).toBe(false)
    expect(strands({ public_key: keyPairFromSeed('another-key-that-telnyx-never-us').publicKey })).toBe(true)
    expect(strands({ api_key: 'KEYanother0123456' })).toBe(true)
    expect(strands({ api_base_url: 'http://127.0.0.1:9' })).toBe(true)
  })

  test('isRawEd25519Key: base64 of exactly 32 bytes, canonical', () => {
    expect(isRawEd25519Key(PUBLIC_KEY)).toBe(true)
    expect(isRawEd25519Key(PUBLIC_KEY.slice(0, -1))).toBe(false)
    expect(isRawEd25519Key(`${PUBLIC_KEY}=`)).toBe(false)
  })

  test('the CLI body: flags to fields; the key comes from a file or stdin, not both', () => {
    expect(telnyxCli.body({ account_sid: VALID.account_sid, application_sid: '42', public_key: PUBLIC_KEY, caller_id: ['+14155550100', ''], machine_detection: false }))
      .toEqual({ account_sid: VALID.account_sid, application_sid: '42', public_key: PUBLIC_KEY, caller_ids: ['+14155550100'], machine_detection: false })
    expect(() => telnyxCli.body({ api_key_file: 'k', api_key_stdin: true })).toThrow('not both')
  })
})
