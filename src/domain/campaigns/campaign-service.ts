import type { CampaignRow, CampaignStore, NewCampaign, RetiredNumberRow } from '../../db/stores/campaign-store'
import type { OrgStore } from '../../db/stores/org-store'
import type { Person, Voicemail } from '../../db/schema'
import { checkE164, checkMediaUrl } from '../orgs/carrier-fields'
import { ApiError, invalid, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import type { SecretBox } from '../secrets/secret-box'
import { inScope, type Principal } from '../access/permissions'
import { newId } from '../ids'
import { classifyPhone } from '../phone/phone-number'
import { checkHours } from './calling-hours-check'
import { checkDialSettings, DIAL_DEFAULTS, type DialSettingsInput } from './dial-mode-check'
import { checkAiAgentChange, sealAgentKey, type AiAgentInput } from './ai-agent-check'

export { minutesOfDay } from './calling-hours-check'

export type CampaignStatus = CampaignRow['status']

export interface PersonInput {
  id?: string
  name: string
  /** E.164: where a live carrier bridges the call to this person. */
  phone?: string
}

interface CampaignFields {
  name: string
  status?: CampaignStatus
  lines?: number
  sdrs?: PersonInput[]
  closers?: PersonInput[]
  requires_consent?: boolean
  call_now_default?: boolean
  late_minutes?: number
  calling_hours?: { start: string; end: string }
  max_attempts?: number
  retry_minutes?: number
  duplicate_window_hours?: number
  cooldown_hours?: number
  spend_cap_usd?: number | null
  voicemail?: Voicemail | null
  /** Said or played before recording starts where a state of the lead requires all-party consent; null: "This call may be recorded." */
  recording_notice?: Voicemail | null
  /** Calls play a prerecorded message or an artificial (AI) voice: the automated-call rules apply. */
  automated_voice?: boolean
  /** The AI seat: an agent takes every person who answers (null turns it off). */
  ai_agent?: AiAgentInput | null
}

export type CampaignInput = CampaignFields & DialSettingsInput
export type CampaignPatch = Partial<CampaignInput>
/** What an organization's owner may change (the console): dialing capacity, people, hours, voicemail, recording notice, dial mode. */
export type CampaignSettingsPatch = Pick<CampaignPatch, 'lines' | 'sdrs' | 'closers' | 'calling_hours' | 'voicemail' | 'recording_notice' | 'dial_mode' | 'max_abandon_rate' | 'abandon_message'>

// Defaults from DESIGN.md "Admin API".
const DEFAULTS = {
  status: 'draft' as CampaignStatus,
  lines: 2,
  requires_consent: false,
  call_now_default: false,
  late_minutes: 15,
  calling_hours: { start: '08:00', end: '21:00' },
  max_attempts: 3,
  retry_minutes: 60,
  duplicate_window_hours: 24,
  cooldown_hours: 0,
}

/** Told of every status change, inside the transaction that makes it (the queue holds or releases leads). */
export type StatusListener = (campaign: CampaignRow, previous: CampaignStatus) => void

export function campaignService(deps: {
  campaigns: CampaignStore
  orgs: OrgStore
  clock: Clock
  transaction: <T>(work: () => T) => T
  secrets: Pick<SecretBox, 'seal'> // seals a built-in agent's API key (campaigns.ai_agent_key)
}) {
  const { campaigns, orgs, clock, transaction } = deps
  const statusListeners: StatusListener[] = []

  function people(list: PersonInput[] | undefined, previous: Person[], param: string): Person[] | undefined {
    if (!list) return undefined
    const known = new Map(previous.map((p) => [p.id, p]))
    return list.map((p, i) => {
      if (p.name.trim() === '') throw invalid('A name must not be empty.', `${param}[${i}].name`)
      if (p.id !== undefined && !known.has(p.id)) throw notFound('No such person in this campaign.', `${param}[${i}].id`)
      const phone = p.phone === undefined ? undefined : checkE164(p.phone, `${param}[${i}].phone`, 'a phone')
      return { id: p.id ?? newId(), name: p.name.trim(), ...(phone ? { phone } : {}) }
    })
  }

  function voicemail(input: Voicemail | null | undefined): Voicemail | null | undefined {
    if (input && 'audio_url' in input) return { audio_url: checkMediaUrl(input.audio_url, 'voicemail.audio_url') }
    if (input && input.say.trim() === '') throw invalid('voicemail.say must not be blank.', 'voicemail.say')
    return input
  }

  /** Checked as the voicemail is: a non-blank text, or an https audio URL. */
  function recordingNotice(input: Voicemail | null | undefined): Voicemail | null | undefined {
    if (input && 'audio_url' in input) return { audio_url: checkMediaUrl(input.audio_url, 'recording_notice.audio_url') }
    if (input && input.say.trim() === '') throw invalid('recording_notice.say must not be blank.', 'recording_notice.say')
    return input
  }

  function checkActivatable(campaign: Pick<CampaignRow, 'sdrs'>): void {
    if (campaign.sdrs.length === 0) {
      throw new ApiError('campaign_not_ready', 'The campaign needs at least one SDR before it can dial.', {
        extras: { reason: 'no_sdr' },
      })
    }
  }

  function changeStatus(campaign: CampaignRow, status: CampaignStatus): CampaignRow {
    if (campaign.status === status) return campaign
    return transaction(() => {
      const updated = campaigns.update(campaign.id, { status, updated: clock.now() })!
      for (const listener of statusListeners) listener(updated, campaign.status)
      return updated
    })
  }

  /** A campaign the key may see, else 404 (other organization, or outside the key's scope). */
  function visible(principal: Principal, id: string): CampaignRow {
    const campaign = campaigns.get(id)
    if (!campaign || campaign.orgId !== principal.orgId || !inScope(principal, campaign.id)) {
      throw notFound('No such campaign')
    }
    return campaign
  }

  return {
    onStatusChanged(listener: StatusListener): void {
      statusListeners.push(listener)
    },

    // ---- operator side (admin API) ----

    create(orgId: string, input: CampaignInput): CampaignRow {
      if (!orgs.get(orgId)) throw notFound('No such organization')
      checkHours(input.calling_hours)
      const dial = checkDialSettings(DIAL_DEFAULTS, input)
      const { agent: aiAgent, key } = checkAiAgentChange({ aiAgent: null, requiresConsent: DEFAULTS.requires_consent, hasKey: false }, input)
      const hours = input.calling_hours ?? DEFAULTS.calling_hours
      const now = clock.now()
      const id = newId()
      const row: NewCampaign = {
        id,
        orgId,
        name: input.name,
        status: input.status ?? DEFAULTS.status,
        lines: input.lines ?? DEFAULTS.lines,
        sdrs: people(input.sdrs, [], 'sdrs') ?? [],
        closers: people(input.closers, [], 'closers') ?? [],
        requiresConsent: input.requires_consent ?? DEFAULTS.requires_consent,
        callNowDefault: input.call_now_default ?? DEFAULTS.call_now_default,
        lateMinutes: input.late_minutes ?? DEFAULTS.late_minutes,
        callingHoursStart: hours.start,
        callingHoursEnd: hours.end,
        maxAttempts: input.max_attempts ?? DEFAULTS.max_attempts,
        retryMinutes: input.retry_minutes ?? DEFAULTS.retry_minutes,
        duplicateWindowHours: input.duplicate_window_hours ?? DEFAULTS.duplicate_window_hours,
        cooldownHours: input.cooldown_hours ?? DEFAULTS.cooldown_hours,
        spendCapUsd: input.spend_cap_usd ?? null,
        voicemail: voicemail(input.voicemail) ?? null,
        recordingNotice: recordingNotice(input.recording_notice) ?? null,
        automatedVoice: input.automated_voice ?? false,
        aiAgent,
        aiAgentKey: sealAgentKey(deps.secrets, id, key) ?? null,
        ...dial,
        created: now,
        updated: now,
      }
      if (row.status === 'active') checkActivatable({ sdrs: row.sdrs! })
      return campaigns.insert(row)
    },

    update(id: string, patch: CampaignPatch): CampaignRow {
      const current = campaigns.get(id)
      if (!current) throw notFound('No such campaign')
      checkHours(patch.calling_hours)
      const dial = checkDialSettings(current, patch)
      const { agent: aiAgent, key } = checkAiAgentChange({ ...current, hasKey: current.aiAgentKey !== null }, patch)
      const sdrs = people(patch.sdrs, current.sdrs, 'sdrs')
      const becomesActive = (patch.status ?? current.status) === 'active'
      if (becomesActive) checkActivatable({ sdrs: sdrs ?? current.sdrs })
      const closers = people(patch.closers, current.closers, 'closers')
      const dropped = voicemail(patch.voicemail)
      const notice = recordingNotice(patch.recording_notice)
      return transaction(() => {
        const updated = campaigns.update(id, {
          name: patch.name,
          lines: patch.lines,
          sdrs,
          closers,
          requiresConsent: patch.requires_consent,
          callNowDefault: patch.call_now_default,
          lateMinutes: patch.late_minutes,
          callingHoursStart: patch.calling_hours?.start,
          callingHoursEnd: patch.calling_hours?.end,
          maxAttempts: patch.max_attempts,
          retryMinutes: patch.retry_minutes,
          duplicateWindowHours: patch.duplicate_window_hours,
          cooldownHours: patch.cooldown_hours,
          spendCapUsd: patch.spend_cap_usd,
          voicemail: dropped,
          recordingNotice: notice,
          automatedVoice: patch.automated_voice,
          aiAgent,
          aiAgentKey: sealAgentKey(deps.secrets, id, key),
          ...dial,
          updated: clock.now(),
        })!
        return patch.status ? changeStatus(updated, patch.status) : updated
      })
    },

    getAny(id: string): CampaignRow {
      const campaign = campaigns.get(id)
      if (!campaign) throw notFound('No such campaign')
      return campaign
    },

    listForOrg(orgId: string, limit: number, startingAfter?: string): CampaignRow[] {
      if (!orgs.get(orgId)) throw notFound('No such organization')
      return campaigns.list(orgId, null, limit, startingAfter)
    },

    retireNumber(campaignId: string, rawPhone: string, livemode: boolean, reason = 'manual'): RetiredNumberRow {
      const campaign = campaigns.get(campaignId)
      if (!campaign) throw notFound('No such campaign')
      const phone = classifyPhone(rawPhone)
      if (phone.kind === 'unreadable' || phone.kind === 'invalid') {
        throw new ApiError('invalid_phone', 'Not a valid phone number.', { param: 'phone' })
      }
      return transaction(() =>
        campaigns.findRetired(campaignId, livemode, phone.e164) ??
        campaigns.insertRetired({ id: newId(), campaignId, livemode, phone: phone.e164, reason, created: clock.now() })!,
      )
    },

    listRetired(campaignId: string, limit: number, startingAfter?: string): RetiredNumberRow[] {
      if (!campaigns.get(campaignId)) throw notFound('No such campaign')
      return campaigns.listRetired(campaignId, limit, startingAfter)
    },

    unretireNumber(campaignId: string, id: string): RetiredNumberRow {
      const removed = campaigns.deleteRetired(campaignId, id)
      if (!removed) throw notFound('No such retired number')
      return removed
    },

    isRetired(campaignId: string, livemode: boolean, e164: string): boolean {
      return campaigns.isRetired(campaignId, livemode, e164)
    },

    // ---- API side ----

    visible,

    listVisible(principal: Principal, limit: number, startingAfter?: string): CampaignRow[] {
      const only = principal.campaignIds ? [...principal.campaignIds] : null
      return campaigns.list(principal.orgId, only, limit, startingAfter)
    },

    /**
     * Starts or restarts dialing. A test key changes nothing and is told the status the
     * campaign would have (spec "Campaign status").
     */
    activate(principal: Principal, id: string): CampaignStatus {
      const campaign = visible(principal, id)
      if (campaign.status === 'completed') {
        throw new ApiError('campaign_closed', 'The campaign is completed and cannot be started again.')
      }
      if (campaign.status === 'active') return 'active'
      checkActivatable(campaign)
      if (!principal.livemode) return 'active'
      return changeStatus(campaign, 'active').status
    },

    /** Stops new calls; calls already up carry on. A draft has nothing to pause and stays a draft. */
    pause(principal: Principal, id: string): CampaignStatus {
      const campaign = visible(principal, id)
      if (campaign.status === 'completed') {
        throw new ApiError('campaign_closed', 'The campaign is completed.')
      }
      if (campaign.status !== 'active') return campaign.status
      if (!principal.livemode) return 'paused'
      return changeStatus(campaign, 'paused').status
    },

    /** An owner's change in the console: the operator's rules (update), on a campaign the principal may see. */
    changeSettings(principal: Principal, id: string, patch: CampaignSettingsPatch): CampaignRow {
      visible(principal, id)
      return this.update(id, patch)
    },
  }
}

export type CampaignService = ReturnType<typeof campaignService>
