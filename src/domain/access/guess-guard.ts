import type { Clock } from '../../jobs/clock'

/** Per-address counts per clock minute (src/http/rate-limit.ts MinuteCounter). */
export interface AddressCounter {
  tryAdd(name: string, amount: number, limit: number): { allowed: boolean; reset: number }
  giveBack(name: string, amount: number, at: number): void
  used(name: string): number
}

/** Per-account failures in a sliding window (src/http/rate-limit.ts FailureWindow). */
export interface AccountFailures {
  closedFor(name: string): number
  add(name: string): number
  remove(name: string, at: number): void
}

/** An account's budget (the default of DIALER_ACCOUNT_FAILURES): this many failed attempts within ACCOUNT_WINDOW_MS close it. */
export const ACCOUNT_FAILURES = 10
export const ACCOUNT_WINDOW_MS = 15 * 60_000
/** The admin token is one account, whether tried at the console or as the admin API's bearer. */
export const ADMIN_ACCOUNT = 'admin-token'

/** The account an email names, whether or not it exists (so a refusal never tells which do). */
export function emailAccount(raw: string): string | null {
  const email = raw.trim().toLowerCase().slice(0, 254)
  return email === '' ? null : `email:${email}`
}

export type GuessAttempt =
  | { allowed: true; address: string; account: string | null; at: number; accountAt: number | null }
  | { allowed: false; scope: 'address' | 'account'; retryAfter: number }

/**
 * Budgets for guessable secrets (console passwords, the admin token): per client address
 * (DIALER_AUTH_FAILURES_PER_MINUTE a clock minute, counted apart from API keys' failures) and
 * per account (DIALER_ACCOUNT_FAILURES in a sliding ACCOUNT_WINDOW_MS). An attempt over
 * either is refused before its secret is read, right or wrong. Each attempt is counted as a
 * failure when it begins, so attempts in flight together (a password check takes tens of
 * milliseconds off the event loop) cannot all pass one check; a right one gives its count back.
 */
export function guessGuard(deps: { addresses: AddressCounter; accounts: AccountFailures; perAddress: number; clock: Clock }) {
  return {
    begin(address: string, account: string | null): GuessAttempt {
      const closed = account === null ? 0 : deps.accounts.closedFor(account)
      if (closed > 0) return { allowed: false, scope: 'account', retryAfter: closed }
      const counted = deps.addresses.tryAdd(address, 1, deps.perAddress)
      if (!counted.allowed) return { allowed: false, scope: 'address', retryAfter: counted.reset }
      return { allowed: true, address, account, at: deps.clock.now(), accountAt: account === null ? null : deps.accounts.add(account) }
    },

    /** The secret was right: the attempt's counts are given back. */
    succeeded(attempt: GuessAttempt): void {
      if (!attempt.allowed) return
      deps.addresses.giveBack(attempt.address, 1, attempt.at)
      if (attempt.account !== null && attempt.accountAt !== null) deps.accounts.remove(attempt.account, attempt.accountAt)
    },

    /** What an address has left this minute (RateLimit-Remaining on the admin door's replies). */
    remaining(address: string): number {
      return Math.max(0, deps.perAddress - deps.addresses.used(address))
    },
  }
}

export type GuessGuard = ReturnType<typeof guessGuard>
