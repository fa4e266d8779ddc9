import { t, type Static } from 'elysia'
import type { CarrierSettingsRules } from '../../domain/orgs/carrier-settings'
import { checkApiBaseUrl, checkE164 } from '../../domain/orgs/carrier-fields'
import { invalid } from '../../errors'
import type { CarrierPlugin } from '../plugin'
import type { TelnyxAccount } from './rest-client'

/**
 * Telnyx TeXML settings as the admin API takes them (types and lengths only; telnyxRules checks
 * the formats) and as `dialer admin org carrier --telnyx` builds them. Fields shared with Twilio
 * (account_sid, caller_ids, api_base_url, machine_detection) have the same schema: the admin
 * body's `carrier` object is the union of every kind's fields.
 */
export const telnyxSettings = t.Object({
  account_sid: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  api_key: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  application_sid: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  public_key: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  caller_ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 32 }), { maxItems: 100 })),
  api_base_url: t.Optional(t.String({ minLength: 1, maxLength: 500 })),
  machine_detection: t.Optional(t.Boolean()),
})

/** The settings a call uses, the key opened. */
export interface TelnyxSettings {
  kind: 'telnyx'
  accountSid: string
  apiKey: string
  applicationSid: string
  publicKey: string
  callerIds: string[]
  apiBaseUrl: string
  machineDetection: boolean
}

export const DEFAULT_TELNYX_API = 'https://api.telnyx.com'

// The account's id is a UUID (every TeXML callback's AccountSid, "the account (user_id)").
const ACCOUNT_SID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
// TeXML application ids are numeric strings ("1773070540731319841" in Telnyx's AMD tutorial).
const APPLICATION_SID = /^[0-9]{1,32}$/
// v2 API keys start with KEY; the rest of the format is not published: printable, no spaces.
const API_KEY = /^KEY[\x21-\x7e]{7,197}$/

/** What is stored besides the sealed API key, in the admin API's spelling. */
type TelnyxStored = {
  account_sid: string
  application_sid: string
  public_key: string
  caller_ids: string[]
  api_base_url: string
  machine_detection: boolean
}

/** Base64 of exactly 32 bytes (Telnyx's raw Ed25519 public key), strictly: what it decodes to re-encodes to the same text. */
export function isRawEd25519Key(value: string): boolean {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(value)) return false
  const bytes = Buffer.from(value, 'base64')
  return bytes.length === 32 && bytes.toString('base64') === value
}

/**
 * How Telnyx settings are checked, stored and shown: the API key is write-only (sealed, shown as
 * `api_key_set`); a missing one keeps the stored one while account and endpoint stay the same.
 */
export const telnyxRules: CarrierSettingsRules = {
  fields: Object.keys(telnyxSettings.properties),
  secrets: ['api_key'],
  check(fields, stored, { param, allowPrivate }) {
    const input = fields as Static<typeof telnyxSettings>
    const sid = input.account_sid
    if (sid === undefined) throw invalid(`${param}.account_sid is required with kind "telnyx": the account's id (a UUID), which TeXML's REST paths name.`, `${param}.account_sid`)
    if (!ACCOUNT_SID.test(sid)) throw invalid(`${param}.account_sid must be the Telnyx account's id, a UUID.`, `${param}.account_sid`)
    // The value is never echoed: it is a secret.
    if (input.api_key !== undefined && !API_KEY.test(input.api_key)) {
      throw invalid(`${param}.api_key must be a Telnyx v2 API key: it starts with KEY, 10 to 200 printable characters, no spaces.`, `${param}.api_key`)
    }
    const app = input.application_sid
    if (app === undefined) throw invalid(`${param}.application_sid is required with kind "telnyx" (the TeXML application's id).`, `${param}.application_sid`)
    if (!APPLICATION_SID.test(app)) throw invalid(`${param}.application_sid must be the TeXML application's id: 1 to 32 digits.`, `${param}.application_sid`)
    const publicKey = input.public_key
    if (publicKey === undefined) throw invalid(`${param}.public_key is required with kind "telnyx": callbacks are checked with it.`, `${param}.public_key`)
    if (!isRawEd25519Key(publicKey)) {
      throw invalid(`${param}.public_key must be the account's Ed25519 public key as Telnyx shows it: base64 of 32 bytes.`, `${param}.public_key`)
    }
    const callerIds = input.caller_ids
    if (callerIds === undefined || callerIds.length === 0) throw invalid(`${param}.caller_ids needs at least one number to call from.`, `${param}.caller_ids`)
    const seen = new Set<string>()
    callerIds.forEach((id, i) => {
      checkE164(id, `${param}.caller_ids[${i}]`, 'a caller ID')
      if (seen.has(id)) throw invalid(`${param}.caller_ids[${i}] repeats ${id}.`, `${param}.caller_ids[${i}]`)
      seen.add(id)
    })
    const apiBaseUrl = checkApiBaseUrl(input.api_base_url ?? DEFAULT_TELNYX_API, `${param}.api_base_url`, DEFAULT_TELNYX_API, allowPrivate)
    // A stored key is kept only where it already goes: the same account at the same endpoint.
    const before = stored as TelnyxStored | undefined
    const keeps = before !== undefined && before.account_sid === sid && before.api_base_url === apiBaseUrl
    if (input.api_key === undefined && !keeps) {
      throw invalid(`${param}.api_key is required${before ? ' when account_sid or api_base_url changes' : ''}.`, `${param}.api_key`)
    }
    const settings: TelnyxStored = {
      account_sid: sid, application_sid: app, public_key: publicKey, caller_ids: [...callerIds], api_base_url: apiBaseUrl, machine_detection: input.machine_detection ?? true,
    }
    const secrets: Record<string, string> = input.api_key === undefined ? {} : { api_key: input.api_key }
    return { settings, secrets }
  },
  view(settings) {
    const s = settings as TelnyxStored
    return { account_sid: s.account_sid, application_sid: s.application_sid, public_key: s.public_key, caller_ids: s.caller_ids, api_base_url: s.api_base_url, machine_detection: s.machine_detection }
  },
  dialing(settings) {
    const s = settings as TelnyxStored
    return { callerIds: s.caller_ids, machineDetection: s.machine_detection }
  },
  open(settings, secrets): TelnyxSettings {
    const s = settings as TelnyxStored
    return {
      kind: 'telnyx', accountSid: s.account_sid, apiKey: secrets.api_key!, applicationSid: s.application_sid, publicKey: s.public_key,
      callerIds: s.caller_ids, apiBaseUrl: s.api_base_url, machineDetection: s.machine_detection,
    }
  },
  // Callbacks are checked with the public key; hang-ups and recordings go to the account at the
  // endpoint with the key, under the application. Caller IDs and detection are read at each dial.
  strandsCalls(stored, next) {
    const before = stored.settings as TelnyxStored
    const after = next.settings as TelnyxStored
    if (after.account_sid !== before.account_sid || after.api_base_url !== before.api_base_url || after.public_key !== before.public_key) return true
    const key = next.secrets.api_key
    return key !== undefined && stored.secret('api_key') !== key
  },
  inProgress: { later: 'account, API key, public key and endpoint', now: 'Caller IDs, the application and machine detection' },
}

/** The account of opened settings, or null when they are not Telnyx's. */
export function accountOf(settings: { kind: string } | null): TelnyxAccount | null {
  if (settings?.kind !== 'telnyx') return null
  const s = settings as TelnyxSettings
  return { accountSid: s.accountSid, apiKey: s.apiKey, applicationSid: s.applicationSid, publicKey: s.publicKey, apiBaseUrl: s.apiBaseUrl }
}

/** The key comes from a file or stdin (the CLI reads it at send time), so it never sits in ps output or shell history. */
export const telnyxCli: CarrierPlugin['cli'] = {
  note: 'dial live calls through Telnyx TeXML (or a Telnyx-compatible endpoint)',
  flags: {
    account_sid: { kind: 'string', note: 'the account\u2019s id (Twilio: AC and 32 hex digits; Telnyx: a UUID)' },
    application_sid: { kind: 'string', note: 'the Telnyx TeXML application\u2019s id (digits)' },
    public_key: { kind: 'string', note: 'the Telnyx account\u2019s public key (base64), which signs its callbacks' },
    api_key_file: { kind: 'string', note: 'a file holding the Telnyx API key' },
    api_key_stdin: { kind: 'switch', note: 'read the Telnyx API key from stdin' },
    caller_id: { kind: 'list', note: 'a number to call from, E.164 (+14155550100); repeat or comma-separate for several' },
    api_base_url: { kind: 'string', note: 'the carrier\u2019s API endpoint; default https://api.twilio.com or https://api.telnyx.com (plain http only to loopback)' },
    machine_detection: { kind: 'bool', note: 'detect answering machines (default true)' },
  },
  body(flags) {
    if (flags.api_key_file !== undefined && flags.api_key_stdin === true) throw new Error('give --api-key-file or --api-key-stdin, not both')
    const carrier: Record<string, unknown> = {}
    for (const name of ['account_sid', 'application_sid', 'public_key', 'api_base_url', 'machine_detection'] as const) {
      if (flags[name] !== undefined) carrier[name] = flags[name]
    }
    if (flags.caller_id !== undefined) carrier.caller_ids = (flags.caller_id as string[]).filter((id) => id !== '')
    return carrier
  },
}
