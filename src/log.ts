import { maskSensitive } from './errors'

type Level = 'debug' | 'info' | 'warn' | 'error'
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** One JSON object per line on stdout. Strings are masked: no full phone number or email is logged. */
class Logger {
  minLevel: Level = (process.env.DIALER_LOG_LEVEL as Level) in order ? (process.env.DIALER_LOG_LEVEL as Level) : 'info'
  /** Tests silence the log; the process keeps it on. */
  enabled = process.env.NODE_ENV !== 'test'

  log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
    if (!this.enabled || order[level] < order[this.minLevel]) return
    const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg }
    for (const [k, v] of Object.entries(fields)) line[k] = typeof v === 'string' ? maskSensitive(v) : v
    process.stdout.write(JSON.stringify(line) + '\n')
  }

  debug(msg: string, fields?: Record<string, unknown>) { this.log('debug', msg, fields) }
  info(msg: string, fields?: Record<string, unknown>) { this.log('info', msg, fields) }
  warn(msg: string, fields?: Record<string, unknown>) { this.log('warn', msg, fields) }
  error(msg: string, fields?: Record<string, unknown>) { this.log('error', msg, fields) }
}

export const logger = new Logger()
