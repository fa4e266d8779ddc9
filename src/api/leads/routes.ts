import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Elysia, t, type TSchema } from 'elysia'
import type { Principal } from '../../domain/access/permissions'
import type { BatchResult } from '../../domain/leads/lead-service'
import type { LeadInput } from '../../domain/leads/lead-input'
import type { ApiError } from '../../errors'
import { fromValueError, type ValueError } from '../../http/errors'
import { listReply, ListMetaSchema, parseTimeBound, uuidQuery } from '../../http/paging'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, idParams, listOf, operation, pageLimit, strict } from '../shared'
import {
  BatchBody, BatchLeadItem, BatchReply, CreateLeadBody, IntakeReply, LegacyBatchBody, LegacyCreateBody, LegacyLead,
  LegacyLeadItem, Lead, LeadStatus, legacyLead, OptedOutLead, OptOutBody, PatchLeadBody,
} from './model'
import { Contactability } from './contactability-model'

const TAG = 'Leads'

/** Each batch item is checked on its own, so one malformed lead fails alone (with its index). */
function itemChecker(schema: TSchema) {
  const compiled = TypeCompiler.Compile(schema)
  return (value: unknown, index: number): ApiError | undefined => {
    if (compiled.Check(value)) return undefined
    const first = compiled.Errors(value).First() as ValueError | undefined
    return first ? fromValueError(first, `leads[${index}].`) : undefined
  }
}
const checkBatchItem = itemChecker(BatchLeadItem)
const checkLegacyItem = itemChecker(LegacyLeadItem)

/** The older path's `customFields` join `fields` (fields win on a clash). */
function fromLegacy(item: Record<string, unknown>, campaignId: string): LeadInput {
  const { customFields, ...rest } = item as unknown as LeadInput & { customFields?: Record<string, string> }
  return { ...rest, campaign_id: campaignId, ...(customFields || rest.fields ? { fields: { ...customFields, ...rest.fields } } : {}) }
}

function batchReply(principal: Principal, results: BatchResult[], dryRun: boolean) {
  const succeeded = results.filter((r) => r.ok).length
  return { data: { succeeded, failed: results.length - succeeded, dry_run: dryRun, results, livemode: principal.livemode } }
}

const listQuery = t.Object(
  {
    external_id: t.Optional(t.String({ minLength: 1, maxLength: 200, 'x-param': 'external_id' })),
    campaign_id: uuidQuery('campaign_id'),
    status: t.Optional(LeadStatus),
    'created[gte]': t.Optional(t.String({ 'x-param': 'created[gte]', description: 'ISO 8601, unix seconds, or a date (midnight UTC)' })),
    'created[lte]': t.Optional(t.String({ 'x-param': 'created[lte]' })),
    limit: pageLimit(20),
    starting_after: uuidQuery('starting_after', 'the last lead id of the previous page'),
  },
  strict,
)

export const leadRoutes = (s: Services) =>
  new Elysia()
    .use(apiContext(s))
    .post(
      '/leads',
      ({ principal, body, set }) => {
        const { dry_run, ...input } = body
        const outcome = s.leads.intake(principal, input, { dryRun: dry_run === true })
        set.status = outcome.created ? 201 : 200
        return { data: outcome.reply }
      },
      {
        permission: 'leads:write',
        body: CreateLeadBody,
        response: { 200: dataOf(IntakeReply), 201: dataOf(IntakeReply) },
        detail: { operationId: 'createLead', ...operation(TAG, 'Add a lead', 'leads:write',
          '201 for a new lead; 200 for a dry run (`id` null, nothing stored) or for an existing lead put back in the queue after the duplicate window (`requeued` true). ' +
          'Checks, in order: campaign, phone, Do Not Call list, retired numbers, duplicates, consent, number rules, waiting-lead limit. Outside calling hours the lead is scheduled; while the campaign is paused or not started it is held.',
          { errors: ['invalid_phone', 'on_dnc_list', 'duplicate_lead', 'number_retired', 'consent_required', 'campaign_closed', 'queue_full', 'test_flows_busy', 'lead_rate_limited', 'call_limit_reached', 'number_not_allowed'] }) },
      },
    )
    .post(
      '/leads/batch',
      ({ principal, body }) => {
        const dryRun = body.dry_run === true
        const items = body.leads.map((raw, index) => {
          const error = checkBatchItem(raw, index)
          const item = (error ? {} : raw) as LeadInput
          return { input: { ...item, campaign_id: item.campaign_id ?? body.campaign_id }, error }
        })
        return batchReply(principal, s.leads.intakeBatch(principal, items, { dryRun }), dryRun)
      },
      {
        permission: 'leads:write',
        body: BatchBody,
        response: { 200: dataOf(BatchReply) },
        detail: { operationId: 'createLeadBatch', ...operation(TAG, 'Add up to 60 leads', 'leads:write',
          'Each lead gets the checks of POST /leads; a failing lead does not stop the others. Results are in the order sent. Every lead counts toward the key\u2019s new-leads-a-minute limit; a batch that does not fit is refused whole (429 lead_rate_limited).',
          { errors: ['lead_rate_limited'] }) },
      },
    )
    .get('/leads/:id', ({ principal, params }) => ({ data: s.leads.get(principal, params.id) }), {
      permission: 'leads:read',
      params: idParams,
      response: { 200: dataOf(Lead) },
      detail: { operationId: 'getLead', ...operation(TAG, 'Get a lead', 'leads:read', 'With `place_in_line` (1 = next, 0 = being dialed) and `estimated_wait_seconds` while queued.') },
    })
    .get('/leads/:id/contactability', ({ principal, params }) => ({ data: s.leads.contactability(principal, params.id) }), {
      permission: 'leads:read',
      params: idParams,
      response: { 200: dataOf(Contactability) },
      detail: { operationId: 'getLeadContactability', ...operation(TAG, 'Why a lead may or may not be called now', 'leads:read',
        'The calling rules that apply to the lead (from its area code and address), whether they allow a call now, which block it and until when, the calls to its number in the last 24 hours, its last 20 dial decisions and its consent evidence.') },
    })
    .get(
      '/leads',
      ({ principal, query }) => {
        if (query.external_id !== undefined) {
          return { data: s.leads.findByExternalId(principal, query.external_id, query.campaign_id) }
        }
        const limit = query.limit ?? 20
        const rows = s.leads.list(
          principal,
          {
            campaignId: query.campaign_id,
            status: query.status,
            createdGte: parseTimeBound(query['created[gte]'], 'created[gte]'),
            createdLte: parseTimeBound(query['created[lte]'], 'created[lte]'),
            startingAfter: query.starting_after,
          },
          limit + 1,
        )
        return listReply(rows, limit, (row) => s.leads.view(row))
      },
      {
        permission: 'leads:read',
        query: listQuery,
        // One object, not a union of the two replies (a union reply is checked slowly, row by row).
        response: { 200: t.Object({ data: t.Union([Lead, t.Array(Lead)]), meta: t.Optional(ListMetaSchema) }) },
        detail: { operationId: 'listLeads', ...operation(TAG, 'Find or list leads', 'leads:read',
          'With `external_id`: the one lead (409 ambiguous_external_id with `candidates` when it names leads in several of the key\u2019s campaigns; add campaign_id). Without: the key\u2019s leads, newest first.', { errors: ['ambiguous_external_id'] }) },
      },
    )
    .patch('/leads/:id', ({ principal, params, body }) => ({ data: s.leads.patch(principal, params.id, body) }), {
      permission: 'leads:write',
      params: idParams,
      body: PatchLeadBody,
      response: { 200: dataOf(Lead) },
      detail: { operationId: 'updateLead', ...operation(TAG, 'Change a lead', 'leads:write',
        'name, email, address: null or empty clears. fields: merged, an empty string removes a key. consent: replaced. external_id: only while the lead has none. call_now: only false. phone: 422 phone_cannot_change.',
        { errors: ['duplicate_lead', 'phone_cannot_change'] }) },
    })
    .post(
      '/leads/:id/opt_out',
      ({ principal, params, body }) => ({ data: s.leads.optOut(principal, params.id, body?.reason ?? null) }),
      {
        permission: 'leads:write',
        params: idParams,
        body: OptOutBody,
        response: { 200: dataOf(OptedOutLead) },
        detail: { operationId: 'optOutLead', ...operation(TAG, 'Opt a lead out', 'leads:write',
          'The number goes on the Do Not Call list (source api); the lead leaves the queue with the dnc outcome; open callbacks close; a call in progress is not cut (`call_in_progress`). Asking again answers the same and adds nothing.') },
      },
    )

    // ---- the older lead endpoints under /campaigns/{id}/leads ----
    .get(
      '/campaigns/:id/leads',
      ({ principal, params, query }) => {
        const limit = query.limit ?? 50
        const rows = s.leads.listForCampaign(principal, params.id, limit + 1, { cursor: query.cursor, search: query.search })
        return listReply(rows, limit, (row) => legacyLead(s.leads.view(row)))
      },
      {
        permission: 'leads:read',
        params: idParams,
        query: t.Object(
          {
            cursor: uuidQuery('cursor', 'next_cursor of the previous page'),
            limit: pageLimit(50),
            search: t.Optional(t.String({ maxLength: 200, 'x-param': 'search', description: 'part of a name, phone or email' })),
          },
          strict,
        ),
        response: { 200: listOf(LegacyLead) },
        detail: { operationId: 'listCampaignLeads', ...operation(TAG, 'List a campaign\u2019s leads (older shape)', 'leads:read', 'camelCase externalId, campaignId, customFields, createdAt, updatedAt; GET /leads?campaign_id= is the one for new work.') },
      },
    )
    .post(
      '/campaigns/:id/leads',
      ({ principal, params, body, set }) => {
        const { dry_run, ...item } = body
        const outcome = s.leads.intake(principal, fromLegacy(item, params.id), { dryRun: dry_run === true })
        set.status = outcome.created ? 201 : 200
        return { data: outcome.reply }
      },
      {
        permission: 'leads:write',
        params: idParams,
        body: LegacyCreateBody,
        response: { 200: dataOf(IntakeReply), 201: dataOf(IntakeReply) },
        detail: { operationId: 'createCampaignLead', ...operation(TAG, 'Add a lead (older path)', 'leads:write', 'As POST /leads with the campaign in the path; `customFields` is merged into `fields`.', { errors: ['invalid_phone', 'on_dnc_list', 'duplicate_lead', 'number_retired', 'consent_required', 'campaign_closed', 'queue_full', 'test_flows_busy', 'lead_rate_limited', 'call_limit_reached', 'number_not_allowed'] }) },
      },
    )
    .post(
      '/campaigns/:id/leads/batch',
      ({ principal, params, body }) => {
        s.campaigns.visible(principal, params.id)
        const dryRun = body.dry_run === true
        const items = body.leads.map((raw, index) => {
          const error = checkLegacyItem(raw, index)
          return { input: fromLegacy(error ? {} : (raw as Record<string, unknown>), params.id), error }
        })
        return batchReply(principal, s.leads.intakeBatch(principal, items, { dryRun }), dryRun)
      },
      {
        permission: 'leads:write',
        params: idParams,
        body: LegacyBatchBody,
        response: { 200: dataOf(BatchReply) },
        detail: { operationId: 'createCampaignLeadBatch', ...operation(TAG, 'Add up to 60 leads (older path)', 'leads:write', 'As POST /leads/batch with the campaign in the path; each lead may carry `customFields`.', { errors: ['lead_rate_limited'] }) },
      },
    )
