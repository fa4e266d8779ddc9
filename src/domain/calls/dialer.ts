import type { Stores } from '../../db/stores'
import type { Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import type { DialQueues } from '../queue/dial-queues'
import type { LeadRequeue } from '../leads/lead-service'
import type { HandleTimes } from './call-activity'
import type { CallService } from './call-service'
import type { SeatBoard } from '../seats/contract'
import type { CampaignRow } from '../../db/stores/campaign-store'
import { ANSWER_LOOKAHEAD_MS, leadLinesAllowed, WINDOW_MS } from './pacing'

/** After a carrier's 429 the campaign's mode dials nothing for this long, doubled on each throttle within HOLD_RESET_MS (at most HOLD_MAX_MS). */
export const HOLD_MS = 5_000
export const HOLD_MAX_MS = 120_000
const HOLD_RESET_MS = 5 * 60_000

const slot = (campaignId: string, livemode: boolean) => `${campaignId}:${livemode ? 'live' : 'test'}`
/**
 * Takes leads off the dial queues onto the campaigns' lines: for each active campaign and mode,
 * while a line is free and a lead is in line, the head of the queue is dialed (test-mode calls
 * have lines of their own). Each call is dialed for the campaign's SDRs in turn. Live calls of a
 * power or predictive campaign are paced by its waiting seats as well (pacing.ts), unless an AI
 * seat answers its calls (it dials its lines as bridge does).
 */
export class Dialer {
  private readonly active = new Map<string, number>()
  private readonly sdrTurn = new Map<string, number>()
  private readonly pumping = new Set<string>()
  /** Held after a carrier throttle: until when, and the last hold's length and time (the back-off). */
  private readonly holds = new Map<string, { until: number; ms: number; at: number }>()
  /** Only while a benchmark measures (measureDelays): nothing is kept in a running service. */
  private delays: number[] | null = null

  constructor(
    private readonly deps: {
      stores: Stores
      queues: DialQueues
      leads: LeadRequeue
      calls: Pick<CallService, 'start'>
      handleTimes: HandleTimes
      clock: Clock
      scheduler: Scheduler
      /** Seats waiting and on a call (power, predictive); absent: none ever waits. */
      seats?: Pick<SeatBoard, 'waiting' | 'onCall'>
      /**
       * Whether an organization's live calls reach people who sit in seats (a real carrier); false
       * where the AI assistant answers every call (the simulator): there dial_mode is the bridge's.
       */
      seatedCarrier?: (orgId: string) => boolean
    },
    private enabled: boolean,
  ) {}

  /**
   * For benchmarks only (scripts/bench/dialer.ts): from now on, record the milliseconds from a
   * lead being next in line with a free line to its call being started (the carrier is asked
   * once that call is committed), up to 1,000,000 of them. Returns the list it fills.
   */
  measureDelays(): readonly number[] {
    return (this.delays ??= [])
  }

  /** Tests turn automatic dialing on when they want calls; the service always dials. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled
    if (enabled) this.pumpAll()
  }

  callsUp(campaignId: string, livemode: boolean): number {
    return this.active.get(slot(campaignId, livemode)) ?? 0
  }

  /** Lines taken now, by campaign and mode (metrics; only those ever used). */
  linesInUse(): { campaignId: string; livemode: boolean; inUse: number }[] {
    return [...this.active].map(([name, inUse]) => {
      const at = name.lastIndexOf(':')
      return { campaignId: name.slice(0, at), livemode: name.slice(at + 1) === 'live', inUse }
    })
  }

  pumpAll(): void {
    for (const { campaignId, livemode } of this.deps.queues.nonEmpty()) this.pump(campaignId, livemode)
  }

  /** Dials the head of the campaign's queue while it has a free line. */
  pump(campaignId: string, livemode: boolean): void {
    if (!this.enabled) return
    const name = slot(campaignId, livemode)
    if (this.pumping.has(name)) return
    const hold = this.holds.get(name)
    if (hold && hold.until > this.deps.clock.now()) return
    this.pumping.add(name)
    try {
      const { stores, queues, clock } = this.deps
      const campaign = stores.campaigns.get(campaignId)
      if (!campaign || campaign.status !== 'active' || campaign.sdrs.length === 0) return
      // Power and predictive: lead lines without a seat are paced by the seats waiting (pacing.ts).
      // Not with an AI seat: its agent takes every answer at once, and the mode applies at the handover.
      const paced = livemode && campaign.dialMode !== 'bridge' && !campaign.aiAgent && (this.deps.seatedCarrier?.(campaign.orgId) ?? false)
      const { allowed, seated } = paced ? this.pacing(campaign, this.active.get(name) ?? 0) : { allowed: campaign.lines, seated: 0 }
      while ((this.active.get(name) ?? 0) < campaign.lines && (this.active.get(name) ?? 0) - seated < allowed) {
        const due = clock.now()
        const head = queues.take(campaignId, livemode)
        if (!head) return
        const lead = stores.leads.get(head.id)
        if (!lead || lead.status !== 'queued' || lead.queueKey !== head.key) continue
        // A lead can wait in line past closing time or a cap: the calling rules are asked again
        // at the dial instant (src/domain/leads/lead-calls.ts atDial); a blocked lead is deferred.
        if (!this.deps.leads.atDial(lead, campaign, due)) continue
        const turn = this.sdrTurn.get(campaignId) ?? 0
        this.sdrTurn.set(campaignId, turn + 1)
        const owner = campaign.sdrs[turn % campaign.sdrs.length]!
        this.active.set(name, (this.active.get(name) ?? 0) + 1)
        try {
          this.deps.calls.start(lead, campaign, owner)
        } catch (error) {
          this.active.set(name, (this.active.get(name) ?? 1) - 1)
          throw error
        }
        if (this.delays && this.delays.length < 1_000_000) this.delays.push(clock.now() - due)
      }
    } finally {
      this.pumping.delete(name)
    }
  }

  /**
   * The lead lines a power or predictive campaign may have without a seat now, and how many of
   * its live lines have one. Seats only change at answers and releases, which pump again.
   */
  private pacing(campaign: CampaignRow, active: number): { allowed: number; seated: number } {
    const seats = this.deps.seats
    // At most the lines up: a seat on a call that is no line of this dialer's (an inbound caller) makes no room.
    const seated = Math.min(active, seats?.onCall(campaign.id) ?? 0)
    const now = this.deps.clock.now()
    const ledger = this.deps.stores.ledger
    const window = campaign.dialMode === 'predictive'
      ? { answered: ledger.counts(campaign.id, now - WINDOW_MS + ANSWER_LOOKAHEAD_MS).answered, abandoned: ledger.counts(campaign.id, now - WINDOW_MS).abandoned }
      : { answered: 0, abandoned: 0 }
    const allowed = leadLinesAllowed({
      mode: campaign.dialMode, lines: campaign.lines, waitingSeats: seats?.waiting(campaign.id) ?? 0,
      leadLinesUp: active - seated, window, maxAbandonRate: campaign.maxAbandonRate,
    })
    return { allowed, seated }
  }

  /**
   * The carrier turned a call away for its own limit (Twilio's 429): the line is freed as usual,
   * but the campaign's mode dials nothing until the hold ends (5 s, doubling while throttles
   * keep coming, at most 2 minutes), never in a tight loop.
   */
  throttled(campaignId: string, livemode: boolean): void {
    const name = slot(campaignId, livemode)
    const now = this.deps.clock.now()
    const last = this.holds.get(name)
    const ms = last && now - last.at < HOLD_RESET_MS ? Math.min(HOLD_MAX_MS, last.ms * 2) : HOLD_MS
    this.holds.set(name, { until: now + ms, ms, at: now })
    this.deps.scheduler.at(now + ms, () => this.pump(campaignId, livemode))
  }

  /** A call ended: its line takes the next lead. */
  lineFree(campaignId: string, livemode: boolean): void {
    const name = slot(campaignId, livemode)
    this.active.set(name, Math.max(0, (this.active.get(name) ?? 0) - 1))
    this.deps.handleTimes.forget(campaignId, livemode)
    this.pump(campaignId, livemode)
  }
}
