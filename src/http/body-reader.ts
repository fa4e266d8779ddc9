import { Elysia } from 'elysia'
import { ApiError, invalid } from '../errors'

/**
 * How a route's body is read, declared on the route (`reads: RULE`, the macro below) and
 * found by the gateway from the route the request matches (bodyRulesOf). Routes that declare
 * none take JSON_BODY. The gateway refuses a declared Content-Length over `limit` before
 * anything is read; the readers below stop a body sent without one as soon as it passes it.
 */
export interface BodyRule {
  /** Bytes at most. */
  limit: number
  /** The refusal of a body over the limit (its status, code and message are the route's). */
  tooLarge: () => ApiError
  /**
   * `json`: the pipeline parses it (shape limits, then JSON.parse). `text` and `stream`: the
   * pipeline leaves it unread and the route reads it, whole (readText) or chunk by chunk (readChunks).
   */
  parse: 'json' | 'text' | 'stream'
  /** For a file: the Content-Types taken, and what to ask for instead (400, before reading). */
  accepts?: { types: readonly string[]; ask: string }
}

/** Spec "Limits": request body 1 MB. */
export const MAX_BODY_BYTES = 1_000_000

export const JSON_BODY: BodyRule = {
  limit: MAX_BODY_BYTES,
  tooLarge: () => new ApiError('invalid_request', 'The request body is larger than 1 MB.'),
  parse: 'json',
}

/** What the pipeline gives Elysia as the body of a route that reads its own. */
export const UNREAD_BODY = Object.freeze({ unread: true })

const RULE = Symbol('body rule')

/**
 * The `reads` route option. Elysia drops a macro's own option once applied, so the rule is
 * written onto the route's hooks under a symbol, where bodyRulesOf reads it from `app.routes`.
 */
export const bodyReader = () =>
  new Elysia().macro({
    reads(rule: BodyRule) {
      return {
        introspect(hook: object) {
          ;(hook as Record<symbol, BodyRule>)[RULE] = rule
        },
      }
    },
  })

interface RouteLike {
  method: string
  path: string
  hooks: unknown
}

/**
 * Whether a request path fits a route pattern (split on "/"): `:name` takes any one segment,
 * trailing slashes are ignored (the router takes `/a/` for `/a`). Walked in place: no split.
 */
function fits(segments: readonly string[], pathname: string): boolean {
  let end = pathname.length
  while (end > 1 && pathname.charCodeAt(end - 1) === 47) end--
  let at = 0
  for (let i = 1; i < segments.length; i++) {
    if (at >= end || pathname.charCodeAt(at) !== 47) return false
    at++
    const slash = pathname.indexOf('/', at)
    const stop = slash < 0 || slash > end ? end : slash
    const segment = segments[i]!
    if (segment.charCodeAt(0) !== 58 && (stop - at !== segment.length || !pathname.startsWith(segment, at))) return false
    at = stop
  }
  return at === end
}

/** The routes that declare a body rule, with it. */
export function declaredBodyRules(routes: readonly RouteLike[]): { method: string; path: string; rule: BodyRule }[] {
  return routes.flatMap((route) => {
    const rule = (route.hooks as Record<symbol, BodyRule | undefined> | undefined)?.[RULE]
    return rule ? [{ method: route.method, path: route.path, rule }] : []
  })
}

/**
 * The rule of the route a request goes to, from the routes' declarations: a pattern's `:name`
 * segments take any segment, as the router's do. Checked by prefix first, so a request to any
 * other route costs a few string compares.
 */
export function bodyRulesOf(routes: readonly RouteLike[]): (method: string, pathname: string) => BodyRule {
  const declared = declaredBodyRules(routes).map(({ method, path, rule }) => {
    if (/[*?]/.test(path)) throw new Error(`${method} ${path}: a body rule needs a plain pattern`)
    const param = path.indexOf(':')
    return { method, prefix: param < 0 ? path : path.slice(0, param), segments: path.split('/'), rule }
  })
  return (method, pathname) => {
    for (let i = 0; i < declared.length; i++) {
      const entry = declared[i]!
      if (entry.method === method && pathname.startsWith(entry.prefix) && fits(entry.segments, pathname)) return entry.rule
    }
    return JSON_BODY
  }
}

/** The gateway's check of the declared size, before anything is read. */
export function refuseDeclaredSize(request: Request, rule: BodyRule): void {
  if (Number(request.headers.get('content-length') ?? 0) > rule.limit) throw rule.tooLarge()
}

const utf8 = new TextDecoder()

/**
 * The body as text, at most `rule.limit`. A body with a Content-Length (the gateway refused one
 * over the limit) is read whole, which is far cheaper than a stream reader; a chunked body is
 * read chunk by chunk and given up once it runs over.
 */
export async function readText(request: Request, rule: BodyRule): Promise<string> {
  if (!request.body) return ''
  if (request.headers.has('content-length')) {
    const text = await request.text()
    // HTTP framing holds a body to its declared length; an in-process Request need not.
    if (text.length > rule.limit) throw rule.tooLarge()
    return text
  }
  const chunks: Uint8Array[] = []
  for await (const chunk of cappedChunks(request.body, rule)) chunks.push(chunk)
  return utf8.decode(Buffer.concat(chunks))
}

/**
 * A file's bytes as they arrive: 400 (before reading) for a Content-Type the rule does not
 * take, then the chunks, stopped once a body sent without a Content-Length passes the limit.
 * Nothing is kept here.
 */
export function readChunks(request: Request, rule: BodyRule): AsyncGenerator<Uint8Array> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (rule.accepts && !rule.accepts.types.includes(type)) {
    throw invalid(`${rule.accepts.ask}, not ${type === '' ? 'without a Content-Type' : type}.`, 'Content-Type')
  }
  return cappedChunks(request.body, rule)
}

async function* cappedChunks(body: ReadableStream<Uint8Array> | null, rule: BodyRule): AsyncGenerator<Uint8Array> {
  if (!body) return
  const reader = body.getReader()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      size += value.byteLength
      if (size > rule.limit) throw rule.tooLarge()
      yield value
    }
  } finally {
    // Stopped early (too large, or the reader gave up on the content): the rest is not read.
    await reader.cancel().catch(() => {})
  }
}
