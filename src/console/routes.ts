import { Elysia, t } from 'elysia'
import { localDateOf, zonedTime } from '../domain/calling-hours/calling-window'
import { OUTCOMES, outcomeLabel } from '../domain/outcomes'
import type { ConsoleSession } from '../domain/console/sessions'
import { ApiError } from '../errors'
import { CONSOLE_API_PREFIX, isHttps, SESSION_COOKIE, sessionCookieName } from '../http/console-door'
import { markRoute } from '../http/pipeline'
import { stateOf } from '../http/request-state'
import { iso } from '../jobs/clock'
import type { Services } from '../services'
import { consoleCallRoutes } from './call-routes'
import { consoleCampaignSettingsRoutes } from './campaign-settings-routes'
import { consoleDncRoutes } from './dnc-routes'
import { consoleImportRoutes } from './import-routes'
import { consoleKeyEventRoutes } from './key-event-routes'
import { consoleLeadRoutes } from './lead-routes'
import { consolePeopleRoutes } from './people-routes'
import { consoleNumberRoutes } from './numbers-routes'
import { consoleUsageRoutes } from './usage-routes'
import { consoleWebhookRoutes } from './webhook-routes'
import { campaignIsAutomated } from '../domain/campaigns/automated'
import { boardHub } from './board-stream'
import { hubStream } from './stream-route'
import { consoleFloorRoutes } from './floor-routes'
import { consoleSeatRoutes } from './seat-routes'
import { ConsoleLimiter } from './console-limits'
import { assertDeclared, capabilitiesOf, consoleContext, sessionOf } from './context'
import { BoardReply, CampaignStatusReply, SessionReply, SignedOutReply } from './model'

const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })
const campaignParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })
const hide = { hide: true }
/** How often the campaign board streams (server-sent events). */
const BOARD_EVERY_MS = 2_000


/**
 * The console's JSON API, for its own pages only: same error envelope as the
 * external API, behind the session cookie (src/http/console-door.ts). Each organization's data
 * goes through the same services and rules as an API key of it (consolePrincipal).
 */
export const consoleRoutes = (s: Services) => {
  const secure = isHttps(s.config.publicUrl)
  // On https a __Host- cookie for the whole host (see console-door.ts); a dialer_session left
  // from before, under /console, is cleared with it, or the two together would be refused.
  const cookie = (value: string, maxAge?: number): string | string[] => {
    const age = maxAge === undefined ? '' : `; Max-Age=${maxAge}`
    if (!secure) return `${SESSION_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict${age}`
    return [`${sessionCookieName(s.config.publicUrl)}=${value}; Path=/; HttpOnly; SameSite=Strict; Secure${age}`, `${SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Secure; Max-Age=0`]
  }
  const me = (session: ConsoleSession) => {
    const identity = session.identity
    const orgs = identity.kind === 'operator' ? s.orgs.list(200) : [s.orgs.get(identity.user.orgId)]
    return {
      kind: identity.kind,
      user: identity.kind === 'user' ? { id: identity.user.id, email: identity.user.email, name: identity.user.name, role: identity.user.role, org_id: identity.user.orgId } : null,
      csrf_token: session.csrfToken,
      // Each outcome with the label the organization files it under (the form and the filter show it).
      orgs: orgs.map((o) => ({ id: o.id, name: o.name, timezone: o.timezone, outcomes: OUTCOMES.map((outcome) => ({ outcome, label: outcomeLabel(o.outcomeLabels, outcome) })) })),
      capabilities: capabilitiesOf(session),
    }
  }
  const board = (orgId: string) => {
    const org = s.orgs.get(orgId)
    const midnight = zonedTime(org.timezone, localDateOf(org.timezone, s.clock.now()), '00:00')
    return s.campaigns.listForOrg(orgId, 200).map((c) => {
      const counts = s.stores.console.board(c.id, midnight)
      const queued = s.queues.size(c.id, true)
      return {
        id: c.id, name: c.name, status: c.status, lines: c.lines, lines_in_use: s.dialer.callsUp(c.id, true),
        queued, queued_call_now: counts.queuedCallNow, queued_other: Math.max(0, queued - counts.queuedCallNow), late: counts.late,
        calls_today: counts.callsToday, connects_today: counts.connectsToday, automated_voice: campaignIsAutomated(c),
      }
    })
  }
  const limits = new ConsoleLimiter(s.clock)
  const boards = boardHub({ board, at: () => iso(s.clock.now()), everyMs: BOARD_EVERY_MS })

  const api = new Elysia({ prefix: CONSOLE_API_PREFIX })
    .use(consoleContext(s))
    .onTransform(markRoute)
    // Every console request but sign-in counts against its session's budget (console-limits.ts).
    .onTransform(({ request }) => {
      const session = stateOf(request)?.console
      if (session) limits.take(session.tokenHash)
    })
    .use(consoleCallRoutes(s))
    .use(consoleCampaignSettingsRoutes(s))
    .use(consoleDncRoutes(s))
    .use(consoleWebhookRoutes(s))
    .use(consoleImportRoutes(s))
    .use(consoleLeadRoutes(s, limits))
    .use(consoleKeyEventRoutes(s))
    .use(consoleUsageRoutes(s))
    .use(consolePeopleRoutes(s))
    .use(consoleNumberRoutes(s))
    .use(consoleSeatRoutes(s))
    .use(consoleFloorRoutes(s, limits))
    .post('/session', async ({ body, request, set }) => {
      // Budgets per address and per account (guess-guard.ts): over either, nothing is checked.
      const client = stateOf(request)!.clientAddress()
      const result = body.admin_token !== undefined
        ? s.sessions.signInOperator(body.admin_token, client)
        : await s.sessions.signIn(body.email ?? '', body.password ?? '', client)
      if (!result.ok && result.reason === 'limited') {
        const message = result.scope === 'account' ? 'Too many failed sign-ins for this account; wait and try again.' : 'Too many failed sign-ins from this address; wait a minute and try again.'
        throw new ApiError('rate_limited', message, { retryAfter: result.retryAfter, extras: { reason: result.scope === 'account' ? 'account_failures' : 'authentication_failures' } })
      }
      // The admin token is one secret, not an account: saying which was wrong tells nothing. A
      // person's wrong password, unknown email and disabled account share one answer.
      const wrong = body.admin_token !== undefined ? 'The admin token is wrong.' : 'The email or password is wrong.'
      if (!result.ok) throw new ApiError('authentication_failed', wrong, { extras: { reason: 'wrong' } })
      set.headers['set-cookie'] = cookie(result.token)
      return { data: me(result.session) }
    }, {
      body: t.Object({
        email: t.Optional(t.String({ maxLength: 254 })),
        password: t.Optional(t.String({ maxLength: 200 })),
        admin_token: t.Optional(t.String({ maxLength: 200 })),
      }, { additionalProperties: false }),
      consoleSession: 'sign_in',
      response: { 200: SessionReply },
      detail: hide,
    })
    .get('/session', ({ request }) => ({ data: me(sessionOf(request)) }), { consoleSession: 'signed_in', response: { 200: SessionReply }, detail: hide })
    .delete('/session', ({ request, set }) => {
      s.sessions.signOut(sessionOf(request))
      set.headers['set-cookie'] = cookie('', 0)
      return { data: { signed_out: true as const } }
    }, { consoleSession: 'signed_in', response: { 200: SignedOutReply }, detail: hide })

    // ---- campaigns ----
    .get('/orgs/:org/campaigns', ({ params }) => ({ data: board(params.org), at: iso(s.clock.now()) }), {
      params: orgParams, console: 'campaigns:read', response: { 200: BoardReply }, detail: hide,
    })
    // The reply is a stream of BoardReply messages (board-stream.ts), not one JSON body.
    .get('/orgs/:org/campaigns/stream', ({ request, params, session: opened }) =>
      hubStream(s, limits, boards, { request, orgId: params.org, opened, requirement: 'campaigns:read' }), { params: orgParams, console: 'campaigns:read', detail: hide })
    .post('/orgs/:org/campaigns/:id/pause', ({ params, who }) => ({ data: { id: params.id, status: s.campaigns.pause(who, params.id) } }), {
      params: campaignParams, console: 'campaigns:write', response: { 200: CampaignStatusReply }, detail: hide,
    })
    .post('/orgs/:org/campaigns/:id/activate', ({ params, who }) => ({ data: { id: params.id, status: s.campaigns.activate(who, params.id) } }), {
      params: campaignParams, console: 'campaigns:write', response: { 200: CampaignStatusReply }, detail: hide,
    })
  assertDeclared(api.routes)
  return api
}
