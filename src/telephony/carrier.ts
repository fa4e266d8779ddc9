import type { AiAgentSettings, AiUsage, ConsentNotice, TranscriptLine, Voicemail } from './call-values'
import type { Outcome } from '../domain/outcomes'

export type AnsweredBy = 'person' | 'machine' | 'unknown'

/** Someone on our side a carrier can bridge a lead to: SDRs first, then closers. */
export interface BridgePerson {
  id: string | null
  name: string
  role: 'sdr' | 'closer'
  /** E.164. */
  phone: string
}

/** What the dialer asks a carrier to do: one outbound call. */
export interface DialRequest {
  callId: string
  orgId: string
  /** The call's campaign: power/predictive answers claim one of its seats (absent: none). */
  campaignId?: string
  /** E.164 */
  to: string
  livemode: boolean
  /** Record the call (the organization records calls). */
  record: boolean
  /**
   * Set when `record` and a state of the lead requires every party's consent: the call starts
   * unrecorded, the notice plays after the answer, and recording starts once it has ended.
   * Absent or null: recorded from the answer when `record`.
   */
  consent?: ConsentNotice | null
  leadName: string | null
  /** bridge (default): people are rung after the answer; power/predictive: the answer joins a waiting seat's conference (absent: bridge). */
  dialMode?: 'bridge' | 'power' | 'predictive'
  /** Played within 2 s to a person no seat can take (power, predictive); 9 opts out. */
  abandonMessage?: Voicemail | null
  /** Said to each person the bridge rings, with the lead's name, before they press 1 (absent: not named). */
  campaignName?: string
  /** The person who takes a handover, for the transcript's agent lines. */
  agentName: string
  /** The lead's time zone, for times the lead says in their own time ("tomorrow at 10"). */
  leadZone: string
  /** The number the lead sees (the organization's caller ID sharing the lead's area code, else its first); null: the carrier's own. */
  callerId: string | null
  /** Detect answering machines; off, everyone who answers is taken for a person. */
  machineDetection: boolean
  /**
   * The campaign's AI seat: a person who answers hears its disclosure, then is streamed to the
   * agent (media-stream/); the dial mode applies to the handover. Absent or null: people first.
   */
  aiAgent?: AiAgentSettings | null
  /** The lead, for the agent's `dialer_lead_id` (set with aiAgent). */
  leadId?: string
  /** The organization's name, said when the service takes a call back from its agent. */
  orgName?: string
  /** What to do on answer: a person is bridged to these people in turn; a machine gets this voicemail (none: hang up). */
  onAnswer: { bridge: BridgePerson[]; voicemail: Voicemail | null }
}

/** Why a call never reached the lead because of the carrier, not the number: it does not count against the number. */
export type CarrierFault = 'throttled' | 'unavailable'

/** How a call ended, as the carrier (and the AI on it) saw it. */
export interface CallReport {
  /** The AI's outcome; null when a person took the call and files the outcome. */
  outcome: Outcome | null
  note: string | null
  voicemailDelivered: boolean
  /** A callback time the lead asked for (unix ms). */
  callbackAt: number | null
  /** The lead asked not to be called again. */
  optOut: boolean
  /**
   * The DNC entry's source when `optOut` (or outcome dnc) lists the number: the AI on the call
   * (absent), or `outcome` when the lead pressed 9 at the abandon message.
   */
  dncSource?: 'ai' | 'outcome'
  durationSeconds: number
  /** Lines known at the end (a carrier may also send them as they come: CallEvents.transcribed). */
  transcript: TranscriptLine[]
  recorded: boolean
  /** Set when the carrier, not the number, failed the call (the dialer holds the campaign's lines after 'throttled'). */
  carrierFault?: CarrierFault
  /**
   * The carrier never placed the call (its create request was refused or could not be sent):
   * nothing reached the lead. With carrierFault, a pool's next carrier may dial the same call.
   */
  notPlaced?: boolean
  /** When the call ended (unix ms), for a report told later (after its recording came); absent: when told. */
  endedAt?: number
}

/**
 * What happens on a call, told to the call service as it happens. A carrier may tell an event
 * twice or late: each one checks the call's state and changes nothing it should not.
 */
export interface CallEvents {
  answered(callId: string, by: AnsweredBy): void
  /** The AI heard buying intent. */
  intent(callId: string, excerpt: string, confidence: number): void
  /** A person on our side took the call: the one named, else the one the intent was offered to. */
  handover(callId: string, person?: Pick<BridgePerson, 'id' | 'name' | 'role'>): void
  ended(callId: string, report: CallReport): void
  /** Transcript lines as they arrive, before or after the end. */
  transcribed(callId: string, lines: TranscriptLine[]): void
  /** The recording is stored and can be served (it may come after the end). */
  recorded(callId: string): void
  /**
   * The abandonment ledger (src/domain/calls/ledger.ts). A person answered (AMD human or unknown,
   * or any answer when detection is off): `at` is the carrier's answer instant (unix ms), told
   * once the answering party is known to be a person (with detection, some seconds later).
   */
  personAnswered?(callId: string, at: number): void
  /**
   * A representative reached the person at `at`: bridged after press 1, or the person joined a
   * waiting seat's conference (or the AI seat's first audio). Told once; later ones change nothing.
   */
  connected?(callId: string, at: number): void
  /** The call was put on the campaign's AI seat: its agent's stream started (calls.ai_seated). Told once. */
  seated?(callId: string): void
  /** The agent's first audio came `ms` after the stream started (calls.ai_first_audio_ms). Told once. */
  agentAudio?(callId: string, ms: number): void
  /** A built-in agent's usage for one response: added to calls.ai_usage. */
  aiUsage?(callId: string, usage: AiUsage): void
  /** The AI seat's stream ended after `seconds` (calls.ai_seconds: AI minutes). Told once. */
  aiSeatTime?(callId: string, seconds: number): void
  /** The carrier reported the call's STIR/SHAKEN attestation (calls.attestation, for caller-ID health). Told once; later ones change nothing. */
  attested?(callId: string, level: 'A' | 'B' | 'C'): void
  /** The recording notice finished playing at `at` (unix ms): recording may start from then. */
  announced?(callId: string, at: number): void
  /**
   * The lead's phone rings (or the call was answered with no ringing told). A carrier may ring a
   * call long after the dial (Twilio queues calls past the account's calls per second), so the
   * service checks the lead's calling window again. False: it has closed; the call is over for
   * the service (outcome no_answer, not an attempt, the lead placed at its next allowed time)
   * and the carrier cancels it without connecting anyone. Absent: the call goes on.
   */
  ringing?(callId: string): boolean
}

/** A supervisor's phone called into a live call's seat conference (POST /admin/calls/{id}/supervise). */
export interface SuperviseRequest {
  callId: string
  orgId: string
  /** listen: muted; whisper: coaching the seat's person (only they hear); barge: a full participant. */
  mode: 'listen' | 'whisper' | 'barge'
  /** E.164. */
  phone: string
  /** The seat's conference by name (`seat-<id>`) and, once the carrier named it, its own id. */
  conference: string
  conferenceSid: string | null
  /** The seat's own leg at the carrier: the call a whisper coaches. */
  seatCallId: string | null
}

/** A seat's own leg (power, predictive): the campaign's person called to sit in their conference. */
export interface SeatLegRequest {
  seatId: string
  orgId: string
  /** E.164: the person's phone. */
  to: string
  /** E.164: the organization's caller ID the person sees. */
  from: string
}

/** A call the process was running when it stopped (boot reconciliation). */
export interface OpenCall {
  id: string
  orgId: string
  started: number
  answered: number | null
}

/**
 * A telephone carrier. The dialer only talks to the call service, and the call service only to
 * this interface, so a carrier is added without touching the dialer.
 */
export interface Carrier {
  readonly name: string
  /** Called only once the call's rows are durable (DatabaseHandle.afterDurable): a dial cannot be taken back. */
  dial(request: DialRequest, events: CallEvents): void
  hangUp(callId: string): void
  /** The recording audio (WAV) of a recorded call, as the carrier serves it. */
  recording(call: { id: string; durationSeconds: number | null }): Uint8Array | null
  /**
   * Boot: a call that was up when the process stopped. True when the carrier will find out how
   * it ended and tell `events` (it asks the real carrier); false when it cannot, and the call is
   * closed as failed.
   */
  resume(call: OpenCall, events: CallEvents): boolean
  /** Where events of calls the carrier tells of on its own (callbacks, boot) go: the call service's (wired once in src/services.ts). */
  connect?(events: CallEvents): void
  /** The service is closing: replies that come later are dropped. */
  stop?(): void
  /** Calls a supervisor into a live call's seat conference; called once `call.supervised` is durable. Absent: the carrier has no conferences. */
  supervise?(request: SuperviseRequest): void
  /**
   * Calls a seat's person (its row is committed and read through the carrier's `seatLegs` port);
   * a leg that cannot be placed ends the seat (failed). Absent: the carrier has no seats.
   */
  placeSeat?(request: SeatLegRequest): void
  /** Hangs up a seat's leg (the seat has ended already); a leg not yet named by the carrier is hung up once it is. */
  endSeat?(seat: { seatId: string; orgId: string; carrierCallId: string | null }): void
}
