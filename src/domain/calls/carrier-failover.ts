import type { Stores } from '../../db/stores'
import type { CallRow } from '../../db/stores/call-store'
import { logger } from '../../log'
import type { CallEvents, CallReport, DialRequest } from '../../telephony/carrier'
import type { CarrierBreakers } from './carrier-breaker'
import { chooseCallerId, type CarrierChoice, type CarrierDirectory } from './carrier-choice'

/**
 * Failover between an organization's pool of carriers (docs/operations.md "Carrier pools and
 * failover"): a call the carrier refused at its create request for an outage (unavailable,
 * throttled) and never placed is dialed again, the same call, through the pool's next carrier;
 * a number or request the carrier rejected is not, nor a call it placed. Each carrier's
 * breaker counts the outages and the placed calls.
 */

/** What an ended call's report means for its carrier and for failover. */
export type EndVerdict = 'outage' | 'carrier_up'

/**
 * An outage: the carrier refused the call for its own fault before placing it (nothing reached
 * the lead). A carrier fault after the call was placed (lost after a restart, the service
 * unreachable on the answer) or a refusal of the number is not one.
 */
export function endVerdict(report: Pick<CallReport, 'carrierFault' | 'notPlaced'>): EndVerdict {
  return report.carrierFault !== undefined && report.notPlaced === true ? 'outage' : 'carrier_up'
}

/** Dials remembered at most (a failover needs the request): calls up at once, far above any organization's lines. */
const PENDING_MAX = 10_000

export function carrierFailover(deps: {
  carriers: Pick<CarrierDirectory, 'next'>
  breakers: Pick<CarrierBreakers, 'dialing' | 'fault' | 'placed'>
  /** Caller IDs a dial may show (caller-ID health rests some); absent: all. */
  usableCallerIds?: (orgId: string, callerIds: readonly string[]) => readonly string[]
  /** Counted in /metrics (from the carrier that refused, to the one that dials next). */
  onFailover?: (from: string, to: string) => void
}) {
  // Dials that may still fail over: the request and the kinds tried, by call id, until the call ends or is answered.
  const pending = new Map<string, { request: DialRequest; tried: string[] }>()

  return {
    /** A dial goes out through `kind`; with fallbacks, its request is kept for a failover. */
    dialing(request: DialRequest, kind: string, fallbacks: readonly string[]): void {
      deps.breakers.dialing(request.orgId, kind)
      if (fallbacks.length === 0) return
      if (pending.size >= PENDING_MAX) pending.delete(pending.keys().next().value!)
      pending.set(request.callId, { request, tried: [kind] })
    },

    /** The call was answered: its carrier placed it, and it never fails over now. */
    answered(call: { id: string; orgId: string; carrier: string }): void {
      pending.delete(call.id)
      deps.breakers.placed(call.orgId, call.carrier)
    },

    /**
     * A call ends: its carrier's breaker learns how; for an outage on a call never answered, the
     * next carrier of the pool and the request to dial it with (its own caller ID); else null.
     */
    ended(call: { id: string; orgId: string; carrier: string; answered: number | null }, report: CallReport): { choice: CarrierChoice; request: DialRequest } | null {
      const entry = pending.get(call.id)
      pending.delete(call.id)
      if (endVerdict(report) === 'carrier_up') {
        deps.breakers.placed(call.orgId, call.carrier)
        return null
      }
      deps.breakers.fault(call.orgId, call.carrier)
      if (!entry || call.answered !== null) return null
      const choice = deps.carriers.next(call.orgId, entry.tried)
      if (!choice) return null
      const next = choice.carrier.name
      const callerId = chooseCallerId(deps.usableCallerIds?.(call.orgId, choice.callerIds) ?? choice.callerIds, entry.request.to)
      const request: DialRequest = { ...entry.request, callerId, machineDetection: choice.machineDetection }
      pending.set(call.id, { request, tried: [...entry.tried, next] })
      deps.breakers.dialing(call.orgId, next)
      deps.onFailover?.(call.carrier, next)
      logger.info('carrier_failover', { call_id: call.id, org_id: call.orgId, from: call.carrier, to: next, fault: report.carrierFault })
      return { choice, request }
    },

    /** Dials waiting to know whether they fail over (tests). */
    pendingCount: () => pending.size,
  }
}

export type CarrierFailover = ReturnType<typeof carrierFailover>

/**
 * Moves a call to the pool's next carrier: its carrier and caller ID change in one transaction,
 * then the dial once that is durable (the first carrier's unplaced row let go first: the same
 * call id is placed again).
 */
export function redial(
  deps: { stores: Pick<Stores, 'transaction' | 'afterDurable' | 'carrierCalls'>; update: (row: CallRow, changes: Partial<CallRow>) => CallRow },
  row: CallRow, next: { choice: CarrierChoice; request: DialRequest }, events: CallEvents,
): void {
  const { stores } = deps
  stores.transaction(() => deps.update(row, { carrier: next.choice.carrier.name, callerId: next.request.callerId }))
  stores.afterDurable(() => {
    stores.transaction(() => stores.carrierCalls.dropUnplaced(row.id))
    next.choice.carrier.dial(next.request, events)
  })
}
