/**
 * `dialer admin org carrier ORG_ID`: the organization's carrier from the shell. The flags are
 * not the body's fields one for one (a switch picks the kind; the token comes from a file or
 * stdin, so it never sits in ps output or shell history), so this builds the `carrier` object.
 */
import type { FieldKind } from './admin-commands'
import { CliError, EXIT } from './cli-error'
import { readSecret } from './secret-input'

export const CARRIER_FLAGS: Record<string, FieldKind> = {
  twilio: 'switch',
  simulator: 'switch',
  account_sid: 'string',
  auth_token_file: 'string',
  auth_token_stdin: 'switch',
  caller_id: 'list',
  api_base_url: 'string',
  machine_detection: 'bool',
}

export const CARRIER_NOTES: Record<string, string> = {
  twilio: 'dial live calls through Twilio (or a Twilio-compatible endpoint)',
  simulator: 'dial live calls with the built-in simulator again (the default)',
  account_sid: 'the Twilio account SID (AC and 32 hex digits)',
  auth_token_file: 'a file holding the Twilio auth token',
  auth_token_stdin: 'read the Twilio auth token from stdin',
  caller_id: 'a number to call from, E.164 (+14155550100); repeat or comma-separate for several',
  api_base_url: 'Twilio API endpoint; default https://api.twilio.com (plain http only to loopback)',
  machine_detection: 'detect answering machines (default true)',
}

const usage = 'Run `dialer admin org carrier --help` for its flags.'

/** The body with the auth token read in, at send time (parsing reads no file and no stdin). */
export function withCarrierToken(fields: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  if (fields.auth_token_file === undefined && fields.auth_token_stdin !== true) return body
  const token = readSecret({ file: fields.auth_token_file as string | undefined, stdin: fields.auth_token_stdin === true }, 'auth token')
  return { ...body, carrier: { ...(body.carrier as Record<string, unknown>), auth_token: token } }
}

/** The PATCH body for the flags given, the token left out (withCarrierToken adds it); throws CliError (exit 2) for a combination that cannot work. */
export function carrierBody(fields: Record<string, unknown>): Record<string, unknown> {
  const twilio = fields.twilio === true
  const simulator = fields.simulator === true
  if (twilio === simulator) throw new CliError('give --twilio or --simulator (one of them)', EXIT.usage, usage)
  if (simulator) {
    const extra = Object.keys(fields).find((f) => f !== 'simulator')
    if (extra) throw new CliError(`--${extra.replace(/_/g, '-')} goes only with --twilio`, EXIT.usage, usage)
    return { carrier: { kind: 'simulator' } }
  }
  if (fields.auth_token_file !== undefined && fields.auth_token_stdin === true) {
    throw new CliError('give --auth-token-file or --auth-token-stdin, not both', EXIT.usage, usage)
  }
  const carrier: Record<string, unknown> = { kind: 'twilio' }
  if (fields.account_sid !== undefined) carrier.account_sid = fields.account_sid
  if (fields.caller_id !== undefined) carrier.caller_ids = (fields.caller_id as string[]).filter((id) => id !== '')
  if (fields.api_base_url !== undefined) carrier.api_base_url = fields.api_base_url
  if (fields.machine_detection !== undefined) carrier.machine_detection = fields.machine_detection
  return { carrier }
}
