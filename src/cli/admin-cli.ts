/**
 * `dialer admin RESOURCE ACTION ...`: the admin API from the shell. It talks to the running
 * service over HTTP (one process owns the database), with the admin token from --token or
 * DIALER_ADMIN_TOKEN.
 */

type FieldKind = 'string' | 'int' | 'number' | 'bool' | 'list' | 'people' | 'json' | 'nullable-list' | 'nullable-number'

interface Command {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** `:id` is the first positional argument, `:org` the --org flag. */
  path: string
  fields?: Record<string, FieldKind>
  query?: string[]
  help: string
}

const orgFields: Record<string, FieldKind> = {
  name: 'string', timezone: 'string', rate_usd_per_minute: 'number', plan_requests_per_minute: 'int',
  recording_enabled: 'bool', webhook_endpoint_limit: 'int', outcome_labels: 'json',
}
const keyFields: Record<string, FieldKind> = {
  name: 'string', permissions: 'list', campaign_ids: 'nullable-list', max_concurrent: 'int',
  requests_per_minute: 'int', burst: 'int', leads_per_minute: 'int', expires_at: 'string',
}
const campaignFields: Record<string, FieldKind> = {
  name: 'string', status: 'string', lines: 'int', sdrs: 'people', closers: 'people', requires_consent: 'bool',
  call_now_default: 'bool', late_minutes: 'int', calling_hours: 'json', max_attempts: 'int', retry_minutes: 'int',
  duplicate_window_hours: 'int', cooldown_hours: 'int', spend_cap_usd: 'nullable-number',
}
const listQuery = ['limit', 'starting_after']

export const COMMANDS: Record<string, Command> = {
  'org create': { method: 'POST', path: '/orgs', fields: orgFields, help: '--name NAME [--timezone America/Chicago] [--rate-usd-per-minute 0.12] [--plan-requests-per-minute 600] [--outcome-labels JSON]' },
  'org list': { method: 'GET', path: '/orgs', query: listQuery, help: '[--limit N]' },
  'org get': { method: 'GET', path: '/orgs/:id', help: 'ORG_ID' },
  'org update': { method: 'PATCH', path: '/orgs/:id', fields: orgFields, help: 'ORG_ID [--name ...] [any create flag]' },
  'key create': { method: 'POST', path: '/orgs/:org/keys', fields: { ...keyFields, mode: 'string' }, help: '--org ORG_ID --name NAME --mode live|test [--permissions a,b] [--campaign-ids id,id] [--max-concurrent 20] [--requests-per-minute 120] [--burst 20] [--leads-per-minute 60] [--expires-at ISO]' },
  'key list': { method: 'GET', path: '/orgs/:org/keys', query: listQuery, help: '--org ORG_ID' },
  'key get': { method: 'GET', path: '/keys/:id', help: 'KEY_ID' },
  'key update': { method: 'PATCH', path: '/keys/:id', fields: { ...keyFields, disabled: 'bool' }, help: 'KEY_ID [--disabled true] [any create flag but --mode]' },
  'key revoke': { method: 'POST', path: '/keys/:id/revoke', help: 'KEY_ID' },
  'campaign create': { method: 'POST', path: '/orgs/:org/campaigns', fields: campaignFields, help: '--org ORG_ID --name NAME [--status active] [--lines 2] [--sdrs "Ann,Bo"] [--closers "Cy"] [--calling-hours \'{"start":"09:00","end":"20:00"}\']' },
  'campaign list': { method: 'GET', path: '/orgs/:org/campaigns', query: listQuery, help: '--org ORG_ID' },
  'campaign get': { method: 'GET', path: '/campaigns/:id', help: 'CAMPAIGN_ID' },
  'campaign update': { method: 'PATCH', path: '/campaigns/:id', fields: campaignFields, help: 'CAMPAIGN_ID [any create flag]' },
  'campaign retire-number': { method: 'POST', path: '/campaigns/:id/retired_numbers', fields: { phone: 'string', livemode: 'bool', reason: 'string' }, help: 'CAMPAIGN_ID --phone NUMBER [--livemode false]' },
  'campaign retired-numbers': { method: 'GET', path: '/campaigns/:id/retired_numbers', query: listQuery, help: 'CAMPAIGN_ID' },
  'job list': { method: 'GET', path: '/jobs', help: '' },
  'job run': { method: 'POST', path: '/jobs/:id/run', help: 'JOB_NAME' },
  'clock get': { method: 'GET', path: '/clock', help: '(DIALER_FAKE_CLOCK=1 only)' },
  'clock advance': { method: 'POST', path: '/clock', fields: { advance_seconds: 'number', now: 'string' }, help: '--advance-seconds N | --now ISO' },
}

export function adminUsage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  dialer admin ${name} ${c.help}`.trimEnd())
  return [
    'Usage: dialer admin RESOURCE ACTION [ARGS] [--url URL] [--token TOKEN]',
    'Talks to the running service. URL defaults to DIALER_ADMIN_URL or http://DIALER_HOST:DIALER_PORT;',
    'TOKEN to DIALER_ADMIN_TOKEN. Flags map to the admin API fields (--max-concurrent -> max_concurrent).',
    '',
    ...lines,
  ].join('\n')
}

function convert(kind: FieldKind, raw: string, flag: string): unknown {
  const fail = (what: string) => {
    throw new CliError(`--${flag} must be ${what}, got "${raw}"`)
  }
  switch (kind) {
    case 'string': return raw
    case 'int': return /^-?\d+$/.test(raw) ? Number(raw) : fail('a whole number')
    case 'number': return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : fail('a number')
    case 'nullable-number': return raw === 'null' ? null : convert('number', raw, flag)
    case 'bool': return raw === 'true' ? true : raw === 'false' ? false : fail('true or false')
    case 'list': return raw === '' ? [] : raw.split(',').map((x) => x.trim())
    case 'nullable-list': return raw === 'null' ? null : convert('list', raw, flag)
    case 'people': return raw === '' ? [] : raw.split(',').map((name) => ({ name: name.trim() }))
    case 'json':
      try {
        return JSON.parse(raw)
      } catch {
        return fail('JSON')
      }
  }
}

export class CliError extends Error {}

export interface ParsedAdmin {
  method: string
  path: string
  body: Record<string, unknown> | undefined
}

/** Turns `org create --name X` into the admin request it stands for. */
export function buildAdminRequest(args: string[]): ParsedAdmin {
  const [resource, action, ...rest] = args
  const command = COMMANDS[`${resource} ${action}`]
  if (!command) throw new CliError(`Unknown admin command "${[resource, action].filter(Boolean).join(' ')}".\n\n${adminUsage()}`)
  const flags = new Map<string, string>()
  const positional: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (!arg.startsWith('--')) {
      positional.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = (eq > 0 ? arg.slice(2, eq) : arg.slice(2)).replace(/-/g, '_')
    const value = eq > 0 ? arg.slice(eq + 1) : rest[++i]
    if (value === undefined) throw new CliError(`--${name.replace(/_/g, '-')} needs a value`)
    flags.set(name, value)
  }
  for (const connection of ['url', 'token']) flags.delete(connection)

  let path = command.path
  if (path.includes(':id')) {
    const id = positional.shift()
    if (!id) throw new CliError(`Usage: dialer admin ${resource} ${action} ${command.help}`)
    path = path.replace(':id', encodeURIComponent(id))
  }
  if (path.includes(':org')) {
    const org = flags.get('org')
    if (!org) throw new CliError(`--org ORG_ID is required. Usage: dialer admin ${resource} ${action} ${command.help}`)
    flags.delete('org')
    path = path.replace(':org', encodeURIComponent(org))
  }
  if (positional.length > 0) throw new CliError(`Unexpected argument "${positional[0]}"`)

  if (command.method === 'GET' || command.method === 'DELETE') {
    const params = new URLSearchParams()
    for (const [name, value] of flags) {
      if (!command.query?.includes(name)) throw new CliError(`Unknown flag --${name.replace(/_/g, '-')}`)
      params.set(name, value)
    }
    const qs = params.toString()
    return { method: command.method, path: qs ? `${path}?${qs}` : path, body: undefined }
  }
  const body: Record<string, unknown> = {}
  for (const [name, value] of flags) {
    const kind = command.fields?.[name]
    if (!kind) throw new CliError(`Unknown flag --${name.replace(/_/g, '-')}`)
    body[name] = convert(kind, value, name.replace(/_/g, '-'))
  }
  return { method: command.method, path, body }
}

/** Sends the request and returns the reply's JSON; throws CliError with the API's message on failure. */
export async function runAdmin(args: string[], connection: { url: string; token: string | null }): Promise<unknown> {
  const request = buildAdminRequest(args)
  if (!connection.token) throw new CliError('Set DIALER_ADMIN_TOKEN or pass --token (printed when the service first started).')
  let response: Response
  try {
    response = await fetch(`${connection.url}/api/v1/admin${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${connection.token}`, 'content-type': 'application/json' },
      body: request.body ? JSON.stringify(request.body) : undefined,
    })
  } catch (error) {
    throw new CliError(`Cannot reach the service at ${connection.url} (${(error as Error).message}). Is \`dialer serve\` running?`)
  }
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new CliError(`Unexpected reply (${response.status}): ${text.slice(0, 200)}`)
  }
  if (!response.ok) {
    const e = (json as { error?: { code?: string; message?: string; param?: string | null } }).error
    throw new CliError(`${response.status} ${e?.code ?? 'error'}: ${e?.message ?? text}${e?.param ? ` (param: ${e.param})` : ''}`)
  }
  return json
}
