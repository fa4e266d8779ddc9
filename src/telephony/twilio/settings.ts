import { t } from 'elysia'
import type { CarrierPlugin } from '../plugin'
import type { TwilioAccount } from './rest-client'

/**
 * Twilio's organization settings as the admin API takes them (types and lengths only:
 * src/domain/orgs/carrier-settings.ts checks the formats: SID, token, E.164 caller IDs, https
 * endpoint) and as `dialer admin org carrier --twilio` builds them.
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
