import { maskSensitive } from './errors'

export type Level = 'debug' | 'info' | 'warn' | 'error'
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** DIALER_LOG_LEVEL read as a level (any case), or null when it names none; unset is info. */
export function parseLevel(raw: string | undefined): Level | null {
  const level = (raw ?? 'info').trim().toLowerCase()
  return Object.hasOwn(order, level) ? (level as Level) : null
}

/** The request log line: only ids, the route pattern and numbers, so nothing needs masking. */
export interface RequestLogLine {
  request_id: string
  method: string
  route: string
  status: number
  key_id: string | null
  duration_ms: number
}

/**
 * The shapes of the service's secrets (API key secrets, the minted admin token, webhook signing
 * secrets): masked in any logged string, should one ever reach an error message.
 */
const SECRET = /\b(dks|dat|whsec)_[A-Za-z0-9+/=_-]+/g
export const maskSecrets = (text: string) => text.replace(SECRET, '$1_[redacted]')

/** The request line's level: its status decides (DIALER_LOG_LEVEL filters it like any other). */
export const requestLevel = (status: number): Level => (status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info')

const FLUSH_BYTES = 64 * 1024
const FLUSH_MS = 100

/**
 * One JSON object per line on stdout. Strings in free-form fields are masked: no full phone
 * number or email is logged, and nothing shaped like a secret. Request lines are buffered (one write per 100 ms or 64 KB) so
 * logging does not cost a system call per request; other lines flush the buffer at once.
 */
class Logger {
  // A bad value stops the start in loadConfig (src/config.ts) before anything is logged.
  minLevel: Level = parseLevel(process.env.DIALER_LOG_LEVEL) ?? 'info'
  /** Tests silence the log; the process keeps it on. */
  enabled = process.env.NODE_ENV !== 'test'
  /** Tests that read the log get its output here instead of on stdout. */
  capture: ((chunk: string) => void) | null = null
  // Bun's native buffered writer: lines are copied into its buffer, written out in large chunks.
  private readonly sink = Bun.stdout.writer({ highWaterMark: FLUSH_BYTES })
  private timer: ReturnType<typeof setTimeout> | null = null

  log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
    if (!this.enabled || order[level] < order[this.minLevel]) return
    const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg }
    for (const [k, v] of Object.entries(fields)) line[k] = typeof v === 'string' ? maskSecrets(maskSensitive(v)) : v
    this.pending += JSON.stringify(line) + '\n'
    this.flush()
  }

  /** info for 1xx-3xx, warn for 4xx (429 included), error for 5xx. */
  request(f: RequestLogLine): void {
    if (!this.enabled) return
    const level = requestLevel(f.status)
    if (order[level] < order[this.minLevel]) return
    const keyId = f.key_id === null ? 'null' : `"${f.key_id}"`
    // Joined in a JS string first: a native write() costs far more than a concatenation.
    this.pending +=
      `{"time":"${this.isoNow()}","level":"${level}","msg":"request","request_id":"${f.request_id}","method":"${f.method}",` +
      `"route":${JSON.stringify(f.route)},"status":${f.status},"key_id":${keyId},"duration_ms":${f.duration_ms}}\n`
    if (this.pending.length >= FLUSH_BYTES) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS)
  }

  private pending = ''

  private lastMs = 0
  private lastIso = ''
  /** The timestamp string, made once per millisecond rather than once per line. */
  private isoNow(): string {
    const ms = Date.now()
    if (ms !== this.lastMs) {
      this.lastMs = ms
      this.lastIso = new Date(ms).toISOString()
    }
    return this.lastIso
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = null
    }
    if (this.pending === '') return
    if (this.capture) {
      const chunk = this.pending
      this.pending = ''
      this.capture(chunk)
      return
    }
    this.sink.write(this.pending)
    this.pending = ''
    void this.sink.flush()
  }

  debug(msg: string, fields?: Record<string, unknown>) { this.log('debug', msg, fields) }
  info(msg: string, fields?: Record<string, unknown>) { this.log('info', msg, fields) }
  warn(msg: string, fields?: Record<string, unknown>) { this.log('warn', msg, fields) }
  error(msg: string, fields?: Record<string, unknown>) { this.log('error', msg, fields) }
}

export const logger = new Logger()
process.on('exit', () => logger.flush())
