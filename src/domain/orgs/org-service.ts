import type { OrgRow, OrgStore } from '../../db/stores/org-store'
import type { SecretBox } from '../secrets/secret-box'
import {
  callsInProgress, carrierView, dialSettings, openCarrier,
  type CarrierInput, type CarrierRules, type CarrierView, type DialSettings, type OpenedCarrier,
} from './carrier-settings'
import { checkCarriers, dialPool, poolRows, poolView, strandedKinds, type CarrierRequest, type DialEntry, type PoolEntryInput, type PoolView } from './carrier-pool'
import { invalid, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { newId } from '../ids'
import { isOutcome } from '../outcomes'
import { isTimeZone } from '../time-zones'
import type { AiPrices } from '../../telephony/call-values'
import { checkAiPrices } from '../usage/ai-cost'

export interface OrgInput {
  name: string
  timezone?: string
  rate_usd_per_minute?: number
  plan_requests_per_minute?: number
  recording_enabled?: boolean
  webhook_endpoint_limit?: number
  outcome_labels?: Record<string, string>
  carrier?: CarrierInput
  /** A pool instead of one `carrier` (docs/api.md): 1-4 entries, one per kind, each with a weight; [] back to the default. */
  carriers?: PoolEntryInput[]
  recording_retention_days?: number
  /** Days a caller ID far below its campaign's baseline is rested (0: never rested, only shown). */
  caller_id_rest_days?: number
  /** USD per million tokens by model, for AI cost (null: none). */
  ai_prices?: AiPrices | null
}

export type OrgPatch = Partial<OrgInput>

// Defaults from DESIGN.md "Admin API".
const DEFAULTS = {
  timezone: 'America/New_York',
  rate_usd_per_minute: 0.12,
  plan_requests_per_minute: 600,
  recording_enabled: true,
  webhook_endpoint_limit: 16,
  // Recordings are kept 90 days unless the organization says otherwise.
  recording_retention_days: 90,
  caller_id_rest_days: 7,
}

export function orgService(deps: {
  orgs: OrgStore
  clock: Clock
  onChange: (orgId: string) => void
  /** Seals carrier secrets at rest. */
  secrets: SecretBox
  /** Each carrier kind's settings rules (the carrier registry's). */
  carriers: CarrierRules
  transaction: <T>(work: () => T) => T
  /** The organization's carrier calls of a kind not yet closed (up, or waiting for their recording). */
  openCarrierCalls: (orgId: string, kind: string) => number
  /** DIALER_CARRIER_ALLOW_PRIVATE: api_base_url may be a private address. */
  carrierAllowPrivate: boolean
}) {
  const { orgs, clock, secrets, transaction, carriers } = deps

  /**
   * Checks `carrier` or `carriers` (before anything is written) and returns how to store them, in
   * the caller's transaction: refused (409) there if it changes what calls that are up rely on.
   */
  function carrierChange(orgId: string, input: OrgPatch): (() => void) | null {
    if (input.carrier !== undefined && input.carriers !== undefined) {
      throw invalid('Send either carrier (one carrier) or carriers (a pool), not both.', 'carriers')
    }
    const request: CarrierRequest | null = input.carrier !== undefined ? { carrier: input.carrier } : input.carriers !== undefined ? { carriers: input.carriers } : null
    if (request === null) return null
    const param = 'carrier' in request ? 'carrier' : 'carriers'
    const stored = orgs.carrierRows(orgId)
    const checked = checkCarriers(carriers, request, stored, deps.carrierAllowPrivate)
    const rows = poolRows(carriers, orgId, checked, stored, secrets, clock.now())
    const stranded = strandedKinds(carriers, stored, checked, secrets)
    return () => {
      for (const kind of stranded) {
        const up = deps.openCarrierCalls(orgId, kind)
        if (up > 0) throw callsInProgress(up, carriers.rulesOf(kind)?.inProgress, param)
      }
      if (rows.length > 0) orgs.putCarriers(orgId, rows)
      else orgs.dropCarrier(orgId)
    }
  }

  function check(input: OrgPatch): void {
    if (input.timezone !== undefined && !isTimeZone(input.timezone)) {
      throw invalid(`Unknown time zone "${input.timezone}"; use an IANA name such as America/Chicago.`, 'timezone')
    }
    for (const [label, outcome] of Object.entries(input.outcome_labels ?? {})) {
      if (label.trim() === '') throw invalid('Outcome labels must not be empty.', 'outcome_labels')
      if (!isOutcome(outcome)) throw invalid(`"${outcome}" is not an outcome word.`, `outcome_labels.${label}`)
    }
    if (input.ai_prices !== undefined) checkAiPrices(input.ai_prices)
    if (input.caller_id_rest_days !== undefined && (!Number.isInteger(input.caller_id_rest_days) || input.caller_id_rest_days < 0 || input.caller_id_rest_days > 90)) {
      throw invalid('caller_id_rest_days must be a whole number of days from 0 to 90.', 'caller_id_rest_days')
    }
  }

  return {
    create(input: OrgInput): OrgRow {
      check(input)
      const now = clock.now()
      const id = newId()
      const storeCarrier = carrierChange(id, input)
      return transaction(() => {
        const row = orgs.insert({
          id,
          name: input.name,
          timezone: input.timezone ?? DEFAULTS.timezone,
          rateUsdPerMinute: input.rate_usd_per_minute ?? DEFAULTS.rate_usd_per_minute,
          planRequestsPerMinute: input.plan_requests_per_minute ?? DEFAULTS.plan_requests_per_minute,
          recordingEnabled: input.recording_enabled ?? DEFAULTS.recording_enabled,
          webhookEndpointLimit: input.webhook_endpoint_limit ?? DEFAULTS.webhook_endpoint_limit,
          outcomeLabels: input.outcome_labels ?? {},
          recordingRetentionDays: input.recording_retention_days ?? DEFAULTS.recording_retention_days,
          aiPrices: input.ai_prices ?? null,
          callerIdRestDays: input.caller_id_rest_days ?? DEFAULTS.caller_id_rest_days,
          created: now,
          updated: now,
        })
        storeCarrier?.()
        return row
      })
    },

    update(id: string, patch: OrgPatch): OrgRow {
      check(patch)
      if (!orgs.get(id)) throw notFound('No such organization')
      const storeCarrier = carrierChange(id, patch)
      const updated = transaction(() => {
        storeCarrier?.()
        return orgs.update(id, {
          name: patch.name,
          timezone: patch.timezone,
          rateUsdPerMinute: patch.rate_usd_per_minute,
          planRequestsPerMinute: patch.plan_requests_per_minute,
          recordingEnabled: patch.recording_enabled,
          webhookEndpointLimit: patch.webhook_endpoint_limit,
          outcomeLabels: patch.outcome_labels,
          recordingRetentionDays: patch.recording_retention_days,
          aiPrices: patch.ai_prices,
          callerIdRestDays: patch.caller_id_rest_days,
          updated: clock.now(),
        })
      })
      if (!updated) throw notFound('No such organization')
      deps.onChange(id)
      return updated
    },

    get(id: string): OrgRow {
      const org = orgs.get(id)
      if (!org) throw notFound('No such organization')
      return org
    },

    list(limit: number, startingAfter?: string): OrgRow[] {
      return orgs.list(limit, startingAfter)
    },

    /** The carrier as admin replies show it (never a secret): a pool's first entry for a pool. */
    carrierView(orgId: string): CarrierView {
      return carrierView(carriers, orgs.carrier(orgId))
    },

    /** What admin replies show: `carrier` (one, or the default), or `carriers` (a pool, with weights). */
    carrierFields(orgId: string): { carrier: CarrierView } | { carriers: PoolView[] } {
      const rows = orgs.carrierRows(orgId)
      return rows.length > 0 && rows[0]!.weight !== null ? { carriers: poolView(carriers, rows) } : { carrier: carrierView(carriers, rows[0]) }
    },

    /**
     * Every carrier the organization set, as reads show them, in its order: [] for the default
     * (the simulator), one with weight null for a single `carrier`, the pool's entries with their weights.
     */
    carrierPool(orgId: string): PoolView[] {
      return poolView(carriers, orgs.carrierRows(orgId))
    },

    /** The settings a live call of the organization through `kind` uses, secrets opened (throws SecretBoxError if the key changed); null: it has no such carrier. */
    carrier(orgId: string, kind?: string): OpenedCarrier | null {
      const rows = orgs.carrierRows(orgId)
      const row = kind === undefined ? rows[0] : rows.find((r) => r.kind === kind)
      if (kind !== undefined && !row) return kind === carriers.defaultKind && rows.length === 0 ? { kind } : null
      return openCarrier(carriers, row, secrets)
    },

    /** What a live dial decides with (no secret opened); null for the default carrier. */
    dialSettings(orgId: string): DialSettings | null {
      return dialSettings(carriers, orgs.carrier(orgId))
    },

    /** Every carrier a live dial may choose from, in the pool's order (no secret opened); [] for the default carrier. */
    dialPool(orgId: string): DialEntry[] {
      return dialPool(carriers, orgs.carrierRows(orgId))
    },
  }
}

export type OrgService = ReturnType<typeof orgService>
