import { Elysia, t } from 'elysia'
import { localDateOf, zonedTime } from '../domain/calling-hours/calling-window'
import { requireConsolePermission } from '../domain/console/console-access'
import type { ConsoleSession } from '../domain/console/sessions'
import { ApiError } from '../errors'
import { CONSOLE_API_PREFIX, SESSION_COOKIE } from '../http/console-door'
import { markRoute } from '../http/pipeline'
import { stateOf } from '../http/request-state'
import { iso } from '../jobs/clock'
import type { Services } from '../services'
import { consoleCallRoutes } from './call-routes'
import { consoleDncRoutes } from './dnc-routes'
import { consoleImportRoutes } from './import-routes'
import { consoleKeyEventRoutes } from './key-event-routes'
import { consoleLeadRoutes } from './lead-routes'
import { consolePeopleRoutes } from './people-routes'
import { consoleUsageRoutes } from './usage-routes'
import { consoleWebhookRoutes } from './webhook-routes'
import { principalOf, sessionOf } from './context'

const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })
const campaignParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })
const hide = { hide: true }
/** How often the campaign board streams (server-sent events). */
const BOARD_EVERY_MS = 2_000


/**
 * The console's JSON API (issue 19), for its own pages only: same error envelope as the
 * external API, behind the session cookie (src/http/console-door.ts). Each organization's data
 * goes through the same services and rules as an API key of it (consolePrincipal).
 */
export const consoleRoutes = (s: Services) => {
  const secure = s.config.publicUrl.startsWith('https:')
  const cookie = (value: string, maxAge?: number) =>
    `${SESSION_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`
  const me = (session: ConsoleSession) => {
    const identity = session.identity
    const orgs = identity.kind === 'operator' ? s.orgs.list(200) : [s.orgs.get(identity.user.orgId)]
    return {
      kind: identity.kind,
      user: identity.kind === 'user' ? { id: identity.user.id, email: identity.user.email, name: identity.user.name, role: identity.user.role, org_id: identity.user.orgId } : null,
      csrf_token: session.csrfToken,
      orgs: orgs.map((o) => ({ id: o.id, name: o.name, timezone: o.timezone })),
    }
  }
  const principal = principalOf(s)
  const board = (orgId: string) => {
    const org = s.orgs.get(orgId)
    const midnight = zonedTime(org.timezone, localDateOf(org.timezone, s.clock.now()), '00:00')
    return s.campaigns.listForOrg(orgId, 200).map((c) => {
      const counts = s.stores.console.board(c.id, midnight)
      const queued = s.queues.size(c.id, true)
      return {
        id: c.id, name: c.name, status: c.status, lines: c.lines, lines_in_use: s.dialer.callsUp(c.id, true),
        queued, queued_call_now: counts.queuedCallNow, queued_other: Math.max(0, queued - counts.queuedCallNow), late: counts.late,
        calls_today: counts.callsToday, connects_today: counts.connectsToday,
      }
    })
  }

  return new Elysia({ prefix: CONSOLE_API_PREFIX })
    .onTransform(markRoute)
    .use(consoleCallRoutes(s))
    .use(consoleDncRoutes(s))
    .use(consoleWebhookRoutes(s))
    .use(consoleImportRoutes(s))
    .use(consoleLeadRoutes(s))
    .use(consoleKeyEventRoutes(s))
    .use(consoleUsageRoutes(s))
    .use(consolePeopleRoutes(s))
    .post('/session', async ({ body, request, set }) => {
      const state = stateOf(request)!
      const result = body.admin_token !== undefined
        ? s.sessions.signInOperator(body.admin_token)
        : await s.sessions.signIn(body.email ?? '', body.password ?? '')
      if (!result.ok) {
        // Failed sign-ins count against the address like failed keys (DIALER_AUTH_FAILURES_PER_MINUTE).
        const counted = s.limits.authFailures.tryAdd(state.clientAddress(), 1, s.config.authFailuresPerMinute)
        if (!counted.allowed) {
          throw new ApiError('rate_limited', 'Too many failed sign-ins from this address; wait a minute and try again.', { retryAfter: counted.reset, extras: { reason: 'authentication_failures' } })
        }
        throw new ApiError('authentication_failed', result.reason === 'disabled' ? 'This account is disabled; ask your operator.' : 'The email or password is wrong.', { extras: { reason: result.reason } })
      }
      set.headers['set-cookie'] = cookie(result.token)
      return { data: me(result.session) }
    }, {
      body: t.Object({
        email: t.Optional(t.String({ maxLength: 254 })),
        password: t.Optional(t.String({ maxLength: 200 })),
        admin_token: t.Optional(t.String({ maxLength: 200 })),
      }, { additionalProperties: false }),
      detail: hide,
    })
    .get('/session', ({ request }) => ({ data: me(sessionOf(request)) }), { detail: hide })
    .delete('/session', ({ request, set }) => {
      s.sessions.signOut(sessionOf(request))
      set.headers['set-cookie'] = cookie('', 0)
      return { data: { signed_out: true } }
    }, { detail: hide })

    // ---- campaigns ----
    .get('/orgs/:org/campaigns', ({ request, params }) => {
      requireConsolePermission(principal(request, params.org), 'campaigns:read')
      return { data: board(params.org), at: iso(s.clock.now()) }
    }, { params: orgParams, detail: hide })
    .get('/orgs/:org/campaigns/stream', ({ request, params }) => {
      requireConsolePermission(principal(request, params.org), 'campaigns:read')
      const encoder = new TextEncoder()
      let timer: ReturnType<typeof setInterval> | null = null
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const send = () => {
            try {
              controller.enqueue(encoder.encode(`event: campaigns\ndata: ${JSON.stringify({ data: board(params.org), at: iso(s.clock.now()) })}\n\n`))
            } catch {
              if (timer) clearInterval(timer)
            }
          }
          send()
          timer = setInterval(send, BOARD_EVERY_MS)
          request.signal.addEventListener('abort', () => {
            if (timer) clearInterval(timer)
            try {
              controller.close()
            } catch {
              // already closed
            }
          })
        },
        cancel() {
          if (timer) clearInterval(timer)
        },
      })
      return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' } })
    }, { params: orgParams, detail: hide })
    .post('/orgs/:org/campaigns/:id/pause', ({ request, params }) => {
      const who = principal(request, params.org)
      requireConsolePermission(who, 'campaigns:write')
      return { data: { id: params.id, status: s.campaigns.pause(who, params.id) } }
    }, { params: campaignParams, detail: hide })
    .post('/orgs/:org/campaigns/:id/activate', ({ request, params }) => {
      const who = principal(request, params.org)
      requireConsolePermission(who, 'campaigns:write')
      return { data: { id: params.id, status: s.campaigns.activate(who, params.id) } }
    }, { params: campaignParams, detail: hide })
}
