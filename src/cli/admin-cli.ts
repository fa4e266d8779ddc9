/**
 * `dialer admin RESOURCE ACTION ...`: the admin API from the shell. It talks to the running
 * service over HTTP (one process owns the database), with the admin token from --token or
 * DIALER_ADMIN_TOKEN. Exit codes: src/cli/cli-error.ts.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { COMMANDS, objectNoun, resources, type Command, type FieldKind } from './admin-commands'
import { adminUsage, closest, commandUsage, resourceUsage, synopsis } from './admin-help'
import { CliError, EXIT } from './cli-error'

export { COMMANDS } from './admin-commands'
export { adminUsage } from './admin-help'
export { CliError, EXIT } from './cli-error'

const CONNECTION = ['url', 'token', 'timeout']
const HELP = new Set(['--help', '-h'])

export interface ParsedAdmin {
  method: string
  path: string
  body: Record<string, unknown> | undefined
  /** A file sent as the body instead (`registry import FILE`), with its content type. */
  upload?: { file: string; contentType: string }
  /** The body as sent, read just before sending (a secret from a file or stdin); else `body`. */
  complete?: () => Record<string, unknown>
}

/** A parsed command line: help to print, or a request with what a 404 would be "no ... of". */
export type AdminInvocation =
  | { kind: 'help'; text: string }
  | { kind: 'request'; name: string; request: ParsedAdmin; object: { noun: string; id: string } | null; connection: Map<string, string> }

function convert(kind: FieldKind, raw: string, flag: string): unknown {
  const fail = (what: string) => {
    throw new CliError(`--${flag} must be ${what}, got "${raw}"`)
  }
  switch (kind) {
    case 'string': return raw
    case 'nullable-string': return raw === 'null' ? null : raw
    case 'int': return /^-?\d+$/.test(raw) ? Number(raw) : fail('a whole number')
    case 'number': return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : fail('a number')
    case 'nullable-number': return raw === 'null' ? null : convert('number', raw, flag)
    case 'bool': return raw === 'true' ? true : raw === 'false' ? false : fail('true or false')
    case 'list': return raw === '' ? [] : raw.split(',').map((x) => x.trim())
    case 'nullable-list': return raw === 'null' ? null : convert('list', raw, flag)
    case 'people': return raw === '' ? [] : raw.split(',').map(person)
    case 'switch': return raw === 'true' ? true : raw === 'false' ? false : fail('given without a value')
    case 'json':
      try {
        return JSON.parse(raw)
      } catch {
        return fail('JSON')
      }
  }
}

/** "Alex Rivera" or "Alex Rivera <+14155550123>" (the phone a live carrier bridges to). */
function person(raw: string): { name: string; phone?: string } {
  const match = /^(.*?)\s*<([^>]*)>\s*$/.exec(raw.trim())
  return match ? { name: match[1]!.trim(), phone: match[2]!.trim() } : { name: raw.trim() }
}

const kebab = (field: string) => field.replace(/_/g, '-')

/** Reads the command line; throws CliError (exit 2) with a hint for anything it cannot use. */
export function parseAdmin(args: string[]): AdminInvocation {
  const [resource, action, ...rest] = args
  if (resource === undefined || resource === 'help' || HELP.has(resource)) return { kind: 'help', text: adminUsage() }
  if (!resources().includes(resource)) {
    const guess = closest(resource, resources())
    throw new CliError(`unknown admin command "${resource}"`, EXIT.usage, `${guess ? `Did you mean "${guess}"? ` : ''}Run \`dialer admin help\` for the commands.`)
  }
  if (action === undefined) throw new CliError(`dialer admin ${resource} needs an action`, EXIT.usage, `Run \`dialer admin ${resource} --help\` for its actions.`)
  if (action === 'help' || HELP.has(action)) return { kind: 'help', text: resourceUsage(resource) }
  const name = `${resource} ${action}`
  const command = COMMANDS[name]
  if (!command) {
    const actions = Object.keys(COMMANDS).filter((n) => n.startsWith(`${resource} `)).map((n) => n.slice(resource.length + 1))
    const guess = closest(action, actions)
    throw new CliError(`unknown admin command "${name}"`, EXIT.usage, `${guess ? `Did you mean "${resource} ${guess}"? ` : ''}Run \`dialer admin ${resource} --help\` for its actions.`)
  }
  if (rest.some((arg) => HELP.has(arg))) return { kind: 'help', text: commandUsage(name) }

  const helpHint = `Run \`dialer admin ${name} --help\` for its flags.`
  const allowed = new Set([...Object.keys(command.fields ?? {}), ...(command.query ?? []), ...(command.path.includes(':org') ? ['org'] : []), ...CONNECTION])
  const flags = new Map<string, string>()
  const positional: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (!arg.startsWith('--')) {
      positional.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const field = (eq > 0 ? arg.slice(2, eq) : arg.slice(2)).replace(/-/g, '_')
    if (!allowed.has(field)) {
      const guess = closest(field, [...allowed])
      throw new CliError(`unknown flag --${kebab(field)} for "dialer admin ${name}"`, EXIT.usage, `${guess ? `Did you mean --${kebab(guess)}? ` : ''}${helpHint}`)
    }
    const kind = command.fields?.[field]
    const value = eq > 0 ? arg.slice(eq + 1) : kind === 'switch' ? 'true' : rest[++i]
    if (value === undefined) throw new CliError(`--${kebab(field)} needs a value`, EXIT.usage, helpHint)
    // A LIST flag given again adds to it (--caller-id A --caller-id B).
    const before = flags.get(field)
    flags.set(field, kind === 'list' && before !== undefined ? `${before},${value}` : value)
  }
  const connection = new Map<string, string>()
  for (const field of CONNECTION) {
    const value = flags.get(field)
    if (value !== undefined) connection.set(field, value)
    flags.delete(field)
  }

  const usage = `Usage: ${synopsis(name, command)} (more: dialer admin ${name} --help)`
  let path = command.path
  let object: { noun: string; id: string } | null = null
  const noun = objectNoun(command.path)
  if (path.includes(':id')) {
    const id = positional.shift()
    if (!id) throw new CliError(`dialer admin ${name} needs ${command.arg}`, EXIT.usage, usage)
    path = path.replace(':id', encodeURIComponent(id))
    if (noun) object = { noun, id }
  }
  // A second positional (`seat end CAMPAIGN_ID SEAT_ID`): the API's 404 message says which one is unknown.
  if (path.includes(':seat')) {
    const seat = positional.shift()
    if (!seat) throw new CliError(`dialer admin ${name} needs ${command.arg}`, EXIT.usage, usage)
    path = path.replace(':seat', encodeURIComponent(seat))
    object = null
  }
  if (path.includes(':org')) {
    const org = flags.get('org')
    if (!org) throw new CliError(`--org ORG_ID is required for dialer admin ${name}`, EXIT.usage, usage)
    flags.delete('org')
    path = path.replace(':org', encodeURIComponent(org))
    if (noun) object = { noun, id: org }
  }
  let upload: ParsedAdmin['upload']
  if (command.upload) {
    const file = positional.shift()
    if (!file) throw new CliError(`dialer admin ${name} needs ${command.arg}`, EXIT.usage, usage)
    upload = { file, contentType: command.upload }
  }
  if (positional.length > 0) throw new CliError(`unexpected argument "${positional[0]}" for dialer admin ${name}`, EXIT.usage, usage)
  // An upload's flags are query parameters (the body is the file).
  const uploadQuery = upload ? new URLSearchParams([...flags].map(([k, v]): [string, string] => [k, command.fields?.[k] === 'switch' ? String(convert('switch', v, kebab(k))) : v])).toString() : ''
  const request = upload ? { method: command.method, path: uploadQuery ? `${path}?${uploadQuery}` : path, body: undefined, upload } : toRequest(command, path, flags)
  const missing = (command.required ?? []).filter((field) => !flags.has(field))
  if (missing.length > 0) throw new CliError(`${missing.map((f) => `--${kebab(f)}`).join(' and ')} required for dialer admin ${name}`, EXIT.usage, usage)
  return { kind: 'request', name, request, object, connection }
}

function toRequest(command: Command, path: string, flags: Map<string, string>): ParsedAdmin {
  if (command.method === 'GET' || command.method === 'DELETE') {
    const params = new URLSearchParams([...flags])
    const qs = params.toString()
    return { method: command.method, path: qs ? `${path}?${qs}` : path, body: undefined }
  }
  const body: Record<string, unknown> = {}
  for (const [field, value] of flags) body[field] = convert(command.fields![field]!, value, kebab(field))
  const built = command.build ? command.build(body) : body
  const complete = command.complete
  return { method: command.method, path, body: built, ...(complete ? { complete: () => complete(body, built) } : {}) }
}

/** Turns `org create --name X` into the admin request it stands for. */
export function buildAdminRequest(args: string[]): ParsedAdmin {
  const parsed = parseAdmin(args)
  if (parsed.kind === 'help') throw new CliError('a help request is not an admin request')
  return parsed.request
}

export interface Connection {
  url: string
  token: string | null
  timeoutMs: number
}

/** --url/--token/--timeout, else the environment. */
export function adminConnection(flags: Map<string, string>, env: Record<string, string | undefined>): Connection {
  const host = env.DIALER_HOST ?? '127.0.0.1'
  const url = (flags.get('url') ?? env.DIALER_ADMIN_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${env.DIALER_PORT ?? '8080'}`).replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) throw new CliError(`--url (or DIALER_ADMIN_URL) must be an http(s) URL, got "${url}"`)
  const rawTimeout = flags.get('timeout') ?? '60'
  const seconds = Number(rawTimeout)
  if (!(seconds > 0 && seconds <= 86_400)) throw new CliError(`--timeout must be a number of seconds above 0, got "${rawTimeout}"`)
  return { url, token: flags.get('token') ?? env.DIALER_ADMIN_TOKEN ?? null, timeoutMs: seconds * 1000 }
}

interface ErrorEnvelope {
  error: { code?: string; message?: string; param?: string | null; request_id?: string }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

/** The one stderr line for an error reply: names the object on a 404, else the API's code, message and param. */
export function describeErrorReply(
  status: number,
  envelope: ErrorEnvelope['error'],
  context: { object: { noun: string; id: string } | null; url: string; method: string; path: string },
): string {
  const code = envelope.code ?? `http_${status}`
  const message = oneLine(envelope.message ?? '')
  if (status === 404 && code === 'not_found' && !envelope.param) {
    if (message === 'No such endpoint.') return `${context.method} /api/v1/admin${context.path}: no such endpoint at ${context.url} (not_found); is the service an older version?`
    if (context.object) {
      const named = `no ${context.object.noun} ${context.object.id} (not_found)`
      // "No such organization" adds nothing; "No job named x. Jobs: a, b." does.
      return /^No such [\w ]+\.?$/i.test(message) || message === '' ? named : `${named}: ${message}`
    }
  }
  const details = [code, envelope.param ? `param ${envelope.param}` : null, status >= 500 && envelope.request_id ? `request ${envelope.request_id}` : null]
  const line = `${message || `HTTP ${status}`} (${details.filter(Boolean).join(', ')})`
  return status === 401 ? `${line}; check DIALER_ADMIN_TOKEN or --token` : line
}

export interface AdminIo {
  out(text: string): void
  err(text: string): void
}

const consoleIo: AdminIo = { out: (text) => console.log(text), err: (text) => console.error(text) }

function unreachable(error: unknown, connection: Connection): CliError {
  const hint = 'Is `dialer serve` running there? Set DIALER_ADMIN_URL or pass --url.'
  const e = error as { name?: string; code?: string; message?: string }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new CliError(`no reply from ${connection.url} within ${connection.timeoutMs / 1000} s; the request may or may not have been carried out`, EXIT.unreachable, 'Raise --timeout for a long job.')
  }
  const why = e.code === 'ECONNREFUSED' ? 'connection refused'
    : e.code === 'ENOTFOUND' ? `host ${new URL(connection.url).hostname} not found`
    : oneLine(e.message ?? String(error))
  return new CliError(`cannot reach the service at ${connection.url}: ${why}`, EXIT.unreachable, hint)
}

/** The file to stream as the body (Bun sends it with its length, without reading it into memory). */
function uploadBody(file: string): Blob {
  let isFile = false
  try {
    isFile = statSync(file).isFile()
    if (isFile) accessSync(file, constants.R_OK)
  } catch (error) {
    const code = (error as { code?: string }).code
    throw new CliError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(error)}`)
  }
  if (!isFile) throw new CliError(`cannot read ${file}: not a file`)
  return Bun.file(file)
}

/** Runs one `dialer admin ...` command line; returns the exit code. Usage errors are thrown as CliError. */
export async function adminMain(args: string[], env: Record<string, string | undefined>, io: AdminIo = consoleIo): Promise<number> {
  const parsed = parseAdmin(args)
  if (parsed.kind === 'help') {
    io.out(parsed.text)
    return EXIT.ok
  }
  const connection = adminConnection(parsed.connection, env)
  if (!connection.token) {
    throw new CliError('no admin token: set DIALER_ADMIN_TOKEN or pass --token', EXIT.usage, 'The service prints one on first start; `dialer admin-token reset` mints a new one.')
  }
  const { request } = parsed
  const sent = request.complete ? request.complete() : request.body
  const body = request.upload ? uploadBody(request.upload.file) : sent ? JSON.stringify(sent) : undefined
  let response: Response
  let text: string
  try {
    response = await fetch(`${connection.url}/api/v1/admin${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${connection.token}`, 'content-type': request.upload?.contentType ?? 'application/json' },
      body,
      signal: AbortSignal.timeout(connection.timeoutMs),
    })
    text = await response.text()
  } catch (error) {
    throw unreachable(error, connection)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    const code = response.status >= 500 ? EXIT.serverError : response.status >= 400 ? EXIT.rejected : EXIT.failure
    throw new CliError(`unexpected reply from ${connection.url} (HTTP ${response.status}, not JSON): ${oneLine(text).slice(0, 120)}`, code, 'Does --url (DIALER_ADMIN_URL) point at Dialer?')
  }
  // stdout carries the API's JSON reply, error or not, so scripts can read error.code too.
  io.out(JSON.stringify(json, null, 2))
  if (response.ok) return EXIT.ok
  const envelope = (json as Partial<ErrorEnvelope>).error ?? {}
  io.err(describeErrorReply(response.status, envelope, { object: parsed.object, url: connection.url, method: request.method, path: request.path }))
  return response.status >= 500 ? EXIT.serverError : EXIT.rejected
}
