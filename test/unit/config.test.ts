import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join, resolve } from 'node:path'
import { ConfigError, loadConfig } from '../../src/config'
import { createHarness } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** The ConfigError `run` throws; fails the test when it throws nothing or something else. */
function configError(run: () => unknown): ConfigError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError, nothing was thrown')
}

describe('loadConfig: defaults', () => {
  test('an empty environment gives the DESIGN.md defaults', () => {
    const dataDir = resolve('./data')
    expect({ ...loadConfig({}, {}) }).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir,
      databasePath: join(dataDir, 'dialer.db'),
      publicUrl: 'http://127.0.0.1:8080',
      adminToken: null,
      fakeClock: false,
      simSpeed: 1,
      webhookAllowPrivate: false,
      carrierAllowPrivate: false,
      // FULL by default: NORMAL may lose acknowledged commits on a power cut (WAL).
      synchronous: 'FULL',
      sqliteCacheMb: 16,
      groupCommits: true,
      authFailuresPerMinute: 20,
      accountFailures: 10,
      trustedProxyHops: 0,
      logRequests: true,
      logLevel: 'info',
      checkReplies: false,
      apiVersion: '2026-11-01',
      shutdownGraceMs: 10_000,
      secretKey: null,
      windowEndMarginSeconds: 60,
      tollFree: 'strictest_zone',
    })
  })

  test('the returned object is frozen', () => {
    const config = loadConfig({}, {})
    expect(Object.isFrozen(config)).toBe(true)
    expect(() => {
      ;(config as { port: number }).port = 1
    }).toThrow()
    expect(config.port).toBe(8080)
  })
})

describe('loadConfig: environment and flags', () => {
  test('env values are read', () => {
    const config = loadConfig({
      DIALER_PORT: '9090',
      DIALER_HOST: '0.0.0.0',
      DIALER_DATA_DIR: '/srv/dialer',
      DIALER_PUBLIC_URL: 'https://dialer.example.com/',
      DIALER_ADMIN_TOKEN: 'a-long-admin-token-123',
      DIALER_FAKE_CLOCK: '1',
      DIALER_SIM_SPEED: '0.02',
      DIALER_WEBHOOK_ALLOW_PRIVATE: 'true',
      DIALER_CARRIER_ALLOW_PRIVATE: '1',
      DIALER_SYNCHRONOUS: 'full',
      DIALER_AUTH_FAILURES_PER_MINUTE: '50',
      DIALER_TRUST_PROXY: '2',
      DIALER_LOG_REQUESTS: 'off',
      DIALER_API_VERSION: '2027-01-01',
      DIALER_SHUTDOWN_GRACE_SECONDS: '30',
      DIALER_SQLITE_CACHE_MB: '64',
    })
    expect(config).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/srv/dialer',
      databasePath: '/srv/dialer/dialer.db',
      // Trailing slash dropped so links can append paths.
      publicUrl: 'https://dialer.example.com',
      adminToken: 'a-long-admin-token-123',
      fakeClock: true,
      simSpeed: 0.02,
      webhookAllowPrivate: true,
      carrierAllowPrivate: true,
      synchronous: 'FULL',
      authFailuresPerMinute: 50,
      trustedProxyHops: 2,
      logRequests: false,
      apiVersion: '2027-01-01',
      shutdownGraceMs: 30_000,
      sqliteCacheMb: 64,
    })
  })

  test('flags override env', () => {
    const config = loadConfig(
      { DIALER_PORT: '9090', DIALER_HOST: '0.0.0.0', DIALER_SIM_SPEED: '2', DIALER_FAKE_CLOCK: '1' },
      { port: '7000', host: '10.1.2.3', 'sim-speed': '5', 'fake-clock': '0' },
    )
    expect(config.port).toBe(7000)
    expect(config.host).toBe('10.1.2.3')
    expect(config.simSpeed).toBe(5)
    expect(config.fakeClock).toBe(false)
    // The default public URL follows the chosen host and port.
    expect(config.publicUrl).toBe('http://10.1.2.3:7000')
  })

  test('DIALER_DATABASE overrides the path inside the data dir', () => {
    expect(loadConfig({ DIALER_DATABASE: ':memory:' }).databasePath).toBe(':memory:')
  })

  test('an unset flag falls back to env', () => {
    expect(loadConfig({ DIALER_PORT: '9090' }, { host: '0.0.0.0' }).port).toBe(9090)
  })

  test.each([
    ['0', 0],
    ['65535', 65535],
    [' 8081 ', 8081],
  ])('port %p -> %i', (raw, port) => {
    expect(loadConfig({ DIALER_PORT: raw }).port).toBe(port)
  })
})

describe('loadConfig: unusable values throw ConfigError naming the setting', () => {
  test.each<[Record<string, string>, string]>([
    [{ DIALER_PORT: 'abc' }, 'DIALER_PORT'],
    [{ DIALER_PORT: '70000' }, 'DIALER_PORT'],
    [{ DIALER_PORT: '-1' }, 'DIALER_PORT'],
    [{ DIALER_PORT: '80.5' }, 'DIALER_PORT'],
    [{ DIALER_PORT: '' }, 'DIALER_PORT'],
    [{ DIALER_HOST: '  ' }, 'DIALER_HOST'],
    [{ DIALER_DATA_DIR: '' }, 'DIALER_DATA_DIR'],
    [{ DIALER_PUBLIC_URL: 'ftp://example.com' }, 'DIALER_PUBLIC_URL'],
    [{ DIALER_PUBLIC_URL: 'example.com' }, 'DIALER_PUBLIC_URL'],
    [{ DIALER_ADMIN_TOKEN: 'short' }, 'DIALER_ADMIN_TOKEN'],
    [{ DIALER_ADMIN_TOKEN: '123456789012345' }, 'DIALER_ADMIN_TOKEN'],
    [{ DIALER_FAKE_CLOCK: 'maybe' }, 'DIALER_FAKE_CLOCK'],
    [{ DIALER_SIM_SPEED: '0' }, 'DIALER_SIM_SPEED'],
    [{ DIALER_SIM_SPEED: '-2' }, 'DIALER_SIM_SPEED'],
    [{ DIALER_SIM_SPEED: 'fast' }, 'DIALER_SIM_SPEED'],
    [{ DIALER_SIM_SPEED: '' }, 'DIALER_SIM_SPEED'],
    [{ DIALER_WEBHOOK_ALLOW_PRIVATE: '2' }, 'DIALER_WEBHOOK_ALLOW_PRIVATE'],
    [{ DIALER_CARRIER_ALLOW_PRIVATE: 'maybe' }, 'DIALER_CARRIER_ALLOW_PRIVATE'],
    [{ DIALER_SYNCHRONOUS: 'OFF' }, 'DIALER_SYNCHRONOUS'],
    [{ DIALER_SYNCHRONOUS: 'EXTRA' }, 'DIALER_SYNCHRONOUS'],
    // DESIGN.md: failed authentication is limited no lower than 20 a minute.
    [{ DIALER_AUTH_FAILURES_PER_MINUTE: '5' }, 'DIALER_AUTH_FAILURES_PER_MINUTE'],
    [{ DIALER_AUTH_FAILURES_PER_MINUTE: '19' }, 'DIALER_AUTH_FAILURES_PER_MINUTE'],
    [{ DIALER_ACCOUNT_FAILURES: '0' }, 'DIALER_ACCOUNT_FAILURES'],
    [{ DIALER_TRUST_PROXY: 'sometimes' }, 'DIALER_TRUST_PROXY'],
    // A count of proxy hops now; "yes" no longer says how many to trust.
    [{ DIALER_TRUST_PROXY: 'yes' }, 'DIALER_TRUST_PROXY'],
    [{ DIALER_TRUST_PROXY: '11' }, 'DIALER_TRUST_PROXY'],
    [{ DIALER_LOG_REQUESTS: 'loud' }, 'DIALER_LOG_REQUESTS'],
    // Was silently taken as info: a typo hid the debug lines asked for.
    [{ DIALER_LOG_LEVEL: 'verbose' }, 'DIALER_LOG_LEVEL'],
    [{ DIALER_LOG_LEVEL: 'warning' }, 'DIALER_LOG_LEVEL'],
    [{ DIALER_LOG_LEVEL: '' }, 'DIALER_LOG_LEVEL'],
    [{ DIALER_LOG_LEVEL: 'toString' }, 'DIALER_LOG_LEVEL'],
    [{ DIALER_API_VERSION: 'v1' }, 'DIALER_API_VERSION'],
    // The calendar-date check: a day that does not exist is not a version.
    [{ DIALER_API_VERSION: '2026-02-31' }, 'DIALER_API_VERSION'],
    [{ DIALER_SHUTDOWN_GRACE_SECONDS: '-1' }, 'DIALER_SHUTDOWN_GRACE_SECONDS'],
    [{ DIALER_SHUTDOWN_GRACE_SECONDS: 'soon' }, 'DIALER_SHUTDOWN_GRACE_SECONDS'],
    [{ DIALER_SQLITE_CACHE_MB: '1' }, 'DIALER_SQLITE_CACHE_MB'],
    [{ DIALER_SQLITE_CACHE_MB: '5000' }, 'DIALER_SQLITE_CACHE_MB'],
    [{ DIALER_SQLITE_CACHE_MB: 'lots' }, 'DIALER_SQLITE_CACHE_MB'],
    [{ DIALER_WINDOW_END_MARGIN_SECONDS: '901' }, 'DIALER_WINDOW_END_MARGIN_SECONDS'],
    [{ DIALER_WINDOW_END_MARGIN_SECONDS: '-1' }, 'DIALER_WINDOW_END_MARGIN_SECONDS'],
    [{ DIALER_WINDOW_END_MARGIN_SECONDS: '1.5' }, 'DIALER_WINDOW_END_MARGIN_SECONDS'],
    [{ DIALER_WINDOW_END_MARGIN_SECONDS: 'a minute' }, 'DIALER_WINDOW_END_MARGIN_SECONDS'],
  ])('%o', (env, name) => {
    expect(configError(() => loadConfig(env)).message).toContain(name)
  })

  test('a bad flag is reported too', () => {
    expect(configError(() => loadConfig({ DIALER_PORT: '8080' }, { port: 'abc' })).message).toContain('DIALER_PORT')
  })

  test('DIALER_TOLL_FREE: strictest_zone or refuse; anything else stops the start with a message naming both', () => {
    expect(loadConfig({ DIALER_TOLL_FREE: 'refuse' }).tollFree).toBe('refuse')
    expect(loadConfig({ DIALER_TOLL_FREE: 'strictest_zone' }).tollFree).toBe('strictest_zone')
    expect(configError(() => loadConfig({ DIALER_TOLL_FREE: 'block' })).message).toBe('DIALER_TOLL_FREE must be strictest_zone or refuse, got "block"')
  })

  test('DIALER_LOG_LEVEL: the four levels in any case; the message lists them and echoes the value', () => {
    expect(['debug', 'INFO', ' Warn ', 'error'].map((raw) => loadConfig({ DIALER_LOG_LEVEL: raw }).logLevel)).toEqual(['debug', 'info', 'warn', 'error'])
    expect(configError(() => loadConfig({ DIALER_LOG_LEVEL: 'verbose' })).message).toBe('DIALER_LOG_LEVEL must be debug, info, warn or error, got "verbose"')
  })

  test('the floor values themselves are accepted', () => {
    expect(loadConfig({ DIALER_AUTH_FAILURES_PER_MINUTE: '20' }).authFailuresPerMinute).toBe(20)
    expect(loadConfig({ DIALER_WINDOW_END_MARGIN_SECONDS: '0' }).windowEndMarginSeconds).toBe(0)
    expect(loadConfig({ DIALER_WINDOW_END_MARGIN_SECONDS: '900' }).windowEndMarginSeconds).toBe(900)
    expect(loadConfig({ DIALER_ADMIN_TOKEN: '1234567890123456' }).adminToken).toBe('1234567890123456')
  })
})

describe('DIALER_SQLITE_CACHE_MB', () => {
  test.each([
    [{}, -16 * 1024],
    [{ DIALER_SQLITE_CACHE_MB: '2' }, -2 * 1024],
  ])('%p sets the service connection page cache', (env, expected) => {
    const h = createHarness({ env })
    try {
      expect((h.services.database.sqlite.query('PRAGMA cache_size').get() as { cache_size: number }).cache_size).toBe(expected)
    } finally {
      h.close()
    }
  })
})
