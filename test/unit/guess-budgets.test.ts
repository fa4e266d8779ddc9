import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ACCOUNT_FAILURES, ACCOUNT_WINDOW_MS, ADMIN_ACCOUNT, emailAccount, guessGuard } from '../../src/domain/access/guess-guard'
import { FailureWindow, MinuteCounter } from '../../src/http/rate-limit'
import { FakeClock } from '../../src/jobs/clock'

setDefaultTimeout(60_000)

// Budgets for guessable secrets: per address (a clock minute) and per account (sliding 15
// minutes); over either, an attempt is refused before its secret is looked at.

/** On a clock minute. */
const START = Date.UTC(2026, 0, 5, 15, 0, 0)
const MIN = 60_000

function setUp(perAddress = 20) {
  const clock = new FakeClock(START)
  const addresses = new MinuteCounter(clock)
  const accounts = new FailureWindow(clock, ACCOUNT_FAILURES, ACCOUNT_WINDOW_MS)
  const guard = guessGuard({ addresses, accounts, perAddress, clock })
  const at = (ms: number) => clock.set(START + ms)
  return { clock, addresses, accounts, guard, at }
}

describe('FailureWindow: 10 failures in a sliding 15 minutes', () => {
  // [failure times (ms after start), when asked, seconds closed for]
  test.each([
    ['9 failures', [0, 1, 2, 3, 4, 5, 6, 7, 8], 9, 0],
    ['10 at once: closed 15 minutes', Array(10).fill(0), 0, 900],
    ['10 over 14 minutes: closed until the first is 15 minutes old', [0, ...Array(9).fill(14 * MIN)], 14 * MIN, 60],
    ['the first ages out: open again', [0, ...Array(9).fill(14 * MIN)], 15 * MIN, 0],
    ['10 spread over more than 15 minutes never close it', Array.from({ length: 10 }, (_, i) => i * 2 * MIN), 18 * MIN, 0],
    ['12 failures: the newest 10 decide', [0, 1 * MIN, 2 * MIN, ...Array(9).fill(3 * MIN)], 3 * MIN, 14 * 60],
  ])('%s', (_, times, askAt, closedFor) => {
    const { accounts, at } = setUp()
    for (const t of times as number[]) {
      at(t)
      accounts.add('a')
    }
    at(askAt as number)
    expect(accounts.closedFor('a')).toBe(closedFor as number)
    expect(accounts.closedFor('other')).toBe(0)
  })

  test('remove() takes back one failure', () => {
    const { accounts } = setUp()
    let last = 0
    for (let i = 0; i < 10; i++) last = accounts.add('a')
    expect(accounts.closedFor('a')).toBe(900)
    accounts.remove('a', last)
    expect(accounts.closedFor('a')).toBe(0)
  })

  test('at most maxNames names; the one that failed longest ago goes first', () => {
    const clock = new FakeClock(START)
    const accounts = new FailureWindow(clock, 2, ACCOUNT_WINDOW_MS, 3)
    for (const name of ['a', 'b', 'c']) accounts.add(name)
    accounts.add('a')
    accounts.add('a')
    accounts.add('d')
    expect(accounts.size).toBe(3)
    // 'b' was the oldest; 'a' was refreshed.
    expect(accounts.closedFor('a')).toBe(900)
    for (let i = 0; i < 1000; i++) accounts.add(`rotating-${i}`)
    expect(accounts.size).toBe(3)
  })
})

describe('MinuteCounter: bounded', () => {
  test('names past maxNames evict the oldest, even within one minute', () => {
    const clock = new FakeClock(START)
    const counter = new MinuteCounter(clock, 100)
    for (let i = 0; i < 10_000; i++) counter.tryAdd(`10.0.${i >> 8}.${i & 255}`, 1, 20)
    expect(counter.size).toBeLessThanOrEqual(100)
    // The newest name is still counted.
    expect(counter.used('10.0.39.15')).toBe(1)
  })

  test('giveBack takes back within the same minute only', () => {
    const clock = new FakeClock(START)
    const counter = new MinuteCounter(clock)
    counter.tryAdd('x', 3, 20)
    counter.giveBack('x', 1, START)
    expect(counter.used('x')).toBe(2)
    clock.set(START + MIN)
    counter.tryAdd('x', 1, 20)
    counter.giveBack('x', 1, START)
    expect(counter.used('x')).toBe(1)
  })
})

describe('guessGuard: over either budget every attempt is refused unread', () => {
  test('20 wrong from an address, then the 21st (right or wrong) is refused until the minute turns', () => {
    const { guard, at } = setUp(20)
    for (let i = 0; i < 20; i++) expect(guard.begin('198.51.100.7', emailAccount(`user${i}@example.com`)).allowed).toBe(true)
    at(10_000)
    expect(guard.begin('198.51.100.7', emailAccount('new@example.com'))).toEqual({ allowed: false, scope: 'address', retryAfter: 50 })
    expect(guard.begin('198.51.100.7', null)).toMatchObject({ allowed: false, scope: 'address' })
    // Other addresses are not affected.
    expect(guard.begin('203.0.113.9', emailAccount('new@example.com')).allowed).toBe(true)
    at(MIN)
    expect(guard.begin('198.51.100.7', emailAccount('new@example.com')).allowed).toBe(true)
  })

  test('10 wrong for one account from 10 addresses: the 11th is refused from any address for 15 minutes', () => {
    const { guard, at } = setUp(20)
    for (let i = 0; i < 10; i++) expect(guard.begin(`10.0.0.${i}`, emailAccount('Owner@Acme.example')).allowed).toBe(true)
    // Normalized: case and spaces name the same account.
    expect(guard.begin('10.9.9.9', emailAccount('  owner@acme.EXAMPLE '))).toEqual({ allowed: false, scope: 'account', retryAfter: 900 })
    expect(guard.begin('10.9.9.9', emailAccount('someone@acme.example')).allowed).toBe(true)
    at(ACCOUNT_WINDOW_MS - 1000)
    expect(guard.begin('10.9.9.9', emailAccount('owner@acme.example'))).toMatchObject({ allowed: false, retryAfter: 1 })
    at(ACCOUNT_WINDOW_MS)
    expect(guard.begin('10.9.9.9', emailAccount('owner@acme.example')).allowed).toBe(true)
  })

  test('a right secret gives its counts back: successes never use up a budget', () => {
    const { guard } = setUp(20)
    for (let i = 0; i < 100; i++) guard.succeeded(guard.begin('10.0.0.1', ADMIN_ACCOUNT))
    expect(guard.remaining('10.0.0.1')).toBe(20)
    for (let i = 0; i < 10; i++) guard.begin('10.0.0.1', ADMIN_ACCOUNT)
    expect(guard.remaining('10.0.0.1')).toBe(10)
    expect(guard.begin('10.0.0.2', ADMIN_ACCOUNT)).toMatchObject({ allowed: false, scope: 'account' })
  })

  test('attempts in flight together are each counted when they begin (a slow password check cannot be raced)', () => {
    const { guard } = setUp(20)
    const begun = Array.from({ length: 40 }, () => guard.begin('10.0.0.1', null))
    expect(begun.filter((a) => a.allowed)).toHaveLength(20)
    const forAccount = Array.from({ length: 40 }, (_, i) => guard.begin(`10.1.0.${i}`, emailAccount('a@b.example')))
    expect(forAccount.filter((a) => a.allowed)).toHaveLength(10)
  })

  test('no account (missing email): only the address counts', () => {
    expect(emailAccount('   ')).toBeNull()
    const { guard } = setUp(20)
    for (let i = 0; i < 15; i++) expect(guard.begin('10.0.0.1', emailAccount('')).allowed).toBe(true)
  })
})
