import type { CallRow } from '../../db/stores/call-store'
import type { Stores } from '../../db/stores'
import { ApiError, notFound } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import type { SuperviseRequest } from '../../telephony/carrier'
import type { EventLog } from '../events/event-log'
import { checkE164 } from '../orgs/carrier-fields'
import type { SeatBoard } from '../seats/contract'
import type { CarrierDirectory } from './carrier-choice'
import type { Call } from './call-shape'
import type { SuperviseBody, Supervision } from './supervision-shape'

/** Supervisors one call may have called in per SUPERVISE_WINDOW_MS (a console double-click, a script in a loop). */
export const MAX_PER_CALL = 3
/** Supervisors an organization may call in per SUPERVISE_WINDOW_MS. */
export const MAX_PER_ORG = 30
export const SUPERVISE_WINDOW_MS = 60_000

/** Who asks: the operator (any organization) or a person of one organization (the console). */
export interface SuperviseScope {
  orgId?: string
}

/**
 * A supervisor's phone called into a live call's seat conference (docs/api.md "Supervise"):
 * listen (muted), whisper (coaching the seat's person: only they hear) or barge (a full
 * participant). Only a live call through a carrier with conferences, in a seat's conference now,
 * can be supervised; anything else is 404 not_found. `call.supervised` is committed before the
 * carrier is asked, so the record stands whatever the phone does.
 */
export function supervision(deps: {
  stores: Pick<Stores, 'calls' | 'transaction' | 'afterDurable'>
  events: Pick<EventLog, 'record'>
  clock: Clock
  carriers: Pick<CarrierDirectory, 'named'>
  /** The seats (read when asked: they may be wired after this). */
  seats: () => Pick<SeatBoard, 'ofCall'> | undefined
  /** The Call object of a row (the event's object). */
  view: (row: CallRow) => Call
}) {
  const { stores, clock } = deps
  // Recent requests (unix ms), by call and by organization: in memory, a window each.
  const recent = new Map<string, number[]>()

  function admit(key: string, max: number, now: number): boolean {
    // Keys whose window has passed are dropped now and then, so the map stays small.
    if (recent.size > 10_000) for (const [k, times] of recent) if (times.every((at) => at <= now - SUPERVISE_WINDOW_MS)) recent.delete(k)
    const kept = (recent.get(key) ?? []).filter((at) => at > now - SUPERVISE_WINDOW_MS)
    if (kept.length >= max) {
      recent.set(key, kept)
      return false
    }
    kept.push(now)
    recent.set(key, kept)
    return true
  }

  return {
    supervise(callId: string, body: SuperviseBody, scope: SuperviseScope = {}): Supervision {
      const phone = checkE164(body.phone, 'phone', 'the supervisor\u2019s phone')
      const gone = () => notFound('No live call in a seat\u2019s conference has this id.')
      const row = stores.calls.get(callId)
      if (!row || (scope.orgId !== undefined && row.orgId !== scope.orgId)) throw gone()
      const carrier = deps.carriers.named(row.carrier)
      if (!row.livemode || row.status === 'ended' || !carrier?.supervise) throw gone()
      const seat = deps.seats()?.ofCall(row.id)
      // A whisper coaches the seat's own leg: without it there is nobody to whisper to.
      if (!seat || (body.mode === 'whisper' && !seat.carrierCallId)) throw gone()
      const now = clock.now()
      if (!admit(`call:${row.id}`, MAX_PER_CALL, now) || !admit(`org:${row.orgId}`, MAX_PER_ORG, now)) {
        throw new ApiError('rate_limited', `At most ${MAX_PER_CALL} supervisors a call and ${MAX_PER_ORG} an organization a minute.`, { retryAfter: SUPERVISE_WINDOW_MS / 1000 })
      }
      const supervision: Supervision = { object: 'supervision', call_id: row.id, mode: body.mode, phone, seat_id: seat.seatId, at: iso(now) }
      const request: SuperviseRequest = {
        callId: row.id, orgId: row.orgId, mode: body.mode, phone, conference: seat.conference, conferenceSid: seat.conferenceSid, seatCallId: seat.carrierCallId,
      }
      stores.transaction(() => {
        deps.events.record({
          type: 'call.supervised', orgId: row.orgId, livemode: row.livemode, campaignId: row.campaignId, objectId: row.id,
          object: { ...deps.view(row), supervision: { mode: body.mode, phone, at: supervision.at } },
        })
        // The phone is called only once the event is durable.
        stores.afterDurable(() => carrier.supervise!(request))
      })
      return supervision
    },
  }
}

export type Supervisions = ReturnType<typeof supervision>
