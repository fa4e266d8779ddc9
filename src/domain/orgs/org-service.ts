import type { OrgRow, OrgStore } from '../../db/stores/org-store'
import type { SecretBox } from '../secrets/secret-box'
import {
  callsInProgress, carrierRow, carrierView, changesPlacedCalls, checkCarrier, dialSettings, openCarrier,
  type CarrierInput, type CarrierRules, type CarrierView, type DialSettings, type OpenedCarrier,
} from './carrier-settings'
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
  recording_retention_days?: number
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
  /** The organization's carrier calls not yet closed (up, or waiting for their recording). */
  openCarrierCalls: (orgId: string) => number
  /** DIALER_CARRIER_ALLOW_PRIVATE: api_base_url may be a private address. */
  carrierAllowPrivate: boolean
}) {
  const { orgs, clock, secrets, transaction, carriers } = deps

  /**
   * Checks `carrier` (before anything is written) and returns how to store it, in the caller's
   * transaction: refused (409) there if it changes what calls that are up rely on.
   */
  function carrierChange(orgId: string, input: CarrierInput | undefined): (() => void) | null {
    if (input === undefined) return null
    const stored = orgs.carrier(orgId)
    const checked = checkCarrier(carriers, input, stored, 'carrier', deps.carrierAllowPrivate)
    const row = carrierRow(carriers, orgId, checked, stored, secrets, clock.now())
    const guarded = changesPlacedCalls(carriers, stored, checked, secrets)
    return () => {
      const up = guarded ? deps.openCarrierCalls(orgId) : 0
      if (up > 0) throw callsInProgress(up, carriers.rulesOf(stored!.kind)?.inProgress)
      if (row) orgs.putCarrier(row)
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
  }

  return {
    create(input: OrgInput): OrgRow {
      check(input)
      const now = clock.now()
      const id = newId()
      const storeCarrier = carrierChange(id, input.carrier)
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
      const storeCarrier = carrierChange(id, patch.carrier)
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

    /** The carrier as admin replies show it (never a secret). */
    carrierView(orgId: string): CarrierView {
      return carrierView(carriers, orgs.carrier(orgId))
    },

    /**
     * Every carrier the organization set, as reads show them, in its order: [] for the default
     * (the simulator), one with weight null for a single `carrier`, the pool's entries with their weights.
     */
    carrierPool(orgId: string): (CarrierView & { weight: number | null })[] {
      const row = orgs.carrier(orgId)
      return row ? [{ ...carrierView(carriers, row), weight: row.weight }] : []
    },

    /** The carrier a live call of the organization uses, secrets opened (throws SecretBoxError if the key changed). */
    carrier(orgId: string): OpenedCarrier {
      return openCarrier(carriers, orgs.carrier(orgId), secrets)
    },

    /** What a live dial decides with (no secret opened); null for the default carrier. */
    dialSettings(orgId: string): DialSettings | null {
      return dialSettings(carriers, orgs.carrier(orgId))
    },
  }
}

export type OrgService = ReturnType<typeof orgService>
