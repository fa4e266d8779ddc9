import { Elysia, t } from 'elysia'
import { ApiError, invalid, notFound } from '../errors'
import { iso } from '../jobs/clock'
import { listReply } from '../http/paging'
import { bodyChecksOf, type BodyCheck } from '../http/body-check'
import { ADMIN_PREFIX, markAdminRoute } from '../http/pipeline'
import { bodyReader, readChunks } from '../http/body-reader'
import { REGISTRY_FILE } from '../http/registry-upload'
import { CSV_FILE } from '../http/csv-upload'
import { PERMISSIONS } from '../domain/access/permissions'
import { personPrincipal } from '../domain/console/console-access'
import { parseMapping } from '../domain/leads/lead-import'
import type { OrgRow } from '../db/stores/org-store'
import { AdminCall } from '../domain/calls/call-shape'
import type { Services } from '../services'
import {
  adminListQuery, ClockBody, CreateCampaignBody, CreateKeyBody, CreateOrgBody, CreateUserBody, PatchCampaignBody, PatchKeyBody,
  PatchOrgBody, PatchUserBody, presentAdminCampaign, presentKey, presentOrg, presentRetired, presentUser, RetireNumberBody,
} from './model'
import { presentRegistry, presentRegistryImport } from './registry-model'
import { presentImport } from './import-model'

const orgParams = t.Object({ id: t.String({ format: 'uuid' }) })
const keyParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) })
const detail = (summary: string) => ({ tags: ['Admin'], summary, hide: true })

/**
 * The operator's API (DESIGN.md "Admin API"): Bearer admin token (checked by the request
 * pipeline), `{ data }` replies, the external API's error envelope.
 */
export const adminRoutes = (s: Services) => {
  // An organization with its carrier or pool (never a secret: reads show auth_token_set and the like).
  const org = (row: OrgRow) => presentOrg(row, s.orgs.carrierFields(row.id))
  // Each body is checked against its route's schema before Elysia validates it (as external
  // bodies are, body-check.ts): Elysia's own error prints the whole value, slow for a large
  // string where the limit is 200 characters.
  let bodyChecks = new Map<string, BodyCheck>()
  const app = new Elysia({ prefix: ADMIN_PREFIX })
    .use(bodyReader())
    // Destructured on purpose: Elysia reads this hook's source, and a hook that hands the whole
    // context on counts as using all of it, which compiles every GET route async.
    .onTransform(({ request, route, body, params, query }) => {
      markAdminRoute({ request, route })
      bodyChecks.get(`${request.method} ${route}`)?.(body, params, query)
    })
    // ---- organizations ----
    .post('/orgs', ({ body, set }) => {
      set.status = 201
      return { data: org(s.orgs.create(body)) }
    }, { body: CreateOrgBody, detail: detail('Create an organization') })
    .get('/orgs', ({ query }) => {
      const limit = query.limit ?? 50
      return listReply(s.orgs.list(limit + 1, query.starting_after), limit, org)
    }, { query: adminListQuery, detail: detail('List organizations') })
    .get('/orgs/:id', ({ params }) => ({ data: org(s.orgs.get(params.id)) }), { params: orgParams, detail: detail('Get an organization') })
    .patch('/orgs/:id', ({ params, body }) => ({ data: org(s.orgs.update(params.id, body)) }), {
      params: orgParams, body: PatchOrgBody, detail: detail('Change an organization'),
    })

    // ---- API keys ----
    .post('/orgs/:id/keys', ({ params, body, set }) => {
      const { key, secret } = s.keys.create(params.id, body)
      set.status = 201
      return { data: presentKey(key, secret) }
    }, { params: orgParams, body: CreateKeyBody, detail: detail('Create an API key (the secret is shown once)') })
    .get('/orgs/:id/keys', ({ params, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.keys.listForOrg(params.id, limit + 1, query.starting_after), limit, (k) => presentKey(k))
    }, { params: orgParams, query: adminListQuery, detail: detail('List API keys') })
    .get('/keys/:id', ({ params }) => ({ data: presentKey(s.keys.get(params.id)) }), { params: keyParams, detail: detail('Get an API key') })
    .patch('/keys/:id', ({ params, body }) => {
      const key = s.keys.update(params.id, body)
      s.limits.requests.forget(key.id)
      return { data: presentKey(key) }
    }, { params: keyParams, body: PatchKeyBody, detail: detail('Change an API key') })
    .post('/keys/:id/revoke', ({ params }) => ({ data: presentKey(s.keys.revoke(params.id)) }), {
      params: keyParams, detail: detail('Revoke an API key'),
    })

    // ---- console accounts ----
    .post('/orgs/:id/users', async ({ params, body, set }) => {
      const { user, password } = await s.accounts.create(params.id, body)
      set.status = 201
      return { data: presentUser(user, password) }
    }, { params: orgParams, body: CreateUserBody, detail: detail('Create a console account (a minted password is shown once)') })
    .get('/orgs/:id/users', ({ params, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.accounts.list(params.id, limit + 1, query.starting_after), limit, (u) => presentUser(u))
    }, { params: orgParams, query: adminListQuery, detail: detail("List an organization's console accounts") })
    .get('/users/:id', ({ params }) => ({ data: presentUser(s.accounts.get(params.id)) }), { params: orgParams, detail: detail('Get a console account') })
    .patch('/users/:id', async ({ params, body }) => ({ data: presentUser(await s.accounts.update(params.id, body)) }), {
      params: orgParams, body: PatchUserBody, detail: detail('Change a console account (a new password or disabling signs it out)'),
    })

    // ---- campaigns ----
    .post('/orgs/:id/campaigns', ({ params, body, set }) => {
      set.status = 201
      return { data: presentAdminCampaign(s.campaigns.create(params.id, body)) }
    }, { params: orgParams, body: CreateCampaignBody, detail: detail('Create a campaign') })
    .get('/orgs/:id/campaigns', ({ params, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.campaigns.listForOrg(params.id, limit + 1, query.starting_after), limit, presentAdminCampaign)
    }, { params: orgParams, query: adminListQuery, detail: detail('List campaigns') })
    .get('/campaigns/:id', ({ params }) => ({ data: presentAdminCampaign(s.campaigns.getAny(params.id)) }), {
      params: orgParams, detail: detail('Get a campaign with all its settings'),
    })
    .patch('/campaigns/:id', ({ params, body }) => {
      const campaign = s.campaigns.update(params.id, body)
      // A spend cap raised or removed releases held leads at once.
      if (body.spend_cap_usd !== undefined) s.usage.evaluateCaps()
      // More lines, or a campaign started here, may take leads now.
      s.dialer.pump(campaign.id, true)
      s.dialer.pump(campaign.id, false)
      return { data: presentAdminCampaign(campaign) }
    }, {
      params: orgParams, body: PatchCampaignBody, detail: detail('Change a campaign'),
    })
    .post('/campaigns/:id/retired_numbers', ({ params, body, set }) => {
      set.status = 201
      return { data: presentRetired(s.campaigns.retireNumber(params.id, body.phone, body.livemode ?? true, body.reason ?? 'manual')) }
    }, { params: orgParams, body: RetireNumberBody, detail: detail('Retire a number in a campaign') })
    .get('/campaigns/:id/retired_numbers', ({ params, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.campaigns.listRetired(params.id, limit + 1, query.starting_after), limit, presentRetired)
    }, { params: orgParams, query: adminListQuery, detail: detail("List a campaign's retired numbers") })
    .delete('/campaigns/:id/retired_numbers/:numberId', ({ params }) =>
      ({ data: presentRetired(s.campaigns.unretireNumber(params.id, params.numberId)) }), {
      params: t.Object({ id: t.String({ format: 'uuid' }), numberId: t.String({ format: 'uuid' }) }),
      detail: detail('Put a retired number back in use'),
    })

    // ---- calls ----
    .get('/calls/:id', ({ params }) => ({ data: s.calls.adminView(params.id) }), {
      params: orgParams,
      response: { 200: t.Object({ data: AdminCall }) },
      detail: detail('Get a call: the Call object of GET /api/v1/external/calls/{id}, with its organization, carrier and recording consent'),
    })

    // ---- the app's actions (people) ----
    .post('/calls/:id/outcome', ({ params, body }) => ({ data: s.calls.view(s.calls.fileOutcome(params.id, body)) }), {
      params: orgParams,
      body: t.Object(
        { outcome: t.Optional(t.String({ maxLength: 50 })), outcome_label: t.Optional(t.String({ minLength: 1, maxLength: 100 })), note: t.Optional(t.Nullable(t.String({ maxLength: 5000 }))) },
        { additionalProperties: false },
      ),
      detail: detail('File or correct a call outcome (call.completed, revision 2, 3...)'),
    })
    .post('/leads/:id/take_out_of_queue', ({ params, body }) => ({ data: s.leads.view(s.leads.takeOutOfQueue(params.id, body?.reason ?? null)) }), {
      params: orgParams,
      body: t.Optional(t.Object({ reason: t.Optional(t.String({ maxLength: 500 })) }, { additionalProperties: false })),
      detail: detail('Take a lead out of the dialing queue (POST /calls then answers lead_taken_out_of_queue)'),
    })

    // ---- lead CSV import: the body is the CSV file, streamed (src/http/csv-upload.ts) ----
    .post('/orgs/:id/leads/import', async ({ params, query, request }) => {
      const org = s.orgs.get(params.id)
      const operator = personPrincipal(org, { keyId: 'admin', keyName: 'operator (admin API)', permissions: PERMISSIONS })
      const options = { dryRun: query.dry_run === 'true', mapping: parseMapping(query.map) }
      return { data: await s.leads.importCsv(operator, query.campaign_id, readChunks(request, CSV_FILE), options) }
    }, {
      reads: CSV_FILE,
      params: orgParams,
      query: t.Object({
        campaign_id: t.String({ format: 'uuid' }),
        dry_run: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
        map: t.Optional(t.String({ maxLength: 10_000 })),
      }),
      detail: detail('Import leads from a CSV file into a campaign (no lead.created); dry_run=true only checks'),
    })
    // Each import's record; a dry run keeps none (docs/console.md).
    .get('/orgs/:id/imports', ({ params, query }) => {
      s.orgs.get(params.id)
      const limit = query.limit ?? 50
      return listReply(s.imports.list(params.id, limit + 1, query.starting_after), limit, presentImport)
    }, { params: orgParams, query: adminListQuery, detail: detail("List an organization's lead CSV imports, newest first") })
    .get('/imports/:id', ({ params }) => ({ data: presentImport(s.imports.get(params.id)) }), {
      params: orgParams, detail: detail('Get a lead CSV import: its state and counters (an interrupted one resumes when the same file is sent again)'),
    })

    // ---- the national Do Not Call registry and the state lists (docs/dnc-registry.md) ----
    // The body is the file, streamed (text/plain, up to 256 MB): src/http/registry-upload.ts.
    .post('/dnc_registry', async ({ request, query }) =>
      ({ data: presentRegistryImport(await s.registry.import(readChunks(request, REGISTRY_FILE), { force: query.force === 'true', list: query.list })) }), {
      reads: REGISTRY_FILE,
      query: t.Object({
        force: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
        list: t.Optional(t.String({ maxLength: 100, description: '"national" (the default) or the two-letter code of a state with its own list (docs/dnc-registry.md)' })),
      }),
      detail: detail("Import the national Do Not Call registry file, or a state's list with list=TX (replaces that list only; 409 registry_shrink past half, unless force=true)"),
    })
    .get('/dnc_registry', () => ({ data: presentRegistry(s.registry.summary()) }), {
      detail: detail('The national registry in use (size and import time), and each state list'),
    })

    // ---- periodic jobs ----
    .get('/jobs', () => ({ data: s.scheduler.jobNames().map((name) => ({ name })) }), { detail: detail('List periodic jobs') })
    .post('/jobs/:name/run', async ({ params }) => {
      const started = performance.now()
      const ran = await s.scheduler.runNow(params.name)
      if (!ran) throw notFound(`No job named "${params.name}". Jobs: ${s.scheduler.jobNames().join(', ')}.`)
      return { data: { name: params.name, ran_at: iso(s.clock.now()), duration_ms: Math.round((performance.now() - started) * 100) / 100 } }
    }, { params: t.Object({ name: t.String({ maxLength: 100 }) }), detail: detail('Run a periodic job now') })

    // ---- fake clock (DIALER_FAKE_CLOCK=1 only) ----
    .get('/clock', () => {
      if (!s.fakeScheduler) throw notFound('The clock can only be read here with DIALER_FAKE_CLOCK=1.')
      return { data: { now: iso(s.clock.now()) } }
    }, { detail: detail('Read the fake clock') })
    .post('/clock', async ({ body }) => {
      const fake = s.fakeScheduler
      if (!fake) throw notFound('The clock can only be moved with DIALER_FAKE_CLOCK=1.')
      if ((body.advance_seconds === undefined) === (body.now === undefined)) {
        throw invalid('Send either advance_seconds or now.', body.now === undefined ? 'advance_seconds' : 'now')
      }
      const target = body.now !== undefined ? Date.parse(body.now) : s.clock.now() + Math.round(body.advance_seconds! * 1000)
      if (target < s.clock.now()) {
        throw new ApiError('invalid_request', 'The clock only moves forward.', { param: 'now' })
      }
      await fake.advanceTo(target)
      return { data: { now: iso(s.clock.now()) } }
    }, { body: ClockBody, detail: detail('Move the fake clock, running everything that came due') })
  bodyChecks = bodyChecksOf(app.routes)
  return app
}
