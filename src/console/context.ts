import { Elysia } from 'elysia'
import { consoleAllows, requireConsole, type ConsoleRequirement } from '../domain/console/console-access'
import type { ConsoleSession } from '../domain/console/sessions'
import { ApiError } from '../errors'
import { stateOf } from '../http/request-state'
import type { Services } from '../services'
import type { Capabilities } from './model'

/** The session the console door admitted (never missing on console routes: the door refuses first). */
export function sessionOf(request: Request): ConsoleSession {
  const session = stateOf(request)?.console
  if (!session) throw new ApiError('authentication_failed', 'Sign in to use the console.')
  return session
}

/** What the session routes declare: signing in (no session yet), or any signed-in session. */
export type SessionRequirement = 'sign_in' | 'signed_in'
/** What every console route declares, one of the two macros below; the security table reads it. */
export type ConsoleDeclaration = ConsoleRequirement | SessionRequirement

/** The property a declared route's hook carries (read at start and by the security table). */
export const DECLARED = 'consoleDeclaration'
const declared = <F extends object>(declaration: ConsoleDeclaration, fn: F): F => Object.assign(fn, { [DECLARED]: declaration })

/**
 * The console's authorization, declared on each route as the external API declares its
 * permission (src/http/pipeline.ts): `{ console: 'campaigns:read' }` (or 'owner', 'operator')
 * resolves the session as a principal of the `:org` in the path (404 for an organization that
 * is not there for it, 403 naming what the role lacks) and hands the handler `who` and
 * `session`; `{ consoleSession: 'signed_in' }` is for the routes of the session itself. The
 * check runs after the request is validated, before the handler. A route with neither is
 * refused when the app is built (assertDeclared).
 */
export function consoleContext(s: Services) {
  return new Elysia().macro({
    console(requirement: ConsoleRequirement) {
      return {
        resolve: declared(requirement, ({ request, params }: { request: Request; params: Record<string, string | undefined> }) => {
          const session = sessionOf(request)
          const org = params.org === undefined ? undefined : s.stores.orgs.get(params.org)
          return { session, who: requireConsole(session, org, requirement) }
        }),
      }
    },
    consoleSession(requirement: SessionRequirement) {
      return {
        beforeHandle: declared(requirement, ({ request }: { request: Request }) => {
          if (requirement === 'signed_in') sessionOf(request)
        }),
      }
    },
  })
}

interface RouteLike {
  method: string
  path: string
  hooks?: Record<string, unknown>
}

/** The declaration a route carries in its hooks, or null when it has none. */
export function declarationOf(route: RouteLike): ConsoleDeclaration | null {
  for (const list of Object.values(route.hooks ?? {})) {
    for (const entry of Array.isArray(list) ? list : [list]) {
      const fn = typeof entry === 'function' ? entry : (entry as { fn?: unknown } | null)?.fn
      const found = (fn as Record<string, unknown> | undefined)?.[DECLARED]
      if (typeof found === 'string') return found as ConsoleDeclaration
    }
  }
  return null
}

/** Fails closed at start: a console route that declares no authorization is never served. */
export function assertDeclared(routes: readonly RouteLike[]): void {
  const missing = routes.filter((route) => declarationOf(route) === null).map((route) => `${route.method} ${route.path}`)
  if (missing.length > 0) throw new Error(`Console routes without a console authorization declaration (src/console/context.ts): ${missing.join(', ')}`)
}

/** Each capability the session reply sends is one requirement the routes declare. */
const CAPABILITIES: Record<keyof Capabilities, ConsoleRequirement> = {
  campaigns_read: 'campaigns:read',
  campaigns_write: 'campaigns:write',
  leads_read: 'leads:read',
  imports: 'leads:write',
  calls_read: 'calls:read',
  calls_write: 'calls:write',
  dnc_read: 'dnc:read',
  dnc_write: 'dnc:write',
  events_read: 'events:read',
  webhooks_write: 'webhooks:write',
  usage_read: 'usage:read',
  keys: 'owner',
  people: 'operator',
  numbers: 'owner',
}

/** What this session may do, by the same rule the routes check (the page shows only that). */
export function capabilitiesOf(session: ConsoleSession): Capabilities {
  const entries = Object.entries(CAPABILITIES).map(([name, requirement]) => [name, consoleAllows(session.identity, requirement)])
  return Object.fromEntries(entries) as Capabilities
}
