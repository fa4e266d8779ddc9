import type { CarrierFailover } from './carrier-failover'
import type { Stores } from '../../db/stores'
import type { Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import type { DncService } from '../dnc/dnc-service'
import type { EventLog } from '../events/event-log'
import type { LeadCallSide } from '../leads/lead-service'
import type { SignedLinks } from '../links/signed-links'
import type { Outcome } from '../outcomes'
import type { CarrierDirectory } from './carrier-choice'
import { callLifecycle } from './call-lifecycle'
import { callOutcomes } from './call-outcomes'
import { callReads } from './call-reads'
import { callRecordings } from './call-recordings'
import { callSteps } from './call-steps'
import { inboundCalls } from './inbound-calls'

/**
 * Calls, from dialing to call.completed, assembled from one module per concern: the shared
 * write steps (call-steps.ts), the lifecycle and carrier events (call-lifecycle.ts), outcomes a
 * person files and their timer (call-outcomes.ts), reads (call-reads.ts) and recordings
 * (call-recordings.ts). Each gets only the ports it needs.
 */
export function callService(deps: {
  stores: Stores
  leads: LeadCallSide
  dnc: DncService
  events: EventLog
  carriers: CarrierDirectory
  clock: Clock
  scheduler: Scheduler
  links: SignedLinks
  /** Told once a call's outcome is final and committed (metrics). */
  onOutcome?: (outcome: Outcome) => void
  /** The caller IDs a dial may show (caller-ID health leaves rested ones out); absent: all. */
  usableCallerIds?: (orgId: string, callerIds: readonly string[]) => readonly string[]
  /** A pool's failover between carriers (absent: none). */
  failover?: CarrierFailover
}) {
  const { stores, leads, clock, carriers } = deps
  const reads = callReads({ calls: stores.calls })
  const steps = callSteps({ stores, leads, dnc: deps.dnc, events: deps.events, clock, view: reads.view, onOutcome: deps.onOutcome })
  const outcomes = callOutcomes({ stores, leads, clock, scheduler: deps.scheduler, steps })
  const lifecycle = callLifecycle({ stores, leads, carriers, clock, steps, outcomes, usableCallerIds: deps.usableCallerIds, failover: deps.failover })
  const recordings = callRecordings({ stores, carriers, clock, links: deps.links })

  return {
    ...lifecycle,
    fileOutcome: outcomes.file,
    /** A lead calling one of the organization's numbers (the carrier's InboundCallPort). */
    openInbound: inboundCalls({ stores, clock, steps, carriers }).open,
    ...reads,
    ...recordings,
  }
}

export type CallService = ReturnType<typeof callService>
