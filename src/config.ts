import { join, resolve } from 'node:path'
import { isCalendarDate } from './domain/calendar-date'
import { parseSecretKey, SECRET_KEY_FORMAT } from './domain/secrets/secret-box'
import { parseLevel, type Level } from './log'

/** Everything the process reads from its environment and flags, validated once at start-up. */
export interface Config {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  /** SQLite file inside dataDir, or ':memory:' in tests. */
  readonly databasePath: string
  readonly publicUrl: string
  /** Plain admin token from the environment; null means "use the stored hash, or mint one". */
  readonly adminToken: string | null
  readonly fakeClock: boolean
  readonly simSpeed: number
  readonly webhookAllowPrivate: boolean
  /** DIALER_CARRIER_ALLOW_PRIVATE: a carrier's api_base_url may be a private address literal. */
  readonly carrierAllowPrivate: boolean
  readonly synchronous: 'NORMAL' | 'FULL'
  /** SQLite's page cache of the main connection, in MB. */
  readonly sqliteCacheMb: number
  /** Writes of one event-loop turn share one SQLite commit; replies wait for it. */
  readonly groupCommits: boolean
  readonly authFailuresPerMinute: number
  /** Failed sign-ins (or admin tokens) per account that close it for a sliding 15 minutes (DIALER_ACCOUNT_FAILURES). */
  readonly accountFailures: number
  /** Proxies in front of the service whose X-Forwarded-For entries are trusted (DIALER_TRUST_PROXY). */
  readonly trustedProxyHops: number
  readonly logRequests: boolean
  /** DIALER_LOG_LEVEL: the lowest level logged. */
  readonly logLevel: Level
  /** Check every reply against its route's schema before it is sent (tests). */
  readonly checkReplies: boolean
  readonly apiVersion: string
  /** How long a stop waits for requests in flight before closing their connections. */
  readonly shutdownGraceMs: number
  /** DIALER_SECRET_KEY as given (checked here, decoded by secret-key-file.ts); null: the data directory's key file. */
  readonly secretKey: string | null
  /** DIALER_WINDOW_END_MARGIN_SECONDS: a call is asked of the carrier only while the lead's calling window stays open this long. */
  readonly windowEndMarginSeconds: number
  /** DIALER_TOLL_FREE: toll-free and non-geographic numbers in the strictest US zone (default), or refused. */
  readonly tollFree: TollFreeMode
}

export class ConfigError extends Error {}

type Source = Record<string, string | undefined>

/**
 * Reads the config from env, with flags (already parsed by the CLI) taking precedence.
 * Throws ConfigError with a message naming the setting when a value is unusable.
 */
export function loadConfig(env: Source = process.env, flags: Source = {}): Readonly<Config> {
  const pick = (flag: string, name: string) => flags[flag] ?? env[name]

  // 8080: the port the spec examples and the demo curl line use.
  const port = integer(pick('port', 'DIALER_PORT') ?? '8080', 'DIALER_PORT', 0, 65535)
  // Loopback by default: an operator must choose to expose the API (usually behind a proxy).
  const host = nonEmpty(pick('host', 'DIALER_HOST') ?? '127.0.0.1', 'DIALER_HOST')
  // ./data holds the SQLite file, exports and recordings.
  const dataDir = resolve(nonEmpty(pick('data-dir', 'DIALER_DATA_DIR') ?? './data', 'DIALER_DATA_DIR'))
  const databasePath = pick('database', 'DIALER_DATABASE') ?? join(dataDir, 'dialer.db')
  // Signed links (recordings, exports) point here; defaults to the listening address.
  const publicUrl = stripSlash(pick('public-url', 'DIALER_PUBLIC_URL') ?? listeningUrl(host, port))
  if (!/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new ConfigError(`DIALER_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`)
  }
  // Unset: a token is minted on first boot, printed once and stored hashed.
  const adminToken = pick('admin-token', 'DIALER_ADMIN_TOKEN') ?? null
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('DIALER_ADMIN_TOKEN must be at least 16 characters')
  }
  // Off: real time. On: time stands still until POST /api/v1/admin/clock moves it (tests only).
  const fakeClock = flag(pick('fake-clock', 'DIALER_FAKE_CLOCK') ?? '0', 'DIALER_FAKE_CLOCK')
  // 1: simulated calls take real-life durations; 2 is twice as fast, 0.02 fifty times slower.
  const simSpeed = number(pick('sim-speed', 'DIALER_SIM_SPEED') ?? '1', 'DIALER_SIM_SPEED', 0.0001, 1_000_000)
  // Off: webhook URLs resolving to loopback/private/link-local/metadata addresses are refused.
  const webhookAllowPrivate = flag(pick('webhook-allow-private', 'DIALER_WEBHOOK_ALLOW_PRIVATE') ?? '0', 'DIALER_WEBHOOK_ALLOW_PRIVATE')
  // Off: a carrier api_base_url that is a private, link-local or other special-purpose address
  // (loopback stays allowed) is refused. Environment only: no flag.
  const carrierAllowPrivate = flag(env.DIALER_CARRIER_ALLOW_PRIVATE ?? '0', 'DIALER_CARRIER_ALLOW_PRIVATE')
  // FULL: every commit is fsynced before the reply, so a power cut or OS crash loses nothing a
  // client was told is stored. NORMAL (WAL) skips that fsync: a crash of the process still
  // loses nothing, but a power cut may roll back the last acknowledged commits.
  const synchronousRaw = (pick('synchronous', 'DIALER_SYNCHRONOUS') ?? 'FULL').toUpperCase()
  if (synchronousRaw !== 'NORMAL' && synchronousRaw !== 'FULL') {
    throw new ConfigError('DIALER_SYNCHRONOUS must be NORMAL or FULL')
  }
  // 16 MB: the pages intake keeps going back to (each campaign's and organization's spot in
  // the lead and event indexes) stay in memory; SQLite's own default of 2 MB made a batch lead
  // about 6% dearer on the development VM (docs/decisions.md, "Storage"). 2 to 4096.
  const sqliteCacheMb = integer(pick('sqlite-cache-mb', 'DIALER_SQLITE_CACHE_MB') ?? '16', 'DIALER_SQLITE_CACHE_MB', 2, 4096)
  // On: the writes of one event-loop turn (all requests and timers that ran in it) share one
  // commit, and each reply waits for it. Concurrent writers then pay for one commit, not one
  // each. Off: every unit of work commits on its own.
  const groupCommits = flag(pick('group-commits', 'DIALER_GROUP_COMMITS') ?? '1', 'DIALER_GROUP_COMMITS')
  // 20 failed authentications a minute per client address (the floor DESIGN.md sets).
  const authFailuresPerMinute = integer(
    pick('auth-failures-per-minute', 'DIALER_AUTH_FAILURES_PER_MINUTE') ?? '20',
    'DIALER_AUTH_FAILURES_PER_MINUTE', 20, 1_000_000,
  )
  // 10 failed sign-ins per account (an email, or the admin token) in a sliding 15 minutes close
  // it to every attempt, right or wrong, from any address. Tests that fuzz sign-in raise it.
  const accountFailures = integer(pick('account-failures', 'DIALER_ACCOUNT_FAILURES') ?? '10', 'DIALER_ACCOUNT_FAILURES', 1, 1_000_000)
  // 0: the client address is the socket's peer. N: the service is reached only through N proxies
  // you run, each appending to X-Forwarded-For; the client is the Nth address from its right end
  // (the left end is whatever the client wrote). 0 to 10.
  const trustedProxyHops = integer(pick('trust-proxy', 'DIALER_TRUST_PROXY') ?? '0', 'DIALER_TRUST_PROXY', 0, 10)
  // The lowest level logged. Environment only, like the logger that reads it.
  const logLevel = parseLevel(env.DIALER_LOG_LEVEL)
  if (logLevel === null) throw new ConfigError(`DIALER_LOG_LEVEL must be debug, info, warn or error, got "${env.DIALER_LOG_LEVEL}"`)
  // On: one JSON line per request on stdout.
  const logRequests = flag(pick('log-requests', 'DIALER_LOG_REQUESTS') ?? '1', 'DIALER_LOG_REQUESTS')
  // Off: replies are sent as built. On: each is checked against its documented schema first and
  // one that breaks it becomes a 500. The test suite runs with it on; serving leaves it off, as
  // checking a page of 50 calls costs about as much as building it.
  const checkReplies = flag(pick('check-replies', 'DIALER_CHECK_REPLIES') ?? '0', 'DIALER_CHECK_REPLIES')
  // The api_version date stamped on every event.
  const apiVersion = pick('api-version', 'DIALER_API_VERSION') ?? '2026-11-01'
  if (!isCalendarDate(apiVersion)) throw new ConfigError('DIALER_API_VERSION must be a date, YYYY-MM-DD')
  // 10 s: longer than any request takes (a POST /exports waits at most 5 s), shorter than
  // systemd's 90 s stop timeout.
  const shutdownGraceMs = integer(pick('shutdown-grace-seconds', 'DIALER_SHUTDOWN_GRACE_SECONDS') ?? '10', 'DIALER_SHUTDOWN_GRACE_SECONDS', 0, 3600) * 1000
  // Unset: a key is minted on first boot into DATA_DIR/secret.key (mode 0600) and read from there
  // after. Set: 32 bytes as 64 hex characters or base64; it seals carrier auth tokens at rest.
  // Environment only (no flag): a command line is visible to every user of the machine.
  const secretKey = env.DIALER_SECRET_KEY ?? null
  if (secretKey !== null && !parseSecretKey(secretKey)) {
    // The value is a secret: never echoed.
    throw new ConfigError(SECRET_KEY_FORMAT)
  }
  // 60 s: a carrier may queue a call (Twilio: past the account's calls per second) and ring it
  // later; a lead whose window closes sooner is left for its next window. Environment only.
  const windowEndMarginSeconds = integer(env.DIALER_WINDOW_END_MARGIN_SECONDS ?? '60', 'DIALER_WINDOW_END_MARGIN_SECONDS', 0, 900)

  // Toll-free and non-geographic numbers: called in the strictest US zone, or refused. Environment only.
  const tollFree = env.DIALER_TOLL_FREE ?? 'strictest_zone'
  if (tollFree !== 'strictest_zone' && tollFree !== 'refuse') {
    throw new ConfigError(`DIALER_TOLL_FREE must be strictest_zone or refuse, got "${tollFree}"`)
  }

  return Object.freeze({
    port, host, dataDir, databasePath, publicUrl, adminToken, fakeClock, simSpeed,
    webhookAllowPrivate, carrierAllowPrivate, synchronous: synchronousRaw, sqliteCacheMb, groupCommits, authFailuresPerMinute, accountFailures, trustedProxyHops,
    logRequests, logLevel, checkReplies, apiVersion, shutdownGraceMs, secretKey, windowEndMarginSeconds,
    tollFree: tollFree as TollFreeMode,
  })
}

/** DIALER_TOLL_FREE: toll-free and non-geographic numbers are called in the strictest US zone, or refused (422 number_not_allowed). */
export type TollFreeMode = 'strictest_zone' | 'refuse'

/** `http://HOST:PORT`, the default public URL (an IPv6 address in brackets). */
export function listeningUrl(host: string, port: number): string {
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`
}

/**
 * The config with the port the server actually bound: with DIALER_PORT=0 and no
 * DIALER_PUBLIC_URL, signed links and the served OpenAPI document name that port, not 0.
 * A public URL that was set is kept as it is.
 */
export function withBoundPort(config: Readonly<Config>, boundPort: number): Readonly<Config> {
  if (config.port !== 0 || config.publicUrl !== listeningUrl(config.host, 0)) return config
  return Object.freeze({ ...config, publicUrl: listeningUrl(config.host, boundPort) })
}

function integer(raw: string, name: string, min: number, max: number): number {
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`)
  }
  return value
}

function number(raw: string, name: string, min: number, max: number): number {
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`)
  }
  return value
}

function flag(raw: string, name: string): boolean {
  const v = raw.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(v)) return true
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`)
}

function nonEmpty(raw: string, name: string): string {
  if (raw.trim() === '') throw new ConfigError(`${name} must not be empty`)
  return raw.trim()
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
