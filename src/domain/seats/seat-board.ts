import type { Stores } from '../../db/stores'
import type { SeatRow } from '../../db/stores/seat-store'
import type { CampaignRow } from '../../db/stores/campaign-store'
import { invalid, notFound } from '../../errors'
import { iso, isoOrNull, type Clock } from '../../jobs/clock'
import type { SeatLegPort, SeatPort } from '../../telephony/ports'
import { chooseCallerId, type CarrierDirectory } from '../calls/carrier-choice'
import { newId } from '../ids'
import { classifyPhone, normalizedOrNull } from '../phone/phone-number'
import type { SeatBoard } from './contract'
import type { CreateSeatBody, Seat } from './seat-shape'

/**
 * Seats (dial_mode power, predictive; docs/design.md "Seats"): a campaign's SDR or closer called
 * on their phone through the organization's live carrier, waiting in a conference of their own
 * (`seat-<id>`) once they press 1. A lead's answer claims the seat that has waited longest; the
 * lead leaving releases it. Each seat that starts waiting pumps the campaign's live dialing.
 */
export interface SeatBoardDeps {
  stores: Pick<Stores, 'seats' | 'campaigns' | 'transaction' | 'afterCommit' | 'afterDurable'>
  clock: Clock
  carriers: CarrierDirectory
  /** The campaign's live dialing takes leads now (Dialer.pump), once the seat's change is committed. */
  pump: (campaignId: string) => void
}

export type SeatBoardService = SeatBoard & {
  /** What the carrier reads and moves of a seat's own leg (ports.ts SeatLegPort). */
  readonly legs: SeatLegPort
  /** One seat of the campaign (404 when it is not the campaign's). */
  get(campaignId: string, seatId: string): Seat
}

export const conferenceOf = (seatId: string): string => `seat-${seatId}`

export function presentSeat(row: SeatRow): Seat {
  return {
    id: row.id,
    object: 'seat',
    campaign_id: row.campaignId,
    person: { id: row.personId, name: row.name, role: row.role },
    phone: row.phone,
    state: row.state,
    lead_call_id: row.leadCallId,
    ended_reason: row.endedReason,
    seated_at: isoOrNull(row.seatedAt),
    ended_at: isoOrNull(row.endedAt),
    created: iso(row.created),
    updated: iso(row.updated),
  }
}

/** The campaign's person with this phone: the SDRs first, then the closers; a name that matches wins among several. */
export function personByPhone(campaign: Pick<CampaignRow, 'sdrs' | 'closers'>, phone: string, name: string) {
  const people = [
    ...campaign.sdrs.map((p) => ({ ...p, role: 'sdr' as const })),
    ...campaign.closers.map((p) => ({ ...p, role: 'closer' as const })),
  ].filter((p) => p.phone === phone)
  return people.find((p) => p.name === name) ?? people[0] ?? null
}

/**
 * The carriers' ports to the board (ports.ts): the carriers are built before it (it needs them)
 * and reach it only from callbacks, later; tests may replace the board's methods.
 */
export function seatPorts(board: () => SeatBoardService): { seats: SeatPort; seatLegs: SeatLegPort } {
  return {
    seats: { claim: (campaignId, leadCallId, at) => board().claim(campaignId, leadCallId, at), release: (leadCallId, at) => board().release(leadCallId, at) },
    seatLegs: {
      get: (seatId) => board().legs.get(seatId), save: (seatId, changes) => board().legs.save(seatId, changes),
      sat: (seatId, at) => board().legs.sat(seatId, at), ended: (seatId, reason, at) => board().legs.ended(seatId, reason, at),
      named: (carrierCallId) => board().legs.named?.(carrierCallId) ?? false,
    },
  }
}

export function seatBoard(deps: SeatBoardDeps): SeatBoardService {
  const { stores, clock } = deps
  const seats = stores.seats

  function campaignOf(campaignId: string): CampaignRow {
    const campaign = stores.campaigns.get(campaignId)
    if (!campaign) throw notFound('No such campaign')
    return campaign
  }

  /** Ends a seat that has not ended; true when it did now. */
  function close(row: SeatRow, reason: string, at: number): boolean {
    if (row.state === 'ended') return false
    seats.update(row.id, { state: 'ended', endedReason: reason, endedAt: at, leadCallId: null, updated: at })
    return true
  }

  const pumpLater = (campaignId: string) => stores.afterCommit(() => deps.pump(campaignId))

  const legs: SeatLegPort = {
    get(seatId) {
      const row = seats.get(seatId)
      if (!row) return undefined
      const campaignName = stores.campaigns.get(row.campaignId)?.name ?? ''
      return { seatId: row.id, orgId: row.orgId, campaignName, state: row.state, carrierCallId: row.carrierCallId, carrierState: row.carrierState }
    },
    // Bookkeeping leaves `updated` alone: for a waiting seat it is when it became free (who is claimed first).
    save(seatId, changes) {
      seats.update(seatId, changes)
    },
    sat(seatId, at) {
      const row = seats.get(seatId)
      if (!row || row.state !== 'calling') return false
      seats.update(seatId, { state: 'waiting', seatedAt: at, updated: at })
      pumpLater(row.campaignId)
      return true
    },
    ended(seatId, reason, at) {
      const row = seats.get(seatId)
      if (row) close(row, reason, at)
    },
    named: (carrierCallId) => seats.byCarrierCallId(carrierCallId) !== undefined,
  }

  return {
    legs,

    create(campaignId: string, body: CreateSeatBody): Seat {
      return stores.transaction(() => {
        const campaign = campaignOf(campaignId)
        if (campaign.dialMode === 'bridge') {
          throw invalid('Seats are for campaigns whose dial_mode is power or predictive; this campaign bridges people after the answer (dial_mode bridge).', 'dial_mode')
        }
        const phone = normalizedOrNull(classifyPhone(body.phone))
        const person = phone ? personByPhone(campaign, phone, body.name) : null
        if (!phone || !person) throw invalid('No SDR or closer of this campaign has this phone; a seat is one of the campaign\u2019s people.', 'phone')
        // A pool's first carrier: the campaign's answers dial through it to join the seat's conference.
        const choice = deps.carriers.forDial(campaign.orgId, true, { seated: true })
        const from = chooseCallerId(choice.callerIds, phone)
        if (!choice.carrier.placeSeat || !from) {
          throw invalid('The organization has no live Twilio carrier with a caller ID: a seat\u2019s person is called through it. Set one with `dialer admin org carrier <org> --twilio ...`.')
        }
        if (seats.live(campaign.orgId).some((s) => s.phone === phone)) {
          throw invalid('This phone has a seat already (not ended): end it first.', 'phone')
        }
        const now = clock.now()
        const row: SeatRow = {
          id: newId(), orgId: campaign.orgId, campaignId: campaign.id, personId: person.id, name: person.name, role: person.role, phone,
          state: 'calling', carrier: choice.carrier.name, carrierCallId: null, conferenceSid: null, leadCallId: null, carrierState: {},
          endedReason: null, created: now, updated: now, seatedAt: null, endedAt: null,
        }
        seats.insert(row)
        const carrier = choice.carrier
        // The person's phone rings only once the seat is durable (a crash never leaves a call without its row).
        stores.afterDurable(() => carrier.placeSeat!({ seatId: row.id, orgId: row.orgId, to: phone, from }))
        return presentSeat(row)
      })
    },

    list(campaignId, limit, startingAfter) {
      campaignOf(campaignId)
      return seats.list(campaignId, limit, startingAfter).map(presentSeat)
    },

    get(campaignId, seatId) {
      campaignOf(campaignId)
      const row = seats.get(seatId)
      if (!row || row.campaignId !== campaignId) throw notFound('No such seat')
      return presentSeat(row)
    },

    live(orgId) {
      return seats.live(orgId).map(presentSeat)
    },

    end(campaignId, seatId) {
      return stores.transaction(() => {
        campaignOf(campaignId)
        const row = seats.get(seatId)
        if (!row || row.campaignId !== campaignId) throw notFound('No such seat')
        if (!close(row, 'deleted', clock.now())) return presentSeat(row)
        const carrier = deps.carriers.named(row.carrier)
        const leg = { seatId: row.id, orgId: row.orgId, carrierCallId: row.carrierCallId }
        stores.afterDurable(() => carrier?.endSeat?.(leg))
        return presentSeat(seats.get(seatId)!)
      })
    },

    waiting: (campaignId) => seats.count(campaignId, 'waiting'),
    onCall: (campaignId) => seats.onCallOutbound(campaignId),

    claim(campaignId, leadCallId, at) {
      const row = seats.longestWaiting(campaignId)
      if (!row) return null
      seats.update(row.id, { state: 'on_call', leadCallId, updated: at })
      return { seatId: row.id, conference: conferenceOf(row.id), person: { id: row.personId, name: row.name, role: row.role } }
    },

    release(leadCallId, at) {
      const row = seats.withLead(leadCallId)
      if (!row) return
      seats.update(row.id, { state: 'waiting', leadCallId: null, updated: at })
      pumpLater(row.campaignId)
    },

    ofCall(callId) {
      const row = seats.withLead(callId)
      if (!row) return null
      return { seatId: row.id, conference: conferenceOf(row.id), conferenceSid: row.conferenceSid, carrierCallId: row.carrierCallId, personName: row.name }
    },
  }
}
