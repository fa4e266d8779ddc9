import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow, LeadStatus } from '../../db/stores/lead-store'
import { ApiError, invalid, notFound } from '../../errors'
import { requireCampaignScope, type Principal } from '../access/permissions'
import { stateRegistryRefusal } from '../dnc/state-registries'
import { classifyPhone, type PhoneClass } from '../phone/phone-number'
import { checkLeadInput, type LeadInput } from './lead-input'
import type { LeadCore } from './lead-core'
import type { Placement } from './placement'
import { refusesTollFree, tollFreeRefusal } from './toll-free'

/** Spec "Limits": waiting API leads per campaign, API-started calls per lead per 24 h. */
export const MAX_WAITING_API_LEADS = 5000
export const MAX_API_CALLS_PER_DAY = 3
/** Spec "Limits": sample calls a test key may have running at once (POST /leads and POST /calls refuse more). */
export const MAX_RUNNING_TEST_CALLS = 20
const DAY = 24 * 60 * 60 * 1000

const REQUEUEABLE: readonly LeadStatus[] = ['done', 'callback_scheduled', 'new']

/**
 * One lead going through the intake checks. The checks fill it in as they go (the campaign, the
 * number, an earlier lead it repeats); once all pass it is what `write` needs. One per lead.
 */
export interface IntakeContext {
  readonly core: LeadCore
  readonly principal: Principal
  readonly input: LeadInput
  /** Param prefix: '' for POST /leads, `leads[3].` for a batch item. */
  readonly at: string
  /** Phone and external_id keys of the batch's earlier leads (`p:campaign:e164`, `x:campaign:id`), to their lead ids. */
  readonly batchSeen: Map<string, string | null> | undefined
  campaign: CampaignRow
  phoneKind: PhoneClass['kind']
  e164: string
  existing: LeadRow | undefined
  callNow: boolean
  placement: Placement
}

/**
 * One named check: the refusal, or null to go on. Checks that reuse a shared validator
 * (`requireCampaignScope`, `checkLeadInput`) let it throw its own refusal.
 */
export type IntakeCheck = (ctx: IntakeContext) => ApiError | null

const checkCampaign: IntakeCheck = (ctx) => {
  const { principal, input, at } = ctx
  if (!input.campaign_id) return invalid('campaign_id is required.', `${at}campaign_id`)
  const campaign = ctx.core.deps.stores.campaigns.get(input.campaign_id)
  if (!campaign || campaign.orgId !== principal.orgId) return notFound('No such campaign', `${at}campaign_id`)
  requireCampaignScope(principal, campaign.id, 'leads:write', `${at}campaign_id`)
  if (campaign.status === 'completed') {
    return new ApiError('campaign_closed', 'The campaign is completed and takes no new leads.', { param: `${at}campaign_id` })
  }
  ctx.campaign = campaign
  return null
}

const checkInputRules: IntakeCheck = (ctx) => {
  checkLeadInput(ctx.input, ctx.at)
  return null
}

const checkPhone: IntakeCheck = (ctx) => {
  const phone = classifyPhone(ctx.input.phone)
  if (phone.kind === 'unreadable' || phone.kind === 'invalid' || (phone.kind === 'fictional' && ctx.principal.livemode)) {
    const why = phone.kind === 'fictional' ? ' (555-01XX numbers are made up; test keys may use them)' : ''
    return new ApiError('invalid_phone', `Not a valid phone number${why}.`, { param: `${ctx.at}phone` })
  }
  ctx.phoneKind = phone.kind
  ctx.e164 = phone.e164
  return null
}

const checkDnc: IntakeCheck = (ctx) => {
  const scope = { orgId: ctx.principal.orgId, livemode: ctx.principal.livemode }
  if (ctx.core.deps.dnc.isListed(scope, ctx.e164)) {
    return new ApiError('on_dnc_list', 'This number is on the Do Not Call list.', { param: `${ctx.at}phone` })
  }
  return null
}

/** The national registry binds every organization, both modes; prior express written consent (`consent`) lifts it. */
const checkNationalRegistry: IntakeCheck = (ctx) => {
  if (!ctx.input.consent && ctx.core.deps.registry.isListed(ctx.e164)) return nationalRegistryRefusal(`${ctx.at}phone`)
  return null
}

/** 422 on_dnc_list for a number on the national registry (intake, POST /calls). */
export const nationalRegistryRefusal = (param: string | null) =>
  new ApiError('on_dnc_list', 'This number is on the national Do Not Call registry; send the lead with its consent (prior express written consent) to call it.', {
    param,
    extras: { reason: 'national_registry' },
  })

/** The address the lead will have: the one sent, else the existing lead's (its state adds rules). */
const addressOf = (ctx: IntakeContext): string | null =>
  ctx.input.address !== undefined ? ctx.input.address || null : (ctx.existing?.address ?? null)

/**
 * A state's own Do Not Call list binds the leads in that state (by area code or address, after
 * the duplicate checks so a re-sent lead's stored address counts); consent lifts it, as for the national registry.
 */
const checkStateRegistry: IntakeCheck = (ctx) => {
  if (ctx.input.consent) return null
  const { core, principal, e164 } = ctx
  const statesOf = () => core.rules.reachOf({ phone: e164, address: addressOf(ctx), orgId: principal.orgId, livemode: principal.livemode }).states
  const state = core.deps.registry.stateListing(e164, statesOf)[0]
  return state ? stateRegistryRefusal(state, `${ctx.at}phone`) : null
}

const checkRetired: IntakeCheck = (ctx) => {
  if (ctx.core.deps.campaigns.isRetired(ctx.campaign.id, ctx.principal.livemode, ctx.e164)) {
    return new ApiError('number_retired', 'This number was retired in the campaign after repeated failed calls.', { param: `${ctx.at}phone` })
  }
  return null
}

/** A lead repeating an earlier lead of the same batch (by phone, then by external_id). */
const checkBatchDuplicate: IntakeCheck = (ctx) => {
  const { batchSeen, at, campaign } = ctx
  if (!batchSeen) return null
  const externalId = ctx.input.external_id ?? null
  for (const key of [`p:${campaign.id}:${ctx.e164}`, externalId !== null ? `x:${campaign.id}:${externalId}` : null]) {
    if (key && batchSeen.has(key)) {
      return new ApiError('duplicate_lead', 'This lead repeats an earlier lead of the batch.', {
        param: key.startsWith('x:') ? `${at}external_id` : `${at}phone`,
        extras: { lead_id: batchSeen.get(key) ?? null },
      })
    }
  }
  return null
}

/** A stored lead with this phone or external_id: refused unless quiet long enough and re-queueable. */
const checkDuplicate: IntakeCheck = (ctx) => {
  const { campaign, at } = ctx
  const externalId = ctx.input.external_id ?? null
  const now = ctx.core.deps.clock.now()
  const existing = ctx.core.deps.stores.leads.findDuplicate(campaign, ctx.principal.livemode, ctx.e164, externalId)
  if (existing) {
    const quiet = now - existing.lastPostedAt > campaign.duplicateWindowHours * 3_600_000
    if (!quiet || !REQUEUEABLE.includes(existing.status)) {
      const byExternal = externalId !== null && existing.externalId === externalId
      return new ApiError('duplicate_lead', `A lead with this ${byExternal ? 'external_id' : 'phone'} already exists in the campaign.`, {
        param: byExternal ? `${at}external_id` : `${at}phone`,
        extras: { lead_id: existing.id },
      })
    }
  }
  ctx.existing = existing
  return null
}

const checkConsent: IntakeCheck = (ctx) => {
  if (ctx.campaign.requiresConsent && !ctx.input.consent && !ctx.existing?.consent) {
    return new ApiError('consent_required', 'This campaign requires consent on every lead.', { param: `${ctx.at}consent` })
  }
  return null
}

const checkNumberAllowed: IntakeCheck = (ctx) => {
  if (ctx.phoneKind === 'international' || ctx.phoneKind === 'premium') {
    const reason = ctx.phoneKind === 'premium' ? 'premium' : 'international'
    return new ApiError('number_not_allowed', `${reason === 'premium' ? 'Premium-rate' : 'International'} numbers are not dialed.`, {
      param: `${ctx.at}phone`,
      extras: { reason },
    })
  }
  if (refusesTollFree(ctx.core.deps.tollFree, ctx.e164)) return tollFreeRefusal(`${ctx.at}phone`)
  return null
}

const checkQueueRoom: IntakeCheck = (ctx) => {
  if (ctx.core.deps.stores.leads.apiWaiting(ctx.campaign.id, ctx.principal.livemode) >= MAX_WAITING_API_LEADS) {
    return new ApiError('queue_full', `The campaign has ${MAX_WAITING_API_LEADS} API leads waiting; retry once some are called.`, {
      retryAfter: 60,
    })
  }
  return null
}

const checkTestCalls: IntakeCheck = (ctx) => testCallsRefusal(ctx.core, ctx.principal)

/** call_now for a lead that already exists counts as an API-started call (3 a day). */
const checkCallAllowance: IntakeCheck = (ctx) => {
  ctx.callNow = ctx.input.call_now ?? ctx.campaign.callNowDefault
  if (ctx.existing && ctx.callNow) callsLeftToday(ctx.core, ctx.existing.id)
  return null
}

/**
 * Every check of POST /leads, in the spec's order (the first refusal is the answer; nothing is
 * written). Later rules (the calling-rules engine) join this list.
 */
export const INTAKE_CHECKS: readonly IntakeCheck[] = [
  checkCampaign,
  checkInputRules,
  checkPhone,
  checkDnc,
  checkNationalRegistry,
  checkRetired,
  checkBatchDuplicate,
  checkDuplicate,
  checkStateRegistry,
  checkConsent,
  checkNumberAllowed,
  checkQueueRoom,
  checkTestCalls,
  checkCallAllowance,
]

/**
 * A CSV import's checks: every intake rule about the lead (phone, DNC, registry, retired,
 * duplicates, consent, calling rules) but none about API traffic (the 5,000 waiting API leads,
 * test-key calls, call-now allowances): imported leads are not API leads and are not called now.
 */
export const IMPORT_CHECKS: readonly IntakeCheck[] = INTAKE_CHECKS.filter((c) => c !== checkQueueRoom && c !== checkTestCalls && c !== checkCallAllowance)

/** Runs the intake checks; throws the first refusal, else returns the lead's context with its placement. */
export function checkIntake(core: LeadCore, principal: Principal, input: LeadInput, at: string, batchSeen?: Map<string, string | null>, checks: readonly IntakeCheck[] = INTAKE_CHECKS): IntakeContext {
  const ctx: IntakeContext = {
    core,
    principal,
    input,
    at,
    batchSeen,
    campaign: undefined as unknown as CampaignRow,
    phoneKind: 'invalid',
    e164: '',
    existing: undefined,
    callNow: false,
    placement: undefined as unknown as Placement,
  }
  for (const check of checks) {
    const refusal = check(ctx)
    if (refusal) throw refusal
  }
  const address = addressOf(ctx)
  ctx.placement = core.placementFor({ phone: ctx.e164, orgId: principal.orgId, livemode: principal.livemode, address }, ctx.campaign)
  return ctx
}

/** A test key at its limit of running sample calls (POST /leads, POST /calls). */
export function testCallsRefusal(core: LeadCore, principal: Principal): ApiError | null {
  if (!principal.livemode && core.deps.calls.runningTestCalls(principal.keyId) >= MAX_RUNNING_TEST_CALLS) {
    return new ApiError('test_flows_busy', `This test key has ${MAX_RUNNING_TEST_CALLS} sample calls running.`, { retryAfter: 5 })
  }
  return null
}

/** 3 API-started calls per lead per 24 h (POST /calls; POST /leads with call_now for an existing lead): how many are left, else 429. */
export function callsLeftToday(core: LeadCore, leadId: string): number {
  const { clock, stores } = core.deps
  const since = clock.now() - DAY
  const used = stores.leads.callRequestsSince(leadId, since)
  if (used >= MAX_API_CALLS_PER_DAY) {
    const oldest = stores.leads.oldestCallRequestSince(leadId, since) ?? clock.now()
    throw new ApiError('call_limit_reached', 'This lead already had 3 API-started calls in the last 24 hours.', {
      retryAfter: Math.max(1, Math.ceil((oldest + DAY - clock.now()) / 1000)),
    })
  }
  return MAX_API_CALLS_PER_DAY - used
}
