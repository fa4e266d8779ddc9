import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PERMISSIONS, type Permission } from '../../src/domain/access/permissions'
import { createHarness, scratchDir, seedWorld, type Reply, type TestKey, type World } from '../harness'
import { externalRoutes, type RouteRow } from './route-table'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Security tests per route (issue 16, item 8). The table is generated from the app itself
 * (route-table.ts: every route under /api/v1/external but the OpenAPI document, with the
 * permission its `permission` option enforces), and every row is run for:
 *
 * - a live key of the same organization holding every permission but the route's: 403
 *   permission_denied naming it (`missing_permission`, `campaign_id` null), with a valid
 *   request and again with an invalid one (the permission is checked before the body);
 * - another organization's live key on this organization's objects: 404 not_found (lists:
 *   none of them; creates: the object named in the body is 404);
 * - a test key of the same organization on live objects: 404 (lists: no live object). Campaigns
 *   and Do Not Call are the exceptions the contract makes: a test key sees a campaign's id and
 *   name and its activate/pause change nothing; a test key's Do Not Call list is its own;
 * - a key limited to the world's campaign on objects of another campaign of the organization:
 *   404, or 403 where the contract says so (a request naming that campaign: DESIGN.md
 *   "Requests, errors, scope"); lists leave those objects out. The Do Not Call list is the
 *   organization's, not a campaign's (spec "Authentication" 4), so a limited key uses it as any;
 * - the right key: 2xx (the positive control).
 *
 * A refused request must also leave its object as it was (`untouched`). A route with no row
 * in SECURITY, or with no permission, fails: a new route cannot ship without its security
 * row. The objects live in a second active campaign (`c2`) outside the limited key's scope.
 */

// ---- the table, read from the app ----

const dataDir = scratchDir('dialer-route-security-')
const h = createHarness({ autoDial: true, env: { DIALER_WEBHOOK_ALLOW_PRIVATE: '1', DIALER_DATA_DIR: dataDir.path } })
const ROWS: RouteRow[] = externalRoutes(h.routes.routes)

/**
 * Cases that fail today because of a defect in src/, reported to the lead. They run as
 * `test.failing`: the assertion is kept, and the entry must go once the defect is fixed.
 * Keyed by the test's name.
 */
const KNOWN_DEFECTS: Record<string, string> = {}

// ---- the world ----

interface Objects {
  /** Active, with an SDR, outside the limited key's scope. */
  c2: string
  /** Active, with an SDR, outside the scope; activate and pause work on it. */
  c3: string
  /** A live lead in c2 (external_id sec-lead), called once (scenario 01). */
  lead: string
  /** A live lead in c2 scheduled for a retry after a no_answer call (POST /calls takes it). */
  retryLead: string
  call: string
  event: string
  /** A live endpoint for c2's lead.created events, with a delivery. */
  endpoint: string
  delivery: string
  dnc: { id: string; phone: string }
  exportId: string
}

let w: World
let o: Objects
let receiver: ReturnType<typeof Bun.serve>
let hookUrl: string

const LEAD_NAME = 'Lee Secure'
const LEAD_EXTERNAL_ID = 'sec-lead'
const ENDPOINT_DESCRIPTION = 'security table'

const AREAS = ['212', '646', '718', '917']
let phoneSeq = 0
/** A new New York number each call, +1 AAA 555 SSNN: the simulator plays scenario NN (docs/design.md). */
function freshPhone(nn = '01'): string {
  const n = phoneSeq++
  const area = AREAS[Math.floor(n / 70)]
  if (!area) throw new Error('out of test phone numbers')
  return `+1${area}555${30 + (n % 70)}${nn}`
}

async function must(reply: Promise<Reply>, status: number, what: string): Promise<any> {
  const r = await reply
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text}`)
  return r.body.data
}

const memo = <T>(fn: () => Promise<T>) => {
  let value: Promise<T> | undefined
  return () => (value ??= fn())
}

async function newCampaign(name: string): Promise<string> {
  const data = await must(h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name, status: 'active', lines: 60, sdrs: [{ name: 'Kim Park' }] }), 201, 'campaign')
  return data.id
}

const addLiveLead = async (body: Record<string, unknown>) =>
  (await must(h.api('POST', '/leads', { key: w.live, body: { campaign_id: o.c2, ...body } }), 201, 'lead')).id as string

const newEndpoint = async () =>
  (await must(h.api('POST', '/webhook_endpoints', {
    key: w.live, body: { url: hookUrl, events: ['lead.created'], campaign_ids: [o.c2], description: ENDPOINT_DESCRIPTION },
  }), 201, 'endpoint')).id as string

const newDncEntry = async () => {
  const phone = freshPhone()
  const data = await must(h.api('POST', '/dnc', { key: w.live, body: { phone } }), 201, 'dnc entry')
  return { id: data.id as string, phone }
}

const campaignStatus = async (id: string) => (await must(h.admin('GET', `/campaigns/${id}`), 200, 'campaign read')).status as string
const setCampaignStatus = async (id: string, status: string) => must(h.admin('PATCH', `/campaigns/${id}`, { status }), 200, 'campaign patch')
const liveLead = (id: string) => h.api('GET', `/leads/${id}`, { key: w.live })
const liveListed = async (phone: string) =>
  (await must(h.api('GET', `/dnc/check?phone=${encodeURIComponent(phone)}`, { key: w.live }), 200, 'dnc check')).onDncList as boolean
const liveLeadPhones = async (campaignId: string) =>
  (await must(h.api('GET', `/leads?campaign_id=${campaignId}&limit=100`, { key: w.live }), 200, 'lead list')).map((l: any) => l.phone) as string[]

async function setUp(): Promise<void> {
  w = await seedWorld(h)
  receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('ok') })
  hookUrl = `http://127.0.0.1:${receiver.port}/hook`
  const c2 = await newCampaign('Out of scope')
  const c3 = await newCampaign('Actions')
  o = { c2, c3 } as Objects
  o.endpoint = await newEndpoint()
  o.lead = await addLiveLead({ phone: freshPhone('01'), external_id: LEAD_EXTERNAL_ID, name: LEAD_NAME })
  o.retryLead = await addLiveLead({ phone: freshPhone('02') })
  // Both calls end (01: not_interested after a short talk; 02: no answer after 30 s), the
  // no_answer lead waits 60 minutes for its retry, and the 15:05 usage count runs.
  await h.advance(120)
  await h.advance(300)
  const calls = await must(h.api('GET', `/calls?lead_id=${o.lead}`, { key: w.live }), 200, 'calls')
  expect(calls).toHaveLength(1)
  expect(calls[0]).toMatchObject({ status: 'ended', recording_available: true, transcript_available: true })
  o.call = calls[0].id
  expect((await liveLead(o.retryLead)).body.data.status).toBe('scheduled')
  const events = await must(h.api('GET', `/events?object_id=${o.lead}`, { key: w.live }), 200, 'events')
  expect(events.length).toBeGreaterThan(0)
  o.event = events[0].id
  const deliveries = await must(h.api('GET', `/webhook_endpoints/${o.endpoint}/deliveries`, { key: w.live }), 200, 'deliveries')
  expect(deliveries.length).toBeGreaterThan(0)
  o.delivery = deliveries[0].id
  o.dnc = await newDncEntry()
  o.exportId = (await must(h.api('POST', '/exports', { key: w.live, body: { exportType: 'leads' } }), 200, 'export')).export.id
}

/** A live key of the organization with every permission but `missing`. */
const keysWithout = new Map<Permission, Promise<TestKey>>()
function keyWithout(missing: Permission): Promise<TestKey> {
  let key = keysWithout.get(missing)
  if (!key) {
    key = h.createKey(w.orgId, {
      name: `without ${missing}`, mode: 'live', permissions: PERMISSIONS.filter((p) => p !== missing), requests_per_minute: 100000, burst: 100000,
    })
    keysWithout.set(missing, key)
  }
  return key
}

// ---- checks ----

type CaseId = 'otherOrg' | 'otherMode' | 'scope' | 'ok'
interface Req {
  path: string
  body?: unknown
}
interface Ctx {
  row: RouteRow
  req: Req
  key: TestKey
}
type Check = (r: Reply, c: Ctx) => unknown

interface Security {
  /** The valid request of the right key; every case sends it (`kase` lets a row use an object of its own per case). */
  request(kase: CaseId | 'permission'): Req | Promise<Req>
  otherOrg: Check
  otherMode: Check
  scope: Check
  ok: Check
  /** After a refused request (4xx): what it named is as it was. */
  untouched?: (req: Req) => Promise<void>
}

const errorOf = (r: Reply) => (typeof r.body === 'object' && r.body !== null ? r.body.error : undefined)
const gist = (r: Reply) => ({ status: r.status, code: errorOf(r)?.code ?? null })

const notFound = (param?: string | null): Check => (r) => {
  const withParam = param !== undefined
  expect({ ...gist(r), ...(withParam ? { param: errorOf(r)?.param } : {}) })
    .toEqual({ status: 404, code: 'not_found', ...(withParam ? { param } : {}) })
}

/** 403 permission_denied naming the route's permission and `campaign()` (DESIGN.md "Requests, errors, scope"). */
const denied = (campaign: () => string | null, param?: string): Check => (r, c) => {
  const e = errorOf(r) ?? {}
  expect({ status: r.status, code: e.code, missing_permission: e.missing_permission, campaign_id: e.campaign_id, ...(param ? { param: e.param } : {}) })
    .toEqual({ status: 403, code: 'permission_denied', missing_permission: c.row.permission, campaign_id: campaign(), ...(param ? { param } : {}) })
}

const success = (status: number, then?: (data: any, r: Reply, c: Ctx) => unknown): Check => async (r, c) => {
  expect({ ...gist(r), error: errorOf(r)?.message ?? null }).toEqual({ status, code: null, error: null })
  await then?.(r.body.data, r, c)
}

const all = (...checks: Check[]): Check => async (r, c) => {
  for (const check of checks) await check(r, c)
}

const idsOf = (data: any[]) => data.map((x) => x.id as string)
const without = (hidden: () => string[]): Check => success(200, (data) => expect(idsOf(data).filter((id) => hidden().includes(id))).toEqual([]))
const including = (shown: () => string[]): Check => success(200, (data) => expect(shown().filter((id) => !idsOf(data).includes(id))).toEqual([]))

/** The same key asks again: `path` answers as `check` says. */
const alsoAsks = (method: string, path: () => string, check: Check): Check => async (_r, c) => {
  const req = { path: path() }
  await check(await h.api(method, req.path, { key: c.key }), { ...c, req })
}
const emptyList: Check = success(200, (data) => expect(data).toEqual([]))

/** Reached by id: the other organization, the other mode and a campaign out of scope are all 404. */
function byId(request: Security['request'], ok: Check, untouched?: Security['untouched']): Security {
  return { request, otherOrg: notFound(), otherMode: notFound(), scope: notFound(), ok, untouched }
}

/** A campaign named in the path of a write (the older lead paths): 404, or 403 naming it. */
const refusedCampaignPath: Check = (r, c) => {
  const e = errorOf(r) ?? {}
  const seen = { status: r.status, code: e.code ?? null, campaign_id: e.campaign_id ?? null, missing_permission: e.missing_permission ?? null }
  expect([
    { status: 404, code: 'not_found', campaign_id: null, missing_permission: null },
    { status: 403, code: 'permission_denied', campaign_id: o.c2, missing_permission: c.row.permission },
  ]).toContainEqual(seen)
}

const phoneSent = (req: Req) => {
  const body = req.body as { phone?: string; leads?: { phone: string }[] }
  return body.phone ?? body.leads![0]!.phone
}
/** A refused lead add saved nothing. */
const leadNotAdded = async (req: Req) => expect(await liveLeadPhones(o.c2)).not.toContain(phoneSent(req))

const webhookPath = (tail = '') => `/webhook_endpoints/${o.endpoint}${tail}`
const endpointKept = async () => {
  const r = await h.api('GET', webhookPath(), { key: w.live })
  expect({ status: r.status, description: r.body.data?.description }).toEqual({ status: 200, description: ENDPOINT_DESCRIPTION })
}

// ---- the expectations per route ----

const createEndpointRow = (path: string): Security => ({
  request: () => ({ path, body: { url: hookUrl, events: ['lead.created'], campaign_ids: [o.c2] } }),
  otherOrg: notFound('campaign_ids[0]'),
  otherMode: success(201, (data) => expect({ mode: data.mode, livemode: data.livemode }).toEqual({ mode: 'test', livemode: false })),
  scope: denied(() => o.c2, 'campaign_ids[0]'),
  ok: success(201, (data) => expect({ mode: data.mode, campaign_ids: data.campaign_ids }).toEqual({ mode: 'live', campaign_ids: [o.c2] })),
})

const pausedC3 = memo(() => setCampaignStatus(o.c3, 'paused'))
const activeC3 = memo(() => setCampaignStatus(o.c3, 'active'))
const optOutLead = memo(() => addLiveLead({ phone: freshPhone('01') }))
const deletableDnc = memo(newDncEntry)
const scopedDeletableDnc = memo(newDncEntry)
const deletableEndpoint = memo(newEndpoint)

const SECURITY: Record<string, Security> = {
  // -- campaigns: shared by both modes; a test key sees id and name only (docs/decisions.md "Campaigns")
  'GET /campaigns': {
    request: () => ({ path: '/campaigns?limit=100' }),
    otherOrg: without(() => [w.campaignId, w.draftCampaignId, o.c2, o.c3]),
    otherMode: success(200, (data) => {
      expect(data.length).toBeGreaterThan(0)
      for (const c of data) expect({ keys: Object.keys(c).sort(), livemode: c.livemode }).toEqual({ keys: ['id', 'livemode', 'name'], livemode: false })
    }),
    scope: success(200, (data) => expect(idsOf(data)).toEqual([w.campaignId])),
    ok: including(() => [w.campaignId, o.c2, o.c3]),
  },
  'GET /campaigns/:id': {
    request: () => ({ path: `/campaigns/${o.c2}` }),
    otherOrg: notFound(),
    otherMode: success(200, (data) => expect(data).toEqual({ id: o.c2, name: 'Out of scope', livemode: false })),
    scope: notFound(),
    ok: success(200, (data) => expect({ id: data.id, status: data.status }).toEqual({ id: o.c2, status: 'active' })),
  },
  'POST /campaigns/:id/activate': {
    request: async () => {
      await pausedC3()
      return { path: `/campaigns/${o.c3}/activate` }
    },
    otherOrg: notFound(),
    // A test key changes nothing and is told the status the campaign would have.
    otherMode: all(success(200, (data) => expect(data).toEqual({ id: o.c3, status: 'active', livemode: false })),
      async () => expect(await campaignStatus(o.c3)).toBe('paused')),
    scope: notFound(),
    ok: all(success(200, (data) => expect(data).toEqual({ id: o.c3, status: 'active', livemode: true })),
      async () => expect(await campaignStatus(o.c3)).toBe('active')),
    untouched: async () => expect(await campaignStatus(o.c3)).toBe('paused'),
  },
  'POST /campaigns/:id/pause': {
    request: async () => {
      await activeC3()
      return { path: `/campaigns/${o.c3}/pause` }
    },
    otherOrg: notFound(),
    otherMode: all(success(200, (data) => expect(data).toEqual({ id: o.c3, status: 'paused', livemode: false })),
      async () => expect(await campaignStatus(o.c3)).toBe('active')),
    scope: notFound(),
    ok: all(success(200, (data) => expect(data).toEqual({ id: o.c3, status: 'paused', livemode: true })),
      async () => expect(await campaignStatus(o.c3)).toBe('paused')),
    untouched: async () => expect(await campaignStatus(o.c3)).toBe('active'),
  },

  // -- leads
  'POST /leads': {
    request: () => ({ path: '/leads', body: { campaign_id: o.c2, phone: freshPhone() } }),
    otherOrg: notFound('campaign_id'),
    // Campaigns serve both modes: a test key adds a test lead, which the live key cannot see.
    otherMode: success(201, async (data) => {
      expect(data.livemode).toBe(false)
      expect(gist(await liveLead(data.id))).toEqual({ status: 404, code: 'not_found' })
    }),
    scope: denied(() => o.c2, 'campaign_id'),
    ok: success(201, (data) => expect(data.livemode).toBe(true)),
    untouched: leadNotAdded,
  },
  'POST /leads/batch': {
    request: () => ({ path: '/leads/batch', body: { campaign_id: o.c2, leads: [{ phone: freshPhone() }] } }),
    // Each lead is checked on its own (a failing lead does not stop the others).
    otherOrg: success(200, (data) => expect({ failed: data.failed, code: data.results[0].error?.code, param: data.results[0].error?.param })
      .toEqual({ failed: 1, code: 'not_found', param: 'leads[0].campaign_id' })),
    otherMode: success(200, (data) => expect({ succeeded: data.succeeded, livemode: data.livemode }).toEqual({ succeeded: 1, livemode: false })),
    scope: all(success(200, (data) => expect({ failed: data.failed, code: data.results[0].error?.code, param: data.results[0].error?.param })
      .toEqual({ failed: 1, code: 'permission_denied', param: 'leads[0].campaign_id' })), (_r, c) => leadNotAdded(c.req)),
    ok: success(200, (data) => expect({ succeeded: data.succeeded, livemode: data.livemode }).toEqual({ succeeded: 1, livemode: true })),
    untouched: leadNotAdded,
  },
  'GET /leads/:id': byId(() => ({ path: `/leads/${o.lead}` }), success(200, (data) => expect(data.id).toBe(o.lead))),
  'GET /leads/:id/contactability': byId(
    () => ({ path: `/leads/${o.lead}/contactability` }),
    success(200, (data) => expect({ lead_id: data.lead_id, livemode: data.livemode }).toEqual({ lead_id: o.lead, livemode: true })),
  ),
  'GET /leads': {
    request: () => ({ path: '/leads?limit=100' }),
    otherOrg: all(without(() => [o.lead]), alsoAsks('GET', () => `/leads?external_id=${LEAD_EXTERNAL_ID}`, notFound())),
    otherMode: all(without(() => [o.lead]), success(200, (data) => expect(data.filter((l: any) => l.livemode !== false)).toEqual([])),
      alsoAsks('GET', () => `/leads?external_id=${LEAD_EXTERNAL_ID}`, notFound())),
    scope: all(
      success(200, (data) => expect(data.filter((l: any) => l.campaign_id !== w.campaignId).map((l: any) => l.campaign_id)).toEqual([])),
      alsoAsks('GET', () => `/leads?external_id=${LEAD_EXTERNAL_ID}`, notFound()),
      alsoAsks('GET', () => `/leads?campaign_id=${o.c2}`, denied(() => o.c2, 'campaign_id')),
    ),
    ok: all(including(() => [o.lead]),
      alsoAsks('GET', () => `/leads?external_id=${LEAD_EXTERNAL_ID}`, success(200, (data) => expect(data.id).toBe(o.lead)))),
  },
  'PATCH /leads/:id': byId(
    () => ({ path: `/leads/${o.lead}`, body: { name: 'Changed by the right key' } }),
    success(200, (data) => expect(data.name).toBe('Changed by the right key')),
    async () => expect((await liveLead(o.lead)).body.data.name).toBe(LEAD_NAME),
  ),
  'POST /leads/:id/opt_out': byId(
    async () => ({ path: `/leads/${await optOutLead()}/opt_out`, body: { reason: 'asked to stop' } }),
    success(200, (data) => expect(data.status).toBe('out_of_queue')),
    async (req) => {
      const lead = (await liveLead(req.path.split('/')[2]!)).body.data
      expect({ outOfQueue: lead.status === 'out_of_queue', listed: await liveListed(lead.phone) }).toEqual({ outOfQueue: false, listed: false })
    },
  ),
  'GET /campaigns/:id/leads': {
    request: () => ({ path: `/campaigns/${o.c2}/leads?limit=100` }),
    otherOrg: notFound(),
    otherMode: all(without(() => [o.lead]), success(200, (data) => expect(data.filter((l: any) => l.livemode !== false)).toEqual([]))),
    scope: notFound(),
    ok: including(() => [o.lead]),
  },
  'POST /campaigns/:id/leads': {
    request: () => ({ path: `/campaigns/${o.c2}/leads`, body: { phone: freshPhone() } }),
    otherOrg: notFound(),
    otherMode: success(201, (data) => expect(data.livemode).toBe(false)),
    scope: refusedCampaignPath,
    ok: success(201, (data) => expect(data.livemode).toBe(true)),
    untouched: leadNotAdded,
  },
  'POST /campaigns/:id/leads/batch': {
    request: () => ({ path: `/campaigns/${o.c2}/leads/batch`, body: { leads: [{ phone: freshPhone() }] } }),
    otherOrg: notFound(),
    otherMode: success(200, (data) => expect({ succeeded: data.succeeded, livemode: data.livemode }).toEqual({ succeeded: 1, livemode: false })),
    scope: refusedCampaignPath,
    ok: success(200, (data) => expect({ succeeded: data.succeeded, livemode: data.livemode }).toEqual({ succeeded: 1, livemode: true })),
    untouched: leadNotAdded,
  },

  // -- calls
  'GET /calls': {
    request: () => ({ path: '/calls?limit=100' }),
    otherOrg: all(without(() => [o.call]), alsoAsks('GET', () => `/calls?lead_id=${o.lead}`, emptyList)),
    otherMode: all(without(() => [o.call]), success(200, (data) => expect(data.filter((c: any) => c.livemode !== false)).toEqual([])),
      alsoAsks('GET', () => `/calls?lead_id=${o.lead}`, emptyList)),
    scope: all(
      success(200, (data) => expect(data.filter((c: any) => c.campaign_id !== w.campaignId).map((c: any) => c.campaign_id)).toEqual([])),
      alsoAsks('GET', () => `/calls?lead_id=${o.lead}`, emptyList),
      alsoAsks('GET', () => `/calls?campaign_id=${o.c2}`, denied(() => o.c2, 'campaign_id')),
    ),
    ok: including(() => [o.call]),
  },
  'GET /calls/:id': byId(() => ({ path: `/calls/${o.call}` }), success(200, (data) => expect(data.id).toBe(o.call))),
  'GET /calls/:id/recording': byId(() => ({ path: `/calls/${o.call}/recording` }), success(200, (data) => expect(data.livemode).toBe(true))),
  'GET /calls/:id/transcript': byId(() => ({ path: `/calls/${o.call}/transcript` }), success(200, (data) => expect(data.call_id).toBe(o.call))),
  'POST /calls': {
    request: () => ({ path: '/calls', body: { lead_id: o.retryLead } }),
    otherOrg: notFound('lead_id'),
    otherMode: notFound('lead_id'),
    // The lead is out of scope (404); naming its campaign is 403 naming the campaign.
    scope: all(notFound('lead_id'), async (_r, c) => {
      const r = await h.api('POST', '/calls', { key: c.key, body: { lead_id: o.retryLead, campaign_id: o.c2 } })
      await denied(() => o.c2, 'campaign_id')(r, c)
    }),
    ok: success(202, (data) => expect(data.lead_id).toBe(o.retryLead)),
    untouched: async () => expect((await liveLead(o.retryLead)).body.data.status).toBe('scheduled'),
  },

  // -- Do Not Call: the organization's list, one per mode
  'GET /dnc/check': {
    request: () => ({ path: `/dnc/check?phone=${encodeURIComponent(o.dnc.phone)}` }),
    otherOrg: success(200, (data) => expect(data.onDncList).toBe(false)),
    otherMode: success(200, (data) => expect({ onDncList: data.onDncList, livemode: data.livemode }).toEqual({ onDncList: false, livemode: false })),
    scope: success(200, (data) => expect(data.onDncList).toBe(true)),
    ok: success(200, (data) => expect(data.onDncList).toBe(true)),
  },
  'POST /dnc': {
    request: () => ({ path: '/dnc', body: { phone: freshPhone() } }),
    // Another organization's key or a test key adds to its own list, never to this one.
    otherOrg: success(201, async (_data, _r, c) => expect(await liveListed(phoneSent(c.req))).toBe(false)),
    otherMode: success(201, async (data, _r, c) => {
      expect(data.livemode).toBe(false)
      expect(await liveListed(phoneSent(c.req))).toBe(false)
    }),
    scope: success(201, async (_data, _r, c) => expect(await liveListed(phoneSent(c.req))).toBe(true)),
    ok: success(201, async (_data, _r, c) => expect(await liveListed(phoneSent(c.req))).toBe(true)),
    untouched: async (req) => expect(await liveListed(phoneSent(req))).toBe(false),
  },
  'POST /dnc/batch': {
    request: () => ({ path: '/dnc/batch', body: { phones: [freshPhone()] } }),
    otherOrg: success(200, async (data, _r, c) => {
      expect(data.succeeded).toBe(1)
      expect(await liveListed((c.req.body as { phones: string[] }).phones[0]!)).toBe(false)
    }),
    otherMode: success(200, async (data, _r, c) => {
      expect({ succeeded: data.succeeded, livemode: data.livemode }).toEqual({ succeeded: 1, livemode: false })
      expect(await liveListed((c.req.body as { phones: string[] }).phones[0]!)).toBe(false)
    }),
    scope: success(200, (data) => expect(data.succeeded).toBe(1)),
    ok: success(200, (data) => expect({ succeeded: data.succeeded, livemode: data.livemode }).toEqual({ succeeded: 1, livemode: true })),
    untouched: async (req) => expect(await liveListed((req.body as { phones: string[] }).phones[0]!)).toBe(false),
  },
  'GET /dnc': {
    request: () => ({ path: '/dnc?limit=100' }),
    otherOrg: without(() => [o.dnc.id]),
    otherMode: without(() => [o.dnc.id]),
    scope: including(() => [o.dnc.id]),
    ok: including(() => [o.dnc.id]),
  },
  'DELETE /dnc/:id': {
    request: async (kase) => ({ path: `/dnc/${(kase === 'scope' ? await scopedDeletableDnc() : await deletableDnc()).id}` }),
    otherOrg: notFound(),
    otherMode: notFound(),
    scope: success(200, async (data) => expect(await liveListed(data.phone)).toBe(false)),
    ok: success(200, async (data) => expect(await liveListed(data.phone)).toBe(false)),
    untouched: async () => expect(await liveListed((await deletableDnc()).phone)).toBe(true),
  },

  // -- events
  'GET /events': {
    request: () => ({ path: '/events?limit=100' }),
    otherOrg: all(without(() => [o.event]), alsoAsks('GET', () => `/events?object_id=${o.lead}`, emptyList)),
    otherMode: all(without(() => [o.event]), alsoAsks('GET', () => `/events?object_id=${o.lead}`, emptyList)),
    scope: all(without(() => [o.event]), alsoAsks('GET', () => `/events?object_id=${o.lead}`, emptyList),
      alsoAsks('GET', () => `/events?campaign_id=${o.c2}`, denied(() => o.c2, 'campaign_id'))),
    ok: alsoAsks('GET', () => `/events?object_id=${o.lead}`, including(() => [o.event])),
  },
  'GET /events/:id': byId(() => ({ path: `/events/${o.event}` }), success(200, (data) => expect(data.id).toBe(o.event))),

  // -- webhook endpoints
  'POST /webhook_endpoints': createEndpointRow('/webhook_endpoints'),
  'POST /webhooks': createEndpointRow('/webhooks'),
  'GET /webhook_endpoints': {
    request: () => ({ path: '/webhook_endpoints?limit=100' }),
    otherOrg: without(() => [o.endpoint]),
    otherMode: without(() => [o.endpoint]),
    scope: without(() => [o.endpoint]),
    ok: including(() => [o.endpoint]),
  },
  'GET /webhook_endpoints/:id': byId(() => ({ path: webhookPath() }), success(200, (data) => expect(data.id).toBe(o.endpoint))),
  'PATCH /webhook_endpoints/:id': byId(
    () => ({ path: webhookPath(), body: { description: 'changed by the right key' } }),
    success(200, (data) => expect(data.description).toBe('changed by the right key')),
    endpointKept,
  ),
  'DELETE /webhook_endpoints/:id': byId(
    async () => ({ path: `/webhook_endpoints/${await deletableEndpoint()}` }),
    success(200, async (data) => {
      expect(data.id).toBe(await deletableEndpoint())
      expect((await h.api('GET', `/webhook_endpoints/${data.id}`, { key: w.live })).status).toBe(404)
    }),
    async () => expect((await h.api('GET', `/webhook_endpoints/${await deletableEndpoint()}`, { key: w.live })).status).toBe(200),
  ),
  'POST /webhook_endpoints/:id/resume': byId(() => ({ path: webhookPath('/resume') }), success(200, (data) => expect(data.status).toBe('active'))),
  'POST /webhook_endpoints/:id/test': byId(() => ({ path: webhookPath('/test') }), success(200, (data) => expect(data.endpoint_id).toBe(o.endpoint))),
  'POST /webhook_endpoints/:id/roll_secret': byId(() => ({ path: webhookPath('/roll_secret'), body: {} }), success(200, (data) => expect(data.id).toBe(o.endpoint))),
  'GET /webhook_endpoints/:id/deliveries': byId(() => ({ path: webhookPath('/deliveries?limit=100') }), including(() => [o.delivery])),
  'POST /webhook_endpoints/:id/deliveries/:delivery_id/resend': byId(
    () => ({ path: webhookPath(`/deliveries/${o.delivery}/resend`) }),
    success(200, (data) => expect({ endpoint_id: data.endpoint_id, resent_from: data.resent_from }).toEqual({ endpoint_id: o.endpoint, resent_from: o.delivery })),
  ),

  // -- usage: counted at 15:05, before any test-mode activity
  'GET /usage': {
    request: () => ({ path: '/usage?group_by=campaign' }),
    otherOrg: success(200, (data) => expect(data.groups.map((g: any) => g.campaign_id).filter((id: string) => [w.campaignId, o.c2].includes(id))).toEqual([])),
    otherMode: success(200, (data) => expect({ livemode: data.livemode, cost: data.totals.cost_usd, groups: data.groups }).toEqual({ livemode: false, cost: 0, groups: [] })),
    scope: success(200, (data) => expect(data.groups.map((g: any) => g.campaign_id).filter((id: string) => id !== w.campaignId)).toEqual([])),
    ok: success(200, (data) => expect(data.groups.find((g: any) => g.campaign_id === o.c2)?.leads_added).toBeGreaterThanOrEqual(2)),
  },

  // -- exports: leads:read and calls:read on a key for every campaign
  'POST /exports': {
    request: () => ({ path: '/exports', body: { exportType: 'leads', filters: { campaignId: o.c2 } } }),
    otherOrg: notFound('filters.campaignId'),
    otherMode: success(200, (data) => expect(data.livemode).toBe(false)),
    scope: denied(() => null),
    ok: success(200, (data) => expect({ livemode: data.livemode, type: data.export.exportType }).toEqual({ livemode: true, type: 'leads' })),
  },
  'GET /exports': {
    request: () => ({ path: '/exports' }),
    otherOrg: without(() => [o.exportId]),
    otherMode: emptyList,
    scope: denied(() => null),
    ok: including(() => [o.exportId]),
  },
}

// ---- running a row ----

const KEYS: Record<CaseId, () => TestKey> = { otherOrg: () => w.otherLive, otherMode: () => w.test, scope: () => w.scoped, ok: () => w.live }

function specOf(row: RouteRow): Security {
  const spec = SECURITY[row.name]
  if (!spec) throw new Error(`${row.name} has no row in SECURITY (test/http/route-security.test.ts): every external route needs one`)
  return spec
}

async function runCase(row: RouteRow, kase: CaseId): Promise<void> {
  const spec = specOf(row)
  const req = await spec.request(kase)
  const key = KEYS[kase]()
  const r = await h.api(row.method, req.path, { key, body: req.body })
  await spec[kase](r, { row, req, key })
  if (kase !== 'ok' && r.status >= 400) await spec.untouched?.(req)
}

/** The same request made invalid: an unknown body field, or an unknown query parameter. */
function invalidated(method: string, req: Req): Req {
  if (method === 'POST' || method === 'PATCH') {
    const base = typeof req.body === 'object' && req.body !== null ? req.body : {}
    return { path: req.path, body: { ...base, zz_not_a_field: true } }
  }
  return { path: `${req.path}${req.path.includes('?') ? '&' : '?'}zz_not_a_param=1`, body: req.body }
}

async function runDenied(row: RouteRow, permission: Permission): Promise<void> {
  const spec = specOf(row)
  const req = await spec.request('permission')
  const key = await keyWithout(permission)
  for (const [sent, request] of [['valid', req], ['invalid', invalidated(row.method, req)]] as const) {
    const r = await h.api(row.method, request.path, { key, body: request.body })
    const e = errorOf(r) ?? {}
    expect({ sent, status: r.status, code: e.code, missing_permission: e.missing_permission, campaign_id: e.campaign_id })
      .toEqual({ sent, status: 403, code: 'permission_denied', missing_permission: permission, campaign_id: null })
  }
  await spec.untouched?.(req)
  // The invalid body is one: the right key gets 400 for it (a GET's unknown parameter may be ignored).
  if (row.method === 'POST' || row.method === 'PATCH') {
    const request = invalidated(row.method, req)
    const r = await h.api(row.method, request.path, { key: w.live, body: request.body })
    expect({ right_key: gist(r), param: errorOf(r)?.param }).toEqual({ right_key: { status: 400, code: 'invalid_request' }, param: 'zz_not_a_field' })
  }
}

interface Entry {
  name: string
  run: () => Promise<void>
}

const CASES: { id: CaseId; label: string }[] = [
  { id: 'otherOrg', label: 'another organization\u2019s key' },
  { id: 'otherMode', label: 'the other mode (test key on live objects)' },
  { id: 'scope', label: 'a key limited to another campaign' },
  { id: 'ok', label: 'the right key (positive control)' },
]

const ENTRIES: Entry[] = ROWS.flatMap((row) => [
  {
    name: `${row.name} › enforces the permission it documents`,
    run: async () => {
      expect({ enforced: row.permission, documented: row.documented, spec: row.name in SECURITY })
        .toEqual({ enforced: expect.any(String), documented: row.permission, spec: true })
    },
  },
  ...[row.permission, ...row.alsoDocumented]
    .filter((p): p is Permission => p !== null)
    .map((permission) => ({ name: `${row.name} › a key without ${permission}`, run: () => runDenied(row, permission) })),
  ...CASES.map((kase) => ({ name: `${row.name} › ${kase.label}`, run: () => runCase(row, kase.id) })),
])

describe('security per route', () => {
  beforeAll(setUp)
  afterAll(() => {
    h.close()
    receiver?.stop(true)
    dataDir.remove()
  })

  test('the table is every external route, and SECURITY has no row for a route that is gone', () => {
    expect(ROWS.length).toBeGreaterThan(30)
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length)
    const names = new Set(ROWS.map((r) => r.name))
    expect(Object.keys(SECURITY).filter((name) => !names.has(name))).toEqual([])
    expect(ROWS.filter((r) => r.permission === null).map((r) => r.name)).toEqual([])
    expect(Object.keys(KNOWN_DEFECTS).filter((name) => !ENTRIES.some((e) => e.name === name))).toEqual([])
  })

  const toRun = ENTRIES.filter((e) => !(e.name in KNOWN_DEFECTS)).map((e) => [e.name, e] as [string, Entry])
  const known = ENTRIES.filter((e) => e.name in KNOWN_DEFECTS).map((e) => [e.name, e] as [string, Entry])
  test.each(toRun)('%s', (_name, entry) => entry.run())
  if (known.length > 0) test.failing.each(known)('%s (known defect)', (_name, entry) => entry.run())
})
