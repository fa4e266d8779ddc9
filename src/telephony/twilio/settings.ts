import { t, type Static } from 'elysia'
import type { CarrierSettingsRules } from '../../domain/orgs/carrier-settings'
import { checkApiBaseUrl, checkE164 } from '../../domain/orgs/carrier-fields'
import { invalid } from '../../errors'
import type { CarrierPlugin } from '../plugin'
import type { TwilioAccount } from './rest-client'

/**
 * Twilio's organization settings as the admin API takes them (types and lengths only:
 * twilioRules below checks the formats: SID, token, E.164 caller IDs, https endpoint) and as
 * `dialer admin org carrier --twilio` builds them.
 */
export const twilioSettings = t.Object({
  account_sid: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  auth_token: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  caller_ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 32 }), { maxItems: 100 })),
  api_base_url: t.Optional(t.String({ minLength: 1, maxLength: 500 })),
  machine_detection: t.Optional(t.Boolean()),
})

/** The settings a dial uses, the token opened. */
export interface TwilioSettings {
  kind: 'twilio'
  accountSid: string
  authToken: string
  callerIds: string[]
  apiBaseUrl: string
  machineDetection: boolean
}

export const DEFAULT_TWILIO_API = 'https://api.twilio.com'

// Twilio's formats: "AC" and 32 lowercase hex digits; auth tokens are 32 hex digits.
const ACCOUNT_SID = /^AC[0-9a-f]{32}$/
const AUTH_TOKEN = /^[0-9a-fA-F]{32}$/

/** What is stored besides the sealed auth token, in the admin API's spelling. */
type TwilioStored = {
  account_sid: string
  caller_ids: string[]
  api_base_url: string
  machine_detection: boolean
}

/**
 * How Twilio settings are checked, stored and shown: the auth token is write-only (sealed, shown
 * as `auth_token_set`); a missing one keeps the stored one while account and endpoint stay the same.
 */
export const twilioRules: CarrierSettingsRules = {
  fields: Object.keys(twilioSettings.properties),
  secrets: ['auth_token'],
  check(fields, stored, { param, allowPrivate }) {
    const input = fields as Static<typeof twilioSettings>
    const sid = input.account_sid
    if (sid === undefined) throw invalid(`${param}.account_sid is required with kind "twilio".`, `${param}.account_sid`)
    if (!ACCOUNT_SID.test(sid)) {
      throw invalid(`${param}.account_sid must be "AC" and 32 lowercase hex digits, as in the Twilio console.`, `${param}.account_sid`)
    }
    // The value is never echoed: it is a secret.
    if (input.auth_token !== undefined && !AUTH_TOKEN.test(input.auth_token)) {
      throw invalid(`${param}.auth_token must be 32 hex digits, as in the Twilio console.`, `${param}.auth_token`)
    }
    const callerIds = input.caller_ids
    if (callerIds === undefined || callerIds.length === 0) {
      throw invalid(`${param}.caller_ids needs at least one number to call from.`, `${param}.caller_ids`)
    }
    const seen = new Set<string>()
    callerIds.forEach((id, i) => {
      checkE164(id, `${param}.caller_ids[${i}]`, 'a caller ID')
      if (seen.has(id)) throw invalid(`${param}.caller_ids[${i}] repeats ${id}.`, `${param}.caller_ids[${i}]`)
      seen.add(id)
    })
    const apiBaseUrl = checkApiBaseUrl(input.api_base_url ?? DEFAULT_TWILIO_API, `${param}.api_base_url`, DEFAULT_TWILIO_API, allowPrivate)
    // A stored token is kept only where it already goes: the same account at the same endpoint.
    const before = stored as TwilioStored | undefined
    const keeps = before !== undefined && before.account_sid === sid && before.api_base_url === apiBaseUrl
    if (input.auth_token === undefined && !keeps) {
      throw invalid(`${param}.auth_token is required${before ? ' when account_sid or api_base_url changes' : ''}.`, `${param}.auth_token`)
    }
    const settings: TwilioStored = { account_sid: sid, caller_ids: [...callerIds], api_base_url: apiBaseUrl, machine_detection: input.machine_detection ?? true }
    const secrets: Record<string, string> = input.auth_token === undefined ? {} : { auth_token: input.auth_token }
    return { settings, secrets }
  },
  view(settings) {
    const twilio = settings as TwilioStored
    return { account_sid: twilio.account_sid, caller_ids: twilio.caller_ids, api_base_url: twilio.api_base_url, machine_detection: twilio.machine_detection }
  },
  dialing(settings) {
    const twilio = settings as TwilioStored
    return { callerIds: twilio.caller_ids, machineDetection: twilio.machine_detection }
  },
  open(settings, secrets): TwilioSettings {
    const twilio = settings as TwilioStored
    return {
      kind: 'twilio',
      accountSid: twilio.account_sid,
      authToken: secrets.auth_token!,
      callerIds: twilio.caller_ids,
      apiBaseUrl: twilio.api_base_url,
      machineDetection: twilio.machine_detection,
    }
  },
  // Callbacks are checked with the token and hang-ups and recordings go to the account at the
  // endpoint; caller IDs and detection are read only when a call is dialed.
  strandsCalls(stored, next) {
    if (next.settings.account_sid !== stored.settings.account_sid || next.settings.api_base_url !== stored.settings.api_base_url) return true
    const token = next.secrets.auth_token
    return token !== undefined && stored.secret('auth_token') !== token
  },
  inProgress: { later: 'account, auth token and endpoint', now: 'Caller IDs and machine detection' },
}

/** The account of opened settings, or null when they are not Twilio's. */
export function accountOf(settings: { kind: string } | null): TwilioAccount | null {
  if (settings?.kind !== 'twilio') return null
  const twilio = settings as TwilioSettings
  return { accountSid: twilio.accountSid, authToken: twilio.authToken, apiBaseUrl: twilio.apiBaseUrl }
}

/** The token comes from a file or stdin (the CLI reads it at send time), so it never sits in ps output or shell history. */
export const twilioCli: CarrierPlugin['cli'] = {
  note: 'dial live calls through Twilio (or a Twilio-compatible endpoint)',
  flags: {
    account_sid: { kind: 'string', note: 'the Twilio account SID (AC and 32 hex digits)' },
    auth_token_file: { kind: 'string', note: 'a file holding the Twilio auth token' },
    auth_token_stdin: { kind: 'switch', note: 'read the Twilio auth token from stdin' },
    caller_id: { kind: 'list', note: 'a number to call from, E.164 (+14155550100); repeat or comma-separate for several' },
    api_base_url: { kind: 'string', note: 'Twilio API endpoint; default https://api.twilio.com (plain http only to loopback)' },
    machine_detection: { kind: 'bool', note: 'detect answering machines (default true)' },
  },
  body(flags) {
    if (flags.auth_token_file !== undefined && flags.auth_token_stdin === true) throw new Error('give --auth-token-file or --auth-token-stdin, not both')
    const carrier: Record<string, unknown> = {}
    if (flags.account_sid !== undefined) carrier.account_sid = flags.account_sid
    if (flags.caller_id !== undefined) carrier.caller_ids = (flags.caller_id as string[]).filter((id) => id !== '')
    if (flags.api_base_url !== undefined) carrier.api_base_url = flags.api_base_url
    if (flags.machine_detection !== undefined) carrier.machine_detection = flags.machine_detection
    return carrier
  },
}
