import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { OrgCarrierRow } from '../../src/db/stores/org-store'
import {
  carrierRow, carrierView, checkApiBaseUrl, checkCarrier, checkE164, checkMediaUrl, isLoopbackHost, openCarrier, tokenContext,
  type CarrierInput,
} from '../../src/domain/orgs/carrier-settings'
import { secretBox, SecretBoxError } from '../../src/domain/secrets/secret-box'
import { ApiError } from '../../src/errors'

setDefaultTimeout(60_000)

// The rules of an organization's carrier settings (issue 18, item 2 and "Bad input").

const SID = `AC${'0a'.repeat(16)}`
const TOKEN = 'be'.repeat(16)
const TWILIO: CarrierInput = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+14155550100'] }
const box = secretBox(Buffer.alloc(32, 3))

/** The 400's param, failing the test when it passes or throws anything else. */
function paramOf(work: () => unknown): string | null {
  try {
    work()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe('invalid_request')
    return (error as ApiError).param
  }
  throw new Error('expected a 400')
}

const stored = (over: Partial<OrgCarrierRow> = {}): OrgCarrierRow => ({
  orgId: 'org-1', kind: 'twilio', accountSid: SID, authTokenSealed: box.seal(TOKEN, tokenContext('org-1')), callerIds: ['+14155550100'],
  apiBaseUrl: 'https://api.twilio.com', machineDetection: true, created: 1, updated: 1, ...over,
})

describe('checkCarrier', () => {
  test('Twilio with defaults: Twilio’s endpoint, machine detection on', () => {
    expect(checkCarrier(TWILIO, undefined)).toEqual({
      kind: 'twilio', accountSid: SID, authToken: TOKEN, callerIds: ['+14155550100'], apiBaseUrl: 'https://api.twilio.com', machineDetection: true,
    })
    expect(checkCarrier({ kind: 'simulator' }, stored())).toEqual({ kind: 'simulator' })
  })

  test.each<[string, CarrierInput, OrgCarrierRow | undefined, string]>([
    ['simulator with a Twilio field', { kind: 'simulator', caller_ids: [] }, undefined, 'carrier.caller_ids'],
    ['no SID', { kind: 'twilio', auth_token: TOKEN, caller_ids: ['+14155550100'] }, undefined, 'carrier.account_sid'],
    ['an SK key instead of the account SID', { ...TWILIO, account_sid: `SK${'0a'.repeat(16)}` }, undefined, 'carrier.account_sid'],
    ['a SID of 31 hex digits', { ...TWILIO, account_sid: SID.slice(0, -1) }, undefined, 'carrier.account_sid'],
    ['a token of 31 hex digits', { ...TWILIO, auth_token: TOKEN.slice(1) }, undefined, 'carrier.auth_token'],
    ['a token that is not hex', { ...TWILIO, auth_token: 'z'.repeat(32) }, undefined, 'carrier.auth_token'],
    ['no caller IDs', { ...TWILIO, caller_ids: undefined }, undefined, 'carrier.caller_ids'],
    ['a local-format caller ID', { ...TWILIO, caller_ids: ['+14155550100', '4155550101'] }, undefined, 'carrier.caller_ids[1]'],
    ['a UK caller ID', { ...TWILIO, caller_ids: ['+442071838750'] }, undefined, 'carrier.caller_ids[0]'],
    ['a repeated caller ID', { ...TWILIO, caller_ids: ['+14155550100', '+14155550100'] }, undefined, 'carrier.caller_ids[1]'],
    ['http to a public host', { ...TWILIO, api_base_url: 'http://api.twilio.com' }, undefined, 'carrier.api_base_url'],
    ['no token and nothing stored', { ...TWILIO, auth_token: undefined }, undefined, 'carrier.auth_token'],
    ['no token and another account', { ...TWILIO, auth_token: undefined, account_sid: `AC${'1b'.repeat(16)}` }, stored(), 'carrier.auth_token'],
    ['no token and another endpoint', { ...TWILIO, auth_token: undefined, api_base_url: 'https://twilio.example.com' }, stored(), 'carrier.auth_token'],
  ])('%s: 400 naming %s', (_, input, row, param) => {
    expect(paramOf(() => checkCarrier(input, row))).toBe(param)
  })

  test('no token with the same account and endpoint keeps the stored one (null)', () => {
    expect(checkCarrier({ ...TWILIO, auth_token: undefined, api_base_url: 'https://api.twilio.com/' }, stored())).toMatchObject({ authToken: null })
  })

  test('the token is never in an error message', () => {
    for (const input of [{ ...TWILIO, auth_token: `${TOKEN}x` }, { ...TWILIO, auth_token: 'secret-but-malformed' }]) {
      try {
        checkCarrier(input, undefined)
      } catch (error) {
        expect((error as Error).message).not.toContain(input.auth_token!)
      }
    }
  })
})

describe('checkApiBaseUrl and isLoopbackHost', () => {
  test.each([
    ['https://api.twilio.com', 'https://api.twilio.com'],
    ['https://api.twilio.com/', 'https://api.twilio.com'],
    ['https://proxy.example.com/twilio/', 'https://proxy.example.com/twilio'],
    ['http://localhost:3901', 'http://localhost:3901'],
    ['http://127.0.0.1:3901', 'http://127.0.0.1:3901'],
    ['http://127.8.9.10', 'http://127.8.9.10'],
    ['http://[::1]:3901', 'http://[::1]:3901'],
    ['http://[::ffff:127.0.0.1]:3901', 'http://[::ffff:7f00:1]:3901'],
  ])('%s is taken as %s', (raw, url) => {
    expect(checkApiBaseUrl(raw, 'p')).toBe(url)
  })

  test.each([
    'http://api.twilio.com', 'http://10.0.0.5', 'http://192.168.1.2:3901', 'http://[fe80::1]', 'http://0.0.0.0', 'http://localhost.example.com',
    'https://u:p@api.twilio.com', 'https://api.twilio.com?x=1', 'https://api.twilio.com#f', 'ftp://127.0.0.1', 'api.twilio.com', '',
  ])('%p is refused', (raw) => {
    expect(paramOf(() => checkApiBaseUrl(raw, 'carrier.api_base_url'))).toBe('carrier.api_base_url')
  })

  test.each([
    ['localhost', true], ['127.0.0.1', true], ['127.255.255.254', true], ['[::1]', true], ['::1', true], ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false], ['0.0.0.0', false], ['api.twilio.com', false], ['[::]', false], ['128.0.0.1', false],
  ])('isLoopbackHost(%p) is %p', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })
})

describe('checkE164 and checkMediaUrl', () => {
  test.each(['+14155550100', '+12125550123', '+16045550199', '+12125550101'])('%s is a US or Canadian number', (phone) => {
    expect(checkE164(phone, 'sdrs[0].phone', 'a phone')).toBe(phone)
  })

  test.each(['4155550100', '14155550100', '+1 415 555 0100', '+442071838750', '+11155550100', '+14151550100', '+1415555010', '+141555501000'])('%p is refused', (phone) => {
    expect(paramOf(() => checkE164(phone, 'sdrs[0].phone', 'a phone'))).toBe('sdrs[0].phone')
  })

  test('a voicemail file: https (a query is fine) or http to loopback', () => {
    expect(checkMediaUrl('https://cdn.example.com/vm.mp3?sig=abc', 'v')).toBe('https://cdn.example.com/vm.mp3?sig=abc')
    expect(checkMediaUrl('http://127.0.0.1:9000/vm.wav', 'v')).toBe('http://127.0.0.1:9000/vm.wav')
    for (const bad of ['http://cdn.example.com/vm.mp3', 'https://u:p@cdn.example.com/vm.mp3', 'file:///etc/passwd', 'vm.mp3']) {
      expect(paramOf(() => checkMediaUrl(bad, 'voicemail.audio_url'))).toBe('voicemail.audio_url')
    }
  })
})

describe('stored settings', () => {
  test('a row seals the token for its organization; the view never holds it; the dial settings open it', () => {
    const row = carrierRow('org-1', checkCarrier(TWILIO, undefined), undefined, box, 1000)!
    expect(row.authTokenSealed).not.toContain(TOKEN)
    const view = carrierView(row)
    expect(view).toEqual({ kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100'], api_base_url: 'https://api.twilio.com', machine_detection: true, auth_token_set: true })
    expect(JSON.stringify(view)).not.toContain(TOKEN)
    expect(JSON.stringify(view)).not.toContain(row.authTokenSealed)
    expect(openCarrier(row, box)).toMatchObject({ kind: 'twilio', authToken: TOKEN })
  })

  test('a patch without a token keeps the sealed one and the first created time', () => {
    const before = stored({ created: 5 })
    const row = carrierRow('org-1', checkCarrier({ ...TWILIO, auth_token: undefined, machine_detection: false }, before), before, box, 9000)!
    expect(row).toMatchObject({ authTokenSealed: before.authTokenSealed, machineDetection: false, created: 5, updated: 9000 })
  })

  test('a sealed token opens only for its organization and under its key', () => {
    const row = stored()
    expect(() => openCarrier({ ...row, orgId: 'org-2' }, box)).toThrow(SecretBoxError)
    expect(() => openCarrier(row, secretBox(Buffer.alloc(32, 4)))).toThrow(SecretBoxError)
  })

  test('no row: the simulator', () => {
    expect(carrierView(undefined)).toEqual({ kind: 'simulator' })
    expect(openCarrier(undefined, box)).toEqual({ kind: 'simulator' })
    expect(carrierRow('org-1', { kind: 'simulator' }, stored(), box, 1)).toBeNull()
  })
})
