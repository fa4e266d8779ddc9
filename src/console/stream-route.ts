import { requireConsole, type ConsoleRequirement } from '../domain/console/console-access'
import type { ConsoleSession } from '../domain/console/sessions'
import { cookieOf, sessionCookieName } from '../http/console-door'
import type { Services } from '../services'
import type { BoardHub, BoardSubscriber } from './board-stream'
import type { ConsoleLimiter } from './console-limits'

/**
 * The response of a console stream route (server-sent events from a board hub): it takes one of
 * the session's stream slots, and each tick the session must still hold (not a touch: a stream
 * is not the person's activity), with the same role and still meeting `requirement` in `orgId`.
 */
export function hubStream(
  s: Services, limits: ConsoleLimiter, hub: BoardHub,
  at: { request: Request; orgId: string; opened: ConsoleSession; requirement: ConsoleRequirement },
): Response {
  const { request, orgId, opened, requirement } = at
  const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' }
  // HEAD gets the head only: a body that never ends would hold the connection (and a stream slot) with nothing sent.
  if (request.method === 'HEAD') return new Response(null, { headers })
  const token = cookieOf(request.headers.get('cookie'), sessionCookieName(s.config.publicUrl)) ?? ''
  const roleOf = (session: ConsoleSession) => (session.identity.kind === 'user' ? session.identity.user.role : 'operator')
  const role = roleOf(opened)
  const stillAllowed = () => {
    const now = s.sessions.resolve(token, false)
    if (!now || now.tokenHash !== opened.tokenHash) return false
    if (roleOf(now) !== role) return false
    // Throws when it no longer holds; the hub ends the stream then (board-stream.ts).
    requireConsole(now, s.stores.orgs.get(orgId), requirement)
    return true
  }
  limits.openStream(opened.tokenHash)
  let unsubscribe: (() => void) | null = null
  let ended = false
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const subscriber: BoardSubscriber = {
        stillAllowed,
        send(bytes) {
          try {
            controller.enqueue(bytes)
            return true
          } catch {
            return false
          }
        },
        end() {
          if (ended) return
          ended = true
          limits.closeStream(opened.tokenHash)
          try {
            controller.close()
          } catch {
            // already closed (the client went away)
          }
        },
      }
      unsubscribe = hub.subscribe(orgId, subscriber)
      request.signal.addEventListener('abort', () => unsubscribe?.())
    },
    cancel() {
      unsubscribe?.()
    },
  })
  return new Response(stream, { headers })
}
