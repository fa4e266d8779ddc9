import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { OrgCarrierRow } from '../../src/db/stores/org-store'
import { callsInProgress, carrierRow, changesPlacedCalls, type CarrierInput } from '../../src/domain/orgs/carrier-settings'
import { secretBox } from '../../src/domain/secrets/secret-box'
import { ApiError } from '../../src/errors'
import { carrierRules } from '../../src/telephony/registry'
import { twilioRules } from '../../src/telephony/twilio/settings'
import { box, checkApiBaseUrl, checkCarrier, OTHER_SID, TOKEN, TWILIO } from './carrier-fixtures'
import { thrownBy } from './thrown'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// The carrier's endpoint may not be a private address (the account's credentials go there), and
// what calls already placed rely on cannot change under them.

const NEW_TOKEN = 'a1'.repeat(16)

const errorOf = (work: () => unknown) => thrownBy(ApiError, work)

describe('checkApiBaseUrl: private addresses', () => {
  test.each([
    ['10/8', 'https://10.0.0.1'],
    ['172.16/12', 'https://172.16.5.4:8443/twilio'],
    ['192.168/16', 'https://192.168.1.20'],
    ['link-local (cloud metadata)', 'https://169.254.169.254'],
    ['CGNAT', 'https://100.64.0.1'],
    ['unspecified', 'https://0.0.0.0'],
    ['multicast', 'https://224.0.0.1'],
    ['broadcast', 'https://255.255.255.255'],
    ['IPv6 unique-local', 'https://[fd00::1]'],
    ['IPv6 link-local', 'https://[fe80::1]'],
    ['IPv6 unspecified', 'https://[::]'],
    ['IPv6 multicast', 'https://[ff02::1]'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]'],
    ['a decimal spelling of 10.0.0.1', 'https://167772161'],
    ['a hex spelling of 169.254.169.254', 'https://0xa9.0xfe.0xa9.0xfe'],
  ])('https to %s (%s) is 400 naming the param, reason private_address', (_, raw) => {
    const error = errorOf(() => checkApiBaseUrl(raw, 'carrier.api_base_url'))
    expect(error.status).toBe(400)
    expect(error.code).toBe('invalid_request')
    expect(error.param).toBe('carrier.api_base_url')
    expect(error.extras.reason).toBe('private_address')
  })

  test.each([
    ['https://10.0.0.1', 'https://10.0.0.1'],
    ['https://169.254.169.254/', 'https://169.254.169.254'],
    ['https://[fd00::1]:8443', 'https://[fd00::1]:8443'],
  ])('with allowPrivate %s is taken', (raw, url) => {
    expect(checkApiBaseUrl(raw, 'carrier.api_base_url', true)).toBe(url)
  })

  test.each([
    ['https://api.twilio.com', 'https://api.twilio.com'],
    ['https://8.8.8.8', 'https://8.8.8.8'],
    ['https://[2606:4700::1111]', 'https://[2606:4700::1111]'],
    // Loopback stays allowed, as plain http to it is (tests, a local emulator).
    ['https://127.0.0.1:3901', 'https://127.0.0.1:3901'],
    ['https://[::1]:3901', 'https://[::1]:3901'],
    ['http://127.0.0.1:3901', 'http://127.0.0.1:3901'],
    ['https://localhost', 'https://localhost'],
    // Names are not resolved when saved (docs/decisions.md).
    ['https://twilio-proxy.internal.example', 'https://twilio-proxy.internal.example'],
  ])('%s is still taken without allowPrivate', (raw, url) => {
    expect(checkApiBaseUrl(raw, 'carrier.api_base_url')).toBe(url)
  })

  test('allowPrivate does not open plain http to a private address', () => {
    expect(errorOf(() => checkApiBaseUrl('http://10.0.0.1', 'carrier.api_base_url', true)).param).toBe('carrier.api_base_url')
  })

  test('checkCarrier passes allowPrivate on', () => {
    const input = { ...TWILIO, api_base_url: 'https://10.1.2.3' }
    expect(errorOf(() => checkCarrier(input, undefined)).param).toBe('carrier.api_base_url')
    expect(checkCarrier(input, undefined, 'carrier', true)).toMatchObject({ settings: { api_base_url: 'https://10.1.2.3' } })
  })
})

describe('changesPlacedCalls', () => {
  const stored: OrgCarrierRow = carrierRow(carrierRules, 'org-1', checkCarrier(TWILIO, undefined), undefined, box, 1)!
  const change = (input: CarrierInput, row: OrgCarrierRow | undefined = stored) => changesPlacedCalls(carrierRules, row, checkCarrier(input, row), box)
  const noToken = { ...TWILIO, auth_token: undefined }

  test.each<[string, CarrierInput]>([
    ['to the simulator', { kind: 'simulator' }],
    ['to another account', { ...TWILIO, account_sid: OTHER_SID, auth_token: NEW_TOKEN }],
    ['to another token', { ...TWILIO, auth_token: NEW_TOKEN }],
    ['to another endpoint', { ...TWILIO, api_base_url: 'https://twilio-proxy.example.com' }],
  ])('a change %s does', (_, input) => {
    expect(change(input)).toBe(true)
  })

  test.each<[string, CarrierInput]>([
    ['the same settings, token left out', noToken],
    ['the same token sent again', TWILIO],
    ['other caller IDs', { ...noToken, caller_ids: ['+12125550123'] }],
    ['machine detection off', { ...noToken, machine_detection: false }],
  ])('%s does not', (_, input) => {
    expect(change(input)).toBe(false)
  })

  test('a stored token that no longer opens counts as changed when a token is sent', () => {
    const sealedElsewhere = { ...stored, secretsSealed: { auth_token: secretBox(Buffer.alloc(32, 0x77)).seal(TOKEN, 'org:org-1:twilio_auth_token') } }
    expect(changesPlacedCalls(carrierRules, sealedElsewhere, checkCarrier(TWILIO, sealedElsewhere), box)).toBe(true)
  })

  test('nothing stored (the simulator): no call relies on Twilio settings', () => {
    expect(change(TWILIO, undefined)).toBe(false)
  })

  test('callsInProgress is 409 calls_in_progress naming carrier', () => {
    const error = callsInProgress(2, twilioRules.inProgress)
    expect(error.status).toBe(409)
    expect(error.code).toBe('calls_in_progress')
    expect(error.type).toBe('invalid_request_error')
    expect(error.param).toBe('carrier')
    expect(error.message).toBe(
      'The organization has 2 carrier calls in progress; its carrier, account, auth token and endpoint can change once they have ended ' +
        '(pause its campaigns, wait, and send it again). Caller IDs and machine detection can change now.',
    )
  })
})
