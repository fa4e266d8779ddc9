import type { ConsoleStore, UserRow } from '../../db/stores/console-store'
import type { OrgStore } from '../../db/stores/org-store'
import { invalid, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { newId } from '../ids'

/**
 * The console's accounts: an operator makes them for an organization's people. An
 * owner manages the organization (keys, webhooks, DNC, campaigns); an SDR reads and files
 * outcomes. Passwords are hashed with Bun.password (argon2id); the hash never leaves this file
 * and the stores.
 */

export type Role = UserRow['role']
export const ROLES: readonly Role[] = ['owner', 'sdr']

export interface UserInput {
  email: string
  name?: string
  role: Role
  /** Left out: one is made (24 random characters) and shown once in the reply. */
  password?: string
}

export interface UserPatch {
  name?: string
  role?: Role
  password?: string
  disabled?: boolean
}

/** Long enough to resist guessing at the sign-in limit; no composition rules (NIST SP 800-63B). */
export const MIN_PASSWORD = 12
export const MAX_PASSWORD = 200
// One @, something on each side, a dot in the domain: the check a sign-in form needs, not RFC 5322.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/

/** Hash parameters: Bun's argon2id defaults (64 MiB, 2 passes), run off the event loop (slow on purpose). */
export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, { algorithm: 'argon2id' })

/** A hash to verify against when the email is unknown: the reply takes as long either way. */
let decoy: Promise<string> | null = null
export function decoyHash(): Promise<string> {
  return (decoy ??= hashPassword('decoy password for unknown accounts'))
}

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase()
  if (email.length > 254 || !EMAIL.test(email)) throw invalid('email must be an address such as sam@example.com.', 'email')
  return email
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD) throw invalid(`password must be at least ${MIN_PASSWORD} characters.`, 'password')
  if (password.length > MAX_PASSWORD) throw invalid(`password must be at most ${MAX_PASSWORD} characters.`, 'password')
}

export function mintPassword(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url')
}

export function accountService(deps: { console: ConsoleStore; orgs: Pick<OrgStore, 'get'>; clock: Clock; transaction: <T>(work: () => T) => T }) {
  const { clock } = deps
  const store = deps.console
  return {
    async create(orgId: string, input: UserInput): Promise<{ user: UserRow; password: string | null }> {
      if (!deps.orgs.get(orgId)) throw notFound('No such organization')
      const email = normalizeEmail(input.email)
      if (!ROLES.includes(input.role)) throw invalid('role must be owner or sdr.', 'role')
      if (input.password !== undefined) checkPassword(input.password)
      if (store.userByEmail(email)) throw invalid(`An account with ${email} exists already.`, 'email')
      const password = input.password ?? mintPassword()
      const passwordHash = await hashPassword(password)
      const now = clock.now()
      const user = deps.transaction(() => {
        // Checked again after the hash: another request may have taken the address meanwhile.
        if (store.userByEmail(email)) throw invalid(`An account with ${email} exists already.`, 'email')
        return store.insertUser({
          id: newId(), orgId, email, name: input.name?.trim() || email.split('@')[0]!, role: input.role, passwordHash, disabledAt: null, created: now, updated: now,
        })
      })
      return { user, password: input.password === undefined ? password : null }
    },

    get(id: string): UserRow {
      const user = store.user(id)
      if (!user) throw notFound('No such user')
      return user
    },

    list(orgId: string, limit: number, startingAfter?: string): UserRow[] {
      if (!deps.orgs.get(orgId)) throw notFound('No such organization')
      return store.usersOf(orgId, limit, startingAfter)
    },

    /** A new password or a disabled account signs the person out everywhere. */
    async update(id: string, patch: UserPatch): Promise<UserRow> {
      const current = store.user(id)
      if (!current) throw notFound('No such user')
      if (patch.role !== undefined && !ROLES.includes(patch.role)) throw invalid('role must be owner or sdr.', 'role')
      if (patch.password !== undefined) checkPassword(patch.password)
      const passwordHash = patch.password === undefined ? undefined : await hashPassword(patch.password)
      return deps.transaction(() => {
        const disabledAt = patch.disabled === undefined ? undefined : patch.disabled ? (current.disabledAt ?? clock.now()) : null
        const user = store.updateUser(id, { name: patch.name?.trim() || undefined, role: patch.role, passwordHash, disabledAt, updated: clock.now() })!
        if (passwordHash !== undefined || disabledAt || patch.role !== undefined) store.deleteSessionsOf(id)
        return user
      })
    },
  }
}

export type AccountService = ReturnType<typeof accountService>
