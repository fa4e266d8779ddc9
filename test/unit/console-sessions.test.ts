import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { migrate, openDatabase } from '../../src/db/client'
import { createStores } from '../../src/db/stores'
import { adminToken, resetAdminToken } from '../../src/domain/access/admin-token'
import { ACCOUNT_FAILURES, ACCOUNT_WINDOW_MS, guessGuard } from '../../src/domain/access/guess-guard'
import { IDLE_MS, OPERATOR_LIFETIME_MS, USER_LIFETIME_MS, sessionService } from '../../src/domain/console/sessions'
import { FailureWindow, MinuteCounter } from '../../src/http/rate-limit'
import { FakeClock } from '../../src/jobs/clock'

setDefaultTimeout(60_000)

// Console sessions: idle and absolute lifetimes, and the operator's bound to the admin token's epoch.

const START = Date.UTC(2026, 0, 5, 15, 0, 0)
const PASSWORD = 'a password of some length'
const TOKEN = 'configured-admin-token-0123456789'
let passwordHash = ''

beforeAll(async () => {
  passwordHash = await Bun.password.hash(PASSWORD, { algorithm: 'argon2id' })
})

function setUp(configured: string | null = TOKEN, database = openDatabase(':memory:')) {
  migrate(database)
  // Accounts without their organization: this is about sessions alone.
  database.sqlite.run('PRAGMA foreign_keys = OFF')
  const stores = createStores(database)
  const clock = new FakeClock(START)
  const token = adminToken(stores.settings, configured)
  const addresses = new MinuteCounter(clock)
  const guesses = guessGuard({ addresses, accounts: new FailureWindow(clock, ACCOUNT_FAILURES, ACCOUNT_WINDOW_MS), perAddress: 20, clock })
  const sessions = sessionService({ console: stores.console, adminToken: token, guesses, clock, transaction: stores.transaction })
  const user = (email: string, disabledAt: number | null = null) =>
    stores.console.insertUser({ id: crypto.randomUUID(), orgId: crypto.randomUUID(), email, name: 'x', role: 'owner', passwordHash, disabledAt, created: START, updated: START })
  // Moves time while keeping the session in use every hour (idle never reached).
  const keepUsing = (token: string, ms: number) => {
    let alive = true
    for (let t = 0; t < ms; t += 3_600_000) {
      clock.set(clock.now() + Math.min(3_600_000, ms - t))
      alive = sessions.resolve(token) !== null
      if (!alive) break
    }
    return alive
  }
  return { database, stores, clock, token, sessions, user, keepUsing, addresses }
}

async function signedIn(s: ReturnType<typeof setUp>, email: string) {
  const r = await s.sessions.signIn(email, PASSWORD, '10.0.0.1')
  if (!r.ok) throw new Error(`sign-in failed: ${r.reason}`)
  return r.token
}

describe('lifetimes', () => {
  test.each([
    ['a person', USER_LIFETIME_MS],
    ['the operator', OPERATOR_LIFETIME_MS],
  ])('%s: in use the whole time, the session still ends at its lifetime from sign-in', async (who, lifetime) => {
    const s = setUp()
    s.user('p@example.com')
    const token = who === 'the operator' ? (s.sessions.signInOperator(TOKEN, '10.0.0.1') as { token: string }).token : await signedIn(s, 'p@example.com')
    expect(s.keepUsing(token, lifetime)).toBe(true)
    s.clock.set(s.clock.now() + 1)
    expect(s.sessions.resolve(token)).toBeNull()
    // Deleted, not merely refused.
    expect(s.database.sqlite.query('SELECT count(*) AS n FROM console_sessions').get()).toEqual({ n: 0 })
  })

  test('idle past 8 hours ends a session well within its lifetime', async () => {
    const s = setUp()
    s.user('p@example.com')
    const token = await signedIn(s, 'p@example.com')
    s.clock.set(START + IDLE_MS)
    expect(s.sessions.resolve(token)).not.toBeNull()
    s.clock.set(START + 2 * IDLE_MS + 1)
    expect(s.sessions.resolve(token)).toBeNull()
  })
})

describe('sign-in answers', () => {
  test('a disabled account with its right password answers exactly as a wrong password, and counts as a failure', async () => {
    const s = setUp()
    s.user('off@example.com', START)
    expect(await s.sessions.signIn('off@example.com', PASSWORD, '10.0.0.1')).toEqual({ ok: false, reason: 'wrong' })
    expect(await s.sessions.signIn('off@example.com', 'wrong password here', '10.0.0.1')).toEqual({ ok: false, reason: 'wrong' })
    expect(s.addresses.used('10.0.0.1')).toBe(2)
  })

  test('over the account budget the right password is refused without a session', async () => {
    const s = setUp()
    s.user('p@example.com')
    for (let i = 0; i < ACCOUNT_FAILURES; i++) expect((await s.sessions.signIn('p@example.com', `wrong ${i}`, `10.0.0.${i}`)).ok).toBe(false)
    expect(await s.sessions.signIn('P@example.com', PASSWORD, '10.0.1.1')).toEqual({ ok: false, reason: 'limited', scope: 'account', retryAfter: 900 })
    expect(s.database.sqlite.query('SELECT count(*) AS n FROM console_sessions').get()).toEqual({ n: 0 })
  })
})

describe('the operator’s session is bound to the admin token in force', () => {
  test('a reset (another epoch) ends it; a person’s session stays', async () => {
    const s = setUp(null)
    s.user('p@example.com')
    const minted = s.token.minted!
    const operator = (s.sessions.signInOperator(minted, '10.0.0.1') as { token: string }).token
    const person = await signedIn(s, 'p@example.com')
    expect(s.sessions.resolve(operator)?.identity.kind).toBe('operator')
    const fresh = resetAdminToken(s.stores.settings)
    expect(s.sessions.resolve(operator)).toBeNull()
    expect(s.sessions.resolve(person)).not.toBeNull()
    const again = s.sessions.signInOperator(fresh, '10.0.0.1') as { token: string }
    expect(s.sessions.resolve(again.token)).not.toBeNull()
  })

  test('a session from before epochs (admin_epoch null) ends', () => {
    const s = setUp()
    const operator = (s.sessions.signInOperator(TOKEN, '10.0.0.1') as { token: string }).token
    s.database.sqlite.run('UPDATE console_sessions SET admin_epoch = NULL')
    expect(s.sessions.resolve(operator)).toBeNull()
  })

  test('a configured token: same at the next start keeps the epoch; another one, or the minted one, changes it', () => {
    const database = openDatabase(':memory:')
    const first = setUp(TOKEN, database)
    const epoch = first.token.epoch()
    expect(epoch).toMatch(/^[A-Za-z0-9_-]{22}$/)
    // Only a slow (argon2id) hash of the chosen secret is stored, never the secret or its SHA-256.
    const stored = database.sqlite.query('SELECT name, value FROM settings').all() as { name: string; value: string }[]
    expect(stored.find((r) => r.name === 'admin_token_argon2')?.value).toStartWith('$argon2id$')
    expect(JSON.stringify(stored)).not.toContain(TOKEN)
    expect(JSON.stringify(stored)).not.toContain(new Bun.CryptoHasher('sha256').update(TOKEN).digest('hex'))
    expect(adminToken(first.stores.settings, TOKEN).epoch()).toBe(epoch)
    const other = adminToken(first.stores.settings, 'another-configured-token-0123456789')
    const otherEpoch = other.epoch()
    expect(otherEpoch).not.toBe(epoch)
    expect(other.matches(TOKEN)).toBe(false)
    const back = adminToken(first.stores.settings, TOKEN).epoch()
    expect(back).not.toBe(otherEpoch)
    const unset = adminToken(first.stores.settings, null).epoch()
    expect(unset).not.toBe(back)
    expect(adminToken(first.stores.settings, null).epoch()).toBe(unset)
  })
})
