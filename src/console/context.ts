import { consolePrincipal } from '../domain/console/console-access'
import type { ConsoleSession } from '../domain/console/sessions'
import { ApiError } from '../errors'
import { stateOf } from '../http/request-state'
import type { Services } from '../services'

/** The session the console door admitted (never missing on console routes: the door refuses first). */
export function sessionOf(request: Request): ConsoleSession {
  const session = stateOf(request)?.console
  if (!session) throw new ApiError('authentication_failed', 'Sign in to use the console.')
  return session
}

/** The request's session as a principal of the organization in the path (404 for another organization's person). */
export const principalOf = (s: Services) => (request: Request, orgId: string) => consolePrincipal(sessionOf(request), s.stores.orgs.get(orgId))
