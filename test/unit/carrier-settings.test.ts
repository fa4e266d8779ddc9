import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { OrgCarrierRow } from '../../src/db/stores/org-store'
import { checkE164, checkMediaUrl, isLoopbackHost } from '../../src/domain/orgs/carrier-fields'
import {
  callsInProgress, carrierRow as rowWith, carrierView as viewWith, changesPlacedCalls, checkCarrier as checkWith, dialSettings, openCarrier as openWith,
  secretContext, type CarrierInput, type CarrierRules, type CarrierSettingsRules, type OpenedCarrier,
} from '../../src/domain/orgs/carrier-settings'
import { secretBox, SecretBoxError, type SecretBox } from '../../src/domain/secrets/secret-box'
import { ApiError } from '../../src/errors'
import { CARRIER_KINDS, CARRIERS, carrierRules, DEFAULT_CARRIER } from '../../src/telephony/registry'
import { DEFAULT_TWILIO_API, type TwilioSettings } from '../../src/telephony/twilio/settings'
import { box, CALLER, checkApiBaseUrl, checkCarrier, OTHER_SID, SID, TOKEN, TWILIO } from './carrier-fixtures'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Issue 18: an organization's carrier settings, as the admin API checks, stores and shows them.

const NEW_TOKEN = 'A1'.repeat(16)
const NOW = 1_767_625_200_000

// The domain's functions with the registry's rules (Twilio's), as the organization service calls them.
const carrierRow = (orgId: string, checked: ReturnType<typeof checkCarrier>, stored: OrgCarrierRow | undefined, secrets: SecretBox, now: number) =>
  rowWith(carrierRules, orgId, checked, stored, secrets, now)
const carrierView = (row: OrgCarrierRow | undefined) => viewWith(carrierRules, row)
const openCarrier = (row: OrgCarrierRow | undefined, secrets: SecretBox) => openWith(carrierRules, row, secrets)
/** Twilio's stored settings (its auth token apart). */
const twilioSettings = (callerIds = [CALLER], apiBaseUrl = DEFAULT_TWILIO_API, machineDetection = true) =>
  ({ account_sid: SID, caller_ids: callerIds, api_base_url: apiBaseUrl, machine_detection: machineDetection })

/** The param of the 400 `work` throws; fails the test when it passes or throws anything but a 400 invalid_request. */
function paramOf(work: () => unknown): string | null {
  try {
    work()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    const apiError = error as ApiError
    expect(apiError.status).toBe(400)
    expect(apiError.code).toBe('invalid_request')
    expect(apiError.type).toBe('invalid_request_error')
    return apiError.param
  }
  throw new Error('expected a 400 invalid_request')
}

/** The message of the 400 `work` throws. */
function messageOf(work: () => unknown): string {
  try {
    work()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected a 400')
}

/** A stored row as carrierRow makes it (the token sealed for its organization). */
function storedRow(input: CarrierInput = TWILIO, orgId = 'org-1'): OrgCarrierRow {
  return carrierRow(orgId, checkCarrier(input, undefined), undefined, box, NOW)!
}

describe('checkCarrier', () => {
  test('Twilio with only the required fields: Twilio’s endpoint and machine detection filled in', () => {
    expect(checkCarrier(TWILIO, undefined)).toEqual({ kind: 'twilio', settings: twilioSettings(), secrets: { auth_token: TOKEN } })
    expect(DEFAULT_TWILIO_API).toBe('https://api.twilio.com')
  })

  test('Twilio with every field: taken as sent, the endpoint normalized, the caller IDs copied', () => {
    const callerIds = [CALLER, '+12125550123', '+16045550199']
    const checked = checkCarrier(
      { ...TWILIO, auth_token: NEW_TOKEN, caller_ids: callerIds, api_base_url: 'http://127.0.0.1:3901/twilio/', machine_detection: false },
      undefined,
    )
    expect(checked).toEqual({
      kind: 'twilio', settings: twilioSettings(callerIds, 'http://127.0.0.1:3901/twilio', false), secrets: { auth_token: NEW_TOKEN },
    })
    expect(checked.settings.caller_ids).not.toBe(callerIds)
  })

  test('the simulator alone is the simulator, whatever is stored', () => {
    expect(checkCarrier({ kind: 'simulator' }, undefined)).toEqual({ kind: 'simulator', settings: {}, secrets: {} })
    expect(checkCarrier({ kind: 'simulator' }, storedRow())).toEqual({ kind: 'simulator', settings: {}, secrets: {} })
  })

  test.each<[keyof CarrierInput, unknown]>([
    ['account_sid', SID], ['auth_token', TOKEN], ['caller_ids', [CALLER]], ['caller_ids', []],
    ['api_base_url', DEFAULT_TWILIO_API], ['machine_detection', false],
  ])('the simulator with %s: 400 naming carrier.%s', (field, value) => {
    expect(paramOf(() => checkCarrier({ kind: 'simulator', [field]: value } as CarrierInput, undefined))).toBe(`carrier.${field}`)
    // Telnyx shares every Twilio field but the token.
    const takers = field === 'auth_token' ? '"twilio"' : '"twilio" or "telnyx"'
    expect(messageOf(() => checkCarrier({ kind: 'simulator', [field]: value } as CarrierInput, undefined))).toBe(`carrier.${field} is taken only with kind ${takers}.`)
  })

  test('params are named under the prefix the caller gives', () => {
    expect(paramOf(() => checkCarrier({ kind: 'simulator', auth_token: TOKEN }, undefined, 'orgs[2].carrier'))).toBe('orgs[2].carrier.auth_token')
    expect(paramOf(() => checkCarrier({ ...TWILIO, caller_ids: ['+15'] }, undefined, 'org.carrier'))).toBe('org.carrier.caller_ids[0]')
  })

  test.each<[string, CarrierInput, string]>([
    // Account SID: "AC" and 32 lowercase hex digits.
    ['no SID', { kind: 'twilio', auth_token: TOKEN, caller_ids: [CALLER] }, 'carrier.account_sid'],
    ['an empty SID', { ...TWILIO, account_sid: '' }, 'carrier.account_sid'],
    ['a SID of 31 hex digits', { ...TWILIO, account_sid: SID.slice(0, -1) }, 'carrier.account_sid'],
    ['a SID of 33 hex digits', { ...TWILIO, account_sid: `${SID}0` }, 'carrier.account_sid'],
    ['a SID in upper-case hex', { ...TWILIO, account_sid: `AC${SID.slice(2).toUpperCase()}` }, 'carrier.account_sid'],
    ['a lower-case "ac" prefix', { ...TWILIO, account_sid: `ac${SID.slice(2)}` }, 'carrier.account_sid'],
    ['an API key SID (SK)', { ...TWILIO, account_sid: `SK${SID.slice(2)}` }, 'carrier.account_sid'],
    ['a SID with spaces around', { ...TWILIO, account_sid: ` ${SID} ` }, 'carrier.account_sid'],
    // Auth token: 32 hex digits.
    ['a token of 31 hex digits', { ...TWILIO, auth_token: TOKEN.slice(1) }, 'carrier.auth_token'],
    ['a token of 33 hex digits', { ...TWILIO, auth_token: `${TOKEN}0` }, 'carrier.auth_token'],
    ['an empty token', { ...TWILIO, auth_token: '' }, 'carrier.auth_token'],
    ['a token that is not hex', { ...TWILIO, auth_token: 'g'.repeat(32) }, 'carrier.auth_token'],
    // Caller IDs: at least one, each +1 E.164 and US or Canadian, none twice.
    ['no caller IDs', { ...TWILIO, caller_ids: undefined }, 'carrier.caller_ids'],
    ['an empty caller ID list', { ...TWILIO, caller_ids: [] }, 'carrier.caller_ids'],
    ['a caller ID without +', { ...TWILIO, caller_ids: [CALLER, '4155550101'] }, 'carrier.caller_ids[1]'],
    ['a caller ID of 11 digits without +', { ...TWILIO, caller_ids: ['14155550101'] }, 'carrier.caller_ids[0]'],
    ['a caller ID with spaces', { ...TWILIO, caller_ids: ['+1 415 555 0101'] }, 'carrier.caller_ids[0]'],
    ['a UK caller ID', { ...TWILIO, caller_ids: [CALLER, '+12125550123', '+442071838750'] }, 'carrier.caller_ids[2]'],
    ['a Jamaican (NANP, not US or Canada) caller ID', { ...TWILIO, caller_ids: ['+18762345678'] }, 'carrier.caller_ids[0]'],
    ['a premium-rate caller ID', { ...TWILIO, caller_ids: ['+19002345678'] }, 'carrier.caller_ids[0]'],
    ['an N11 area code', { ...TWILIO, caller_ids: ['+12112345678'] }, 'carrier.caller_ids[0]'],
    ['a repeated caller ID', { ...TWILIO, caller_ids: [CALLER, '+12125550123', CALLER] }, 'carrier.caller_ids[2]'],
    // Endpoint.
    ['http to Twilio', { ...TWILIO, api_base_url: 'http://api.twilio.com' }, 'carrier.api_base_url'],
    ['an endpoint that is no URL', { ...TWILIO, api_base_url: 'api.twilio.com' }, 'carrier.api_base_url'],
  ])('%s: 400 naming %s', (_, input, param) => {
    expect(paramOf(() => checkCarrier(input, undefined))).toBe(param)
  })

  test('a malformed token is never echoed in the message', () => {
    for (const token of [`${TOKEN}ff`, 'my-secret-password-not-hex-000000']) {
      try {
        checkCarrier({ ...TWILIO, auth_token: token }, undefined)
        throw new Error('expected a 400')
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError)
        expect((error as ApiError).message).not.toContain(token)
      }
    }
  })

  describe('a missing auth_token', () => {
    const stored = storedRow()
    const noToken = { ...TWILIO, auth_token: undefined }

    test('keeps the stored token when the account and endpoint stay the same (no secret sent)', () => {
      expect(checkCarrier({ ...noToken, caller_ids: ['+12125550123'], machine_detection: false }, stored)).toEqual({
        kind: 'twilio', settings: twilioSettings(['+12125550123'], DEFAULT_TWILIO_API, false), secrets: {},
      })
      // The same endpoint written another way is the same endpoint.
      expect(checkCarrier({ ...noToken, api_base_url: 'https://API.twilio.com:443/' }, stored)).toMatchObject({ secrets: {} })
    })

    test.each<[string, CarrierInput, OrgCarrierRow | undefined]>([
      ['nothing is stored', noToken, undefined],
      ['the account changes', { ...noToken, account_sid: OTHER_SID }, stored],
      ['the endpoint changes', { ...noToken, api_base_url: 'https://twilio-proxy.example.com' }, stored],
      ['the endpoint’s path changes', { ...noToken, api_base_url: 'https://api.twilio.com/v2' }, stored],
    ])('is refused when %s: 400 naming carrier.auth_token', (_, input, row) => {
      expect(paramOf(() => checkCarrier(input, row))).toBe('carrier.auth_token')
    })

    test('a new token with a new account is taken', () => {
      expect(checkCarrier({ ...TWILIO, account_sid: OTHER_SID, auth_token: NEW_TOKEN }, stored)).toMatchObject({
        settings: { account_sid: OTHER_SID }, secrets: { auth_token: NEW_TOKEN },
      })
    })
  })
})

describe('checkApiBaseUrl', () => {
  test.each([
    ['https://api.twilio.com', 'https://api.twilio.com'],
    ['https://api.twilio.com/', 'https://api.twilio.com'],
    ['https://API.Twilio.COM:443/', 'https://api.twilio.com'],
    ['https://twilio-proxy.example.com:8443/base//', 'https://twilio-proxy.example.com:8443/base'],
    ['http://localhost:3901/', 'http://localhost:3901'],
    ['http://127.0.0.1:3901', 'http://127.0.0.1:3901'],
    ['http://127.42.0.9/emulator', 'http://127.42.0.9/emulator'],
    ['http://[::1]:3901/', 'http://[::1]:3901'],
    ['http://[::ffff:127.0.0.1]:3901', 'http://[::ffff:7f00:1]:3901'],
  ])('%s is taken as %s', (raw, url) => {
    expect(checkApiBaseUrl(raw, 'carrier.api_base_url')).toBe(url)
  })

  test.each([
    ['http to a public host', 'http://api.twilio.com'],
    ['http to 10.x', 'http://10.0.0.5:3901'],
    ['http to 192.168.x', 'http://192.168.1.20'],
    ['http to 172.16.x', 'http://172.16.0.1'],
    ['http to 0.0.0.0', 'http://0.0.0.0:3901'],
    ['http to an IPv4-mapped private address', 'http://[::ffff:10.0.0.1]'],
    ['http to a name that starts with localhost', 'http://localhost.example.com'],
    ['a user name', 'https://user@api.twilio.com'],
    ['a user name and password', 'https://user:pass@api.twilio.com'],
    ['a password alone', 'https://:pass@api.twilio.com'],
    ['a query', 'https://api.twilio.com/?region=us1'],
    ['a fragment', 'https://api.twilio.com/#top'],
    ['no scheme', 'api.twilio.com'],
    ['empty', ''],
    ['ftp', 'ftp://127.0.0.1/'],
    ['ws to loopback', 'ws://127.0.0.1:3901'],
  ])('%s (%s) is refused: 400 naming the param', (_, raw) => {
    expect(paramOf(() => checkApiBaseUrl(raw, 'carrier.api_base_url'))).toBe('carrier.api_base_url')
  })
})

describe('isLoopbackHost', () => {
  test.each<[string, boolean]>([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['127.255.255.254', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:7f00:1]', true],
    ['', false],
    ['128.0.0.1', false],
    ['126.255.255.255', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['::', false],
    ['[::]', false],
    ['fe80::1', false],
    ['::ffff:10.0.0.1', false],
    ['localhost.example.com', false],
    ['api.twilio.com', false],
  ])('%p: %p', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })
})

describe('checkE164', () => {
  // classifyPhone says: 555-0100..0199 is fictional in any area code; other numbers go by the area code's table.
  test.each([
    ['a US number', '+12122345678'],
    ['a Canadian number', '+16042345678'],
    ['a US toll-free number', '+18002345678'],
    ['the fictional 555-0100', '+14155550100'],
    ['the fictional 555-0199', '+14155550199'],
    ['a fictional Canadian number', '+14165550123'],
  ])('%s (%s) is taken as sent', (_, phone) => {
    expect(checkE164(phone, 'sdrs[0].phone', 'a phone')).toBe(phone)
  })

  test.each([
    ['no +', '4155550100'],
    ['11 digits without +', '14155550100'],
    ['spaces', '+1 415 555 0100'],
    ['dashes', '+1-415-555-0100'],
    ['one digit short', '+1415555010'],
    ['one digit long', '+141555501000'],
    ['a UK number', '+442071838750'],
    ['an area code starting with 1', '+11155550100'],
    ['an area code starting with 0', '+10155550100'],
    ['an N11 area code', '+12112345678'],
    ['the 911 area code', '+19112345678'],
    ['an exchange starting with 1', '+14151550100'],
    ['an exchange starting with 0', '+14150550100'],
    ['a premium-rate number', '+19002345678'],
    ['a Jamaican number', '+18762345678'],
    ['a Puerto Rican number (classified international)', '+17872345678'],
    ['an unassigned area code', '+19992345678'],
    ['empty', ''],
  ])('%s (%p) is refused: 400 naming the param', (_, phone) => {
    expect(paramOf(() => checkE164(phone, 'sdrs[0].phone', 'a phone'))).toBe('sdrs[0].phone')
  })
})

describe('checkMediaUrl', () => {
  test.each([
    ['https://cdn.example.com/vm.mp3?sig=abc&exp=1', 'https://cdn.example.com/vm.mp3?sig=abc&exp=1'],
    ['https://cdn.example.com', 'https://cdn.example.com/'],
    ['http://127.0.0.1:9000/vm.wav', 'http://127.0.0.1:9000/vm.wav'],
    ['http://localhost/vm.wav?x=1', 'http://localhost/vm.wav?x=1'],
    ['http://[::1]/vm.wav', 'http://[::1]/vm.wav'],
  ])('%s is taken as %s', (raw, url) => {
    expect(checkMediaUrl(raw, 'voicemail.audio_url')).toBe(url)
  })

  test.each([
    'http://cdn.example.com/vm.mp3', 'http://10.1.2.3/vm.mp3', 'https://user@cdn.example.com/vm.mp3', 'https://u:p@cdn.example.com/vm.mp3',
    'http://u:p@127.0.0.1/vm.mp3', 'file:///etc/passwd', 'ftp://cdn.example.com/vm.mp3', 'vm.mp3', '',
  ])('%p is refused: 400 naming the param', (raw) => {
    expect(paramOf(() => checkMediaUrl(raw, 'voicemail.audio_url'))).toBe('voicemail.audio_url')
  })
})

describe('stored settings', () => {
  test('carrierRow seals the token for its organization, with created and updated at now', () => {
    const row = storedRow()
    expect(row).toMatchObject({ orgId: 'org-1', kind: 'twilio', settings: twilioSettings(), created: NOW, updated: NOW })
    expect(Object.keys(row.secretsSealed)).toEqual(['auth_token'])
    expect(JSON.stringify(row)).not.toContain(TOKEN)
    // The context every token was sealed with before settings were stored per kind: old tokens still open.
    expect(secretContext('org-1', 'twilio', 'auth_token')).toBe('org:org-1:twilio_auth_token')
    expect(box.open(row.secretsSealed.auth_token!, 'org:org-1:twilio_auth_token')).toBe(TOKEN)
  })

  test('carrierView shows the settings but never the token nor its sealed value', () => {
    const row = storedRow()
    const view = carrierView(row)
    expect(view).toEqual({
      kind: 'twilio', account_sid: SID, caller_ids: [CALLER], api_base_url: DEFAULT_TWILIO_API, machine_detection: true, auth_token_set: true,
    })
    const json = JSON.stringify(view)
    expect(json).not.toContain(TOKEN)
    expect(json).not.toContain(row.secretsSealed.auth_token!)
    // Nor any part of the sealed value (nonce or ciphertext).
    for (const part of row.secretsSealed.auth_token!.split('.').slice(2)) expect(json).not.toContain(part)
    // In the order replies always had.
    expect(Object.keys(view)).toEqual(['kind', 'account_sid', 'caller_ids', 'api_base_url', 'machine_detection', 'auth_token_set'])
  })

  test('carrierRow without a new token keeps the stored sealed token and the first created time', () => {
    const before = storedRow()
    const checked = checkCarrier({ ...TWILIO, auth_token: undefined, caller_ids: ['+12125550123'], machine_detection: false }, before)
    const row = carrierRow('org-1', checked, before, box, NOW + 60_000)!
    expect(row).toEqual({ ...before, settings: twilioSettings(['+12125550123'], DEFAULT_TWILIO_API, false), updated: NOW + 60_000 })
    expect(openCarrier(row, box)).toMatchObject({ authToken: TOKEN })
  })

  test('carrierRow with a new token seals it afresh', () => {
    const before = storedRow()
    const row = carrierRow('org-1', checkCarrier({ ...TWILIO, auth_token: NEW_TOKEN }, before), before, box, NOW + 1)!
    expect(row.secretsSealed.auth_token).not.toBe(before.secretsSealed.auth_token)
    expect(row.created).toBe(NOW)
    expect(openCarrier(row, box)).toMatchObject({ authToken: NEW_TOKEN })
  })

  test('openCarrier gives the dial its settings with the token opened', () => {
    const row = storedRow({ ...TWILIO, caller_ids: [CALLER, '+12125550123'], api_base_url: 'http://localhost:3901', machine_detection: false }, 'org-7')
    expect(openCarrier(row, box) as TwilioSettings).toEqual({
      kind: 'twilio', accountSid: SID, authToken: TOKEN, callerIds: [CALLER, '+12125550123'], apiBaseUrl: 'http://localhost:3901', machineDetection: false,
    })
  })

  test('the token is bound to its organization: a row moved to another org does not open (tampered)', () => {
    const row = storedRow(TWILIO, 'org-1')
    expect(secretContext('org-1', 'twilio', 'auth_token')).not.toBe(secretContext('org-2', 'twilio', 'auth_token'))
    try {
      openCarrier({ ...row, orgId: 'org-2' }, box)
      throw new Error('expected a SecretBoxError')
    } catch (error) {
      expect(error).toBeInstanceOf(SecretBoxError)
      expect((error as SecretBoxError).reason).toBe('tampered')
    }
  })

  test('under another secret key the token does not open (wrong_key)', () => {
    const row = storedRow()
    const otherBox = secretBox(Buffer.alloc(32, 0xa5))
    try {
      openCarrier(row, otherBox)
      throw new Error('expected a SecretBoxError')
    } catch (error) {
      expect(error).toBeInstanceOf(SecretBoxError)
      expect((error as SecretBoxError).reason).toBe('wrong_key')
      expect((error as Error).message).not.toContain(TOKEN)
    }
  })

  test('no row is the simulator; the simulator stores no row', () => {
    expect(carrierView(undefined)).toEqual({ kind: 'simulator' })
    expect(openCarrier(undefined, box)).toEqual({ kind: 'simulator' })
    expect(carrierRow('org-1', { kind: 'simulator', settings: {}, secrets: {} }, storedRow(), box, NOW)).toBeNull()
  })
})

describe('another kind, plugged in beside Twilio (the domain knows no kind)', () => {
  // A Telnyx-like kind: a secret API key, a public key, caller IDs shared with Twilio's fields.
  const telnyx: CarrierSettingsRules = {
    fields: ['api_key', 'public_key', 'caller_ids'],
    secrets: ['api_key'],
    check: (input) => ({
      settings: { public_key: input.public_key, caller_ids: input.caller_ids },
      secrets: input.api_key === undefined ? {} : ({ api_key: input.api_key as string } as Record<string, string>),
    }),
    view: (settings) => ({ public_key: settings.public_key, caller_ids: settings.caller_ids }),
    dialing: (settings) => ({ callerIds: settings.caller_ids as string[], machineDetection: false }),
    open: (settings, secrets) => ({ kind: 'telnyx', publicKey: settings.public_key, apiKey: secrets.api_key }),
    strandsCalls: (stored, next) => next.settings.public_key !== stored.settings.public_key,
    inProgress: { later: 'API key', now: 'Caller IDs' },
  }
  const rules: CarrierRules = {
    defaultKind: 'simulator',
    kinds: ['simulator', 'twilio', 'telnyx'],
    rulesOf: (kind) => (kind === 'telnyx' ? telnyx : carrierRules.rulesOf(kind)),
  }
  const TELNYX: CarrierInput = { kind: 'telnyx', api_key: 'KEY0123', public_key: 'pk-1', caller_ids: [CALLER] }
  const row = (input: CarrierInput, stored?: OrgCarrierRow) => rowWith(rules, 'org-1', checkWith(rules, input, stored), stored, box, NOW)!

  test('another kind’s field is refused naming every kind that takes it', () => {
    expect(messageOf(() => checkWith(rules, { kind: 'simulator', caller_ids: [CALLER] }, undefined))).toBe(
      'carrier.caller_ids is taken only with kind "twilio" or "telnyx".',
    )
    expect(paramOf(() => checkWith(rules, { ...TWILIO, api_key: 'KEY0123' }, undefined))).toBe('carrier.api_key')
    expect(messageOf(() => checkWith(rules, { ...TELNYX, account_sid: SID }, undefined))).toBe('carrier.account_sid is taken only with kind "twilio".')
  })

  test('its secret is sealed for the organization, kind and field, opened for the carrier and shown only as <name>_set', () => {
    const stored = row(TELNYX)
    expect(stored).toMatchObject({ kind: 'telnyx', settings: { public_key: 'pk-1', caller_ids: [CALLER] } })
    expect(box.open(stored.secretsSealed.api_key!, 'org:org-1:telnyx_api_key')).toBe('KEY0123')
    expect(viewWith(rules, stored)).toEqual({ kind: 'telnyx', public_key: 'pk-1', caller_ids: [CALLER], api_key_set: true })
    expect(openWith(rules, stored, box)).toEqual({ kind: 'telnyx', publicKey: 'pk-1', apiKey: 'KEY0123' } as OpenedCarrier)
    expect(dialSettings(rules, stored)).toEqual({ kind: 'telnyx', callerIds: [CALLER], machineDetection: false })
  })

  test('a change of kind strands calls that are up and keeps no secret of the old kind; within the kind its rules decide', () => {
    const twilio = storedRow()
    expect(changesPlacedCalls(rules, twilio, checkWith(rules, TELNYX, twilio), box)).toBe(true)
    expect(Object.keys(row(TELNYX, twilio).secretsSealed)).toEqual(['api_key'])
    const telnyxRow = row(TELNYX)
    const same = checkWith(rules, { ...TELNYX, api_key: undefined, caller_ids: ['+12125550123'] }, telnyxRow)
    expect(changesPlacedCalls(rules, telnyxRow, same, box)).toBe(false)
    expect(rowWith(rules, 'org-1', same, telnyxRow, box, NOW + 1)!.secretsSealed).toEqual(telnyxRow.secretsSealed)
    expect(changesPlacedCalls(rules, telnyxRow, checkWith(rules, { ...TELNYX, public_key: 'pk-2' }, telnyxRow), box)).toBe(true)
    expect(callsInProgress(1, telnyx.inProgress).message).toContain('its carrier, API key can change once they have ended')
  })
})

describe('the registry', () => {
  test('every kind but the default has settings rules taking exactly the fields of its admin schema', () => {
    for (const kind of CARRIER_KINDS) {
      const own = carrierRules.rulesOf(kind)
      if (kind === DEFAULT_CARRIER) {
        expect(own).toBeUndefined()
        continue
      }
      expect(own?.fields).toEqual(Object.keys(CARRIERS[kind].settings.properties))
      for (const secret of own!.secrets) expect(own!.fields).toContain(secret)
    }
    expect(carrierRules.rulesOf('no-such-kind')).toBeUndefined()
    expect(carrierRules.rulesOf('__proto__')).toBeUndefined()
  })
})
