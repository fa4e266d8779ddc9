/** Help text for `dialer admin`, read off the command table so it cannot drift from the parser. */
import { COMMANDS, FLAG_NOTES, FLAG_TYPES, KIND_TYPES, type Command, type FieldKind } from './admin-commands'

const ARG_NOTES: Record<string, string> = {
  ORG_ID: "the organization's id",
  KEY_ID: "the API key's id (dk_live_... or dk_test_...)",
  CAMPAIGN_ID: "the campaign's id",
  USER_ID: "the console account's id",
  JOB_NAME: 'a job from `dialer admin job list`',
  FILE: 'the file to send',
}

export const CONNECTION_FLAGS: [string, string][] = [
  ['--url URL', 'the service; default DIALER_ADMIN_URL, else http://DIALER_HOST:DIALER_PORT'],
  ['--token TOKEN', 'the admin token; default DIALER_ADMIN_TOKEN'],
  ['--timeout SECONDS', 'how long to wait for the reply; default 60'],
]

const EXIT_CODES =
  'Exit codes: 0 done, 2 usage error, 3 service unreachable, 4 refused by the service (4xx), 5 service error (5xx).'

const flag = (field: string) => `--${field.replace(/_/g, '-')}`
const typeOf = (field: string, kind: FieldKind) => FLAG_TYPES[field] ?? KIND_TYPES[kind]

function columns(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`.trimEnd())
}

/** Every flag of a command with its type: [left column, right column]. */
export function commandFlags(command: Command): [string, string][] {
  const rows: [string, string][] = []
  if (command.path.includes(':org')) rows.push(['--org ORG_ID', `${FLAG_NOTES.org} (required)`])
  for (const [field, kind] of Object.entries(command.fields ?? {})) {
    const required = command.required?.includes(field) ? ' (required)' : ''
    rows.push([`${flag(field)} ${typeOf(field, kind)}`.trimEnd(), `${FLAG_NOTES[field] ?? ''}${required}`])
  }
  for (const field of command.query ?? []) rows.push([`${flag(field)} ${field === 'limit' ? 'INTEGER' : 'TEXT'}`, FLAG_NOTES[field] ?? ''])
  return rows
}

/** `dialer admin org create --name TEXT [FLAGS]` */
export function synopsis(name: string, command: Command, prefix = 'dialer admin '): string {
  const parts = [`${prefix}${name}`]
  if (command.arg) parts.push(command.arg)
  if (command.path.includes(':org')) parts.push('--org ORG_ID')
  for (const field of command.required ?? []) parts.push(`${flag(field)} ${typeOf(field, command.fields![field]!)}`)
  const optional = Object.keys(command.fields ?? {}).length + (command.query?.length ?? 0) > (command.required?.length ?? 0)
  if (optional) parts.push('[FLAGS]')
  return parts.join(' ')
}

export function adminUsage(): string {
  const rows = Object.entries(COMMANDS).map(([name, c]): [string, string] => [synopsis(name, c, ''), c.summary])
  return [
    'Usage: dialer admin RESOURCE ACTION [ARGS] [--url URL] [--token TOKEN] [--timeout SECONDS]',
    'Talks to the running service. Flags map to the admin API fields (--max-concurrent -> max_concurrent).',
    'Run `dialer admin RESOURCE ACTION --help` for a command\'s flags and an example.',
    '',
    ...columns(rows),
    '',
    EXIT_CODES,
  ].join('\n')
}

export function resourceUsage(resource: string): string {
  const rows = Object.entries(COMMANDS)
    .filter(([name]) => name.startsWith(`${resource} `))
    .map(([name, c]): [string, string] => [name.slice(resource.length + 1), c.summary])
  return [
    `Usage: dialer admin ${resource} ACTION [ARGS] [FLAGS]`,
    '',
    'Actions:',
    ...columns(rows),
    '',
    `Run \`dialer admin ${resource} ACTION --help\` for an action's flags and an example.`,
  ].join('\n')
}

export function commandUsage(name: string): string {
  const command = COMMANDS[name]!
  const out = [`Usage: ${synopsis(name, command)}`, '', command.summary + (command.note ? ` ${command.note}` : '')]
  if (command.arg) out.push('', 'Arguments:', ...columns([[command.arg, ARG_NOTES[command.arg] ?? '']]))
  const flags = commandFlags(command)
  if (flags.length > 0) out.push('', 'Flags:', ...columns(flags))
  if (command.fields) out.push('', 'LIST and NAMES are comma-separated, JSON is one quoted argument, TIME is ISO 8601; null clears a |null flag.')
  out.push(
    '',
    'Connection flags:',
    ...columns(CONNECTION_FLAGS),
    '',
    'Example:',
    `  ${command.example}`,
    '',
    EXIT_CODES,
  )
  return out.join('\n')
}

/** The closest name to a mistyped one, for "did you mean" hints. */
export function closest(word: string, candidates: string[]): string | null {
  let best: string | null = null
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1
  for (const candidate of candidates) {
    const d = distance(word, candidate)
    if (d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  return best
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]!
}
