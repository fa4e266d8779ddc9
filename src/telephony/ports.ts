import type { Clock } from '../jobs/clock'
import type { Scheduler } from '../jobs/scheduler'
import type { SeatBoard } from '../domain/seats/contract'
import type { BridgePerson } from './carrier'
import type { SeatMetrics } from './media-stream/contract'

/**
 * What a carrier is given by the service (src/services.ts wires it): telephony declares the
 * ports it needs, the database and the domain implement them, so a carrier depends on no store.
 */

/** A call placed through a real carrier: its own call id, what the dial asked for and the callback state. */
export interface CarrierCallRecord {
  callId: string
  orgId: string
  /** The carrier's kind (the registry's key). */
  carrier: string
  /** The carrier's own call id; null until its create request succeeded. */
  carrierCallId: string | null
  /** Carrier-specific: kept so a restart answers the call as it was asked for. */
  plan: unknown
  /** Carrier-specific: the callback state machine's state, saved with each callback. */
  state: unknown
  /** Until the carrier has reported the call's end (and its recording, when one is due). */
  open: boolean
  created: number
  updated: number
}

/** Where a real carrier keeps its calls (implemented by src/db/stores/carrier-call-store.ts). */
export interface CarrierCallPort {
  insert(row: CarrierCallRecord): void
  get(callId: string): CarrierCallRecord | undefined
  update(callId: string, changes: Partial<Pick<CarrierCallRecord, 'carrierCallId' | 'state' | 'open' | 'updated'>>): void
  /** Open calls not updated since `before` (a watchdog asks the carrier about them). */
  openSince(before: number, limit: number): CarrierCallRecord[]
  /** The call the carrier knows by this id (an incoming call's callbacks carry only it). */
  bySid?(carrierCallId: string): CarrierCallRecord | undefined
}

/**
 * An incoming call to one of an organization's numbers (src/domain/calls/inbound-calls.ts),
 * inside the carrier's transaction: the caller is a lead (recognised by number, the newest lead
 * of the organization with it) whose inbound call row is written now, or unknown (a message).
 */
export interface InboundCallPort {
  open(orgId: string, call: { from: string; to: string }): InboundOpened
}

export type InboundOpened =
  | { kind: 'unknown'; message: string }
  | {
    kind: 'lead'
    callId: string
    campaignId: string
    leadName: string | null
    campaignName: string
    /** Who the transcript names on our side until someone takes the call. */
    agentName: string
    /** The campaign's people the press-1 bridge rings when no seat waits. */
    bridge: BridgePerson[]
  }

/** Where a carrier keeps the recordings it downloads (implemented by src/domain/calls/recording-files.ts). */
export interface RecordingStorage {
  save(callId: string, audio: Uint8Array): void
  read(callId: string): Uint8Array | null
}

/**
 * An organization's carrier settings with secrets opened, as the domain holds them
 * (src/domain/orgs/carrier-settings.ts): each carrier reads the fields of its own kind.
 */
export type OpenedSettings = { readonly kind: string }

/** What a carrier counts for GET /metrics (src/http/metrics.ts). */
export interface CarrierMetrics {
  /** A call's final status at the carrier (Twilio's CallStatus), or not_placed. */
  callEnded(status: string): void
  /** A signed callback applied, by step. */
  callback(step: string): void
  /** A callback refused (403), by why. */
  refused(reason: string): void
  /** How long one callback took to answer. */
  callbackSeconds(seconds: number): void
}

/**
 * Seats of power/predictive campaigns (src/domain/seats/seat-board.ts), inside the callback's
 * transaction: a lead answering claims a waiting one; leaving (or a machine) releases it.
 */
export type SeatPort = Pick<SeatBoard, 'claim' | 'release'>

/** A seat's leg as its carrier sees it (seat-board.ts implements SeatLegPort). */
export interface SeatLegRecord {
  seatId: string
  orgId: string
  /** Said to the person before they press 1. */
  campaignName: string
  state: 'calling' | 'waiting' | 'on_call' | 'ended'
  carrierCallId: string | null
  /** Carrier-specific: the leg's callback state, saved with each callback. */
  carrierState: unknown
}

/**
 * Seats' own legs, inside the carrier's callback transaction: the carrier's bookkeeping, and the
 * two moves a leg makes (sat: the person pressed 1; ended: the leg is over).
 */
export interface SeatLegPort {
  get(seatId: string): SeatLegRecord | undefined
  save(seatId: string, changes: { carrierCallId?: string; carrierState?: unknown; conferenceSid?: string }): void
  /** calling -> waiting (the dialer is pumped); false when the seat is no longer calling. */
  sat(seatId: string, at: number): boolean
  /** The leg is over: the seat ends with `reason` (no-op when it has ended already). */
  ended(seatId: string, reason: 'hung_up' | 'no_answer' | 'not_accepted' | 'failed', at: number): void
  /** Whether a seat's leg already has this carrier call id (a callback names only its own leg). */
  named?(carrierCallId: string): boolean
}

/** Everything a carrier's factory may use. */
export interface CarrierPorts {
  store: CarrierCallPort
  /** Runs work in one transaction (the callback's change with the call-service events it causes). */
  transaction: <T>(work: () => T) => T
  /** Runs an effect once what was written is durable (a dial or REST call cannot be taken back). */
  afterDurable: (effect: () => void) => void
  /**
   * The organization's settings of this carrier kind (an organization may have a pool of several
   * kinds); null when it has none of that kind or they cannot be read (the secret key changed).
   */
  settingsOf: (orgId: string, kind: string) => OpenedSettings | null
  recordings: RecordingStorage
  clock: Clock
  scheduler: Scheduler
  /** DIALER_PUBLIC_URL: callback URLs are under it, and signatures are checked against it. */
  publicUrl: string
  /** DIALER_SIM_SPEED: the simulator's times are divided by it. */
  simSpeed: number
  metrics?: CarrierMetrics
  /** Whether some organization has settings of this carrier kind now (start-up checks). */
  kindInUse?: (kind: string) => boolean
  /** Absent: no seat ever waits (power/predictive answers get the abandon message). */
  seats?: SeatPort
  /** Absent: the carrier places no seat legs. */
  seatLegs?: SeatLegPort
  /** Signs and checks the AI seat's stream tokens (media-stream/stream-token.ts): derived from the service's secret key. */
  streamKey?: Uint8Array
  /**
   * An openai_realtime seat's secrets, read when its stream starts (src/domain implements it): the
   * campaign's API key opened, and the instructions rendered for the call (calls.ai_instructions).
   * Null when the key cannot be opened (the call is taken back).
   */
  realtimeAgentOf?: (callId: string) => { apiKey: string; instructions: string } | null
  /** What the AI seat's relay counts (absent: nothing). */
  seatMetrics?: SeatMetrics
  /** Absent: incoming calls hear that nobody takes calls at this number. */
  inbound?: InboundCallPort
}

/**
 * What the app lends a carrier's callback routes: the request pipeline's route marker (log and
 * metrics), so a carrier folder needs nothing of the pipeline itself.
 */
export interface CallbackDoor {
  publicUrl: string
  markRoute: (context: { request: Request; route: string }) => void
}
