/**
 * `dialer admin org carriers ORG_ID`: the organization's carrier pool (docs/api.md "Carrier
 * pools") as the admin API's `carriers` array: `--json '<array>'` for one without secrets (a
 * secret not sent is kept by kind), or `--json-file F` / `--json-stdin` for one that holds them,
 * so a secret never sits in ps output or shell history. `--json '[]'` goes back to the default carrier.
 */
import { readFileSync } from 'node:fs'
import type { FieldKind } from './field-kind'
import { CliError, EXIT } from './cli-error'
import { carrierRules, CARRIER_KINDS } from '../telephony/registry'

export const CARRIERS_FLAGS: Record<string, FieldKind> = { json: 'string', json_file: 'string', json_stdin: 'switch' }

export const CARRIERS_NOTES: Record<string, string> = {
  json: 'the pool as a JSON array of carrier objects, each with "weight" (1-100); no secrets here',
  json_file: 'a file holding the JSON array (secrets may be in it)',
  json_stdin: 'read the JSON array from stdin (secrets may be in it)',
}

const usage = 'Run `dialer admin org carriers --help` for its flags.'
const SECRETS = [...new Set(CARRIER_KINDS.flatMap((kind) => carrierRules.rulesOf(kind)?.secrets ?? []))]

function parsePool(text: string, where: string): unknown[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new CliError(`${where} is not JSON: give an array such as [{"kind":"twilio",...,"weight":50}]`, EXIT.usage, usage)
  }
  if (!Array.isArray(value)) throw new CliError(`${where} must be a JSON array of carriers`, EXIT.usage, usage)
  return value
}

/** The PATCH body for --json (read now), or an empty one that withCarriers fills from the file or stdin at send time. */
export function carriersBody(fields: Record<string, unknown>): Record<string, unknown> {
  const sources = ['json', 'json_file', 'json_stdin'].filter((flag) => fields[flag] !== undefined && fields[flag] !== false)
  if (sources.length !== 1) throw new CliError('give one of --json, --json-file or --json-stdin', EXIT.usage, usage)
  if (fields.json === undefined) return {}
  const carriers = parsePool(fields.json as string, '--json')
  const secret = carriers.flatMap((entry) => (entry && typeof entry === 'object' ? SECRETS.filter((name) => name in entry) : []))[0]
  if (secret) throw new CliError(`--json holds "${secret}": put secrets in --json-file or --json-stdin (a flag shows in ps and shell history)`, EXIT.usage, usage)
  return { carriers }
}

/** Reads the pool from the file or stdin when the command runs. */
export function withCarriers(fields: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  if (body.carriers !== undefined) return body
  const file = fields.json_file as string | undefined
  let text: string
  try {
    text = file !== undefined ? readFileSync(file, 'utf8') : readFileSync(0, 'utf8')
  } catch (error) {
    throw new CliError(`cannot read the carriers from ${file ?? 'stdin'}: ${(error as { code?: string }).code ?? String(error)}`)
  }
  return { carriers: parsePool(text, file ?? 'stdin') }
}
