import type { TwimlNode } from './emulator-twiml'
import { type EmulatedCall, type Engine, isPersonAnswer, type ParticipantOptions, rfc2822 } from './emulator-types'

/**
 * Conference rooms as Twilio runs them (twilio.com/docs/voice/twiml/conference,
 * /docs/voice/api/conference-resource, /docs/voice/api/conference-participant-resource): a room
 * is made by the first participant to join a FriendlyName no running room has (`init`); it
 * starts (`in-progress`) when a participant with startConferenceOnEnter=true is in it; it ends
 * (`completed`) when a participant with endConferenceOnExit=true leaves, when the last one leaves,
 * or through the API. Until it starts, participants hear the waitUrl (Twilio's hold music unless
 * waitUrl=""). Its statusCallback is the first one a participant names, with that participant's
 * events (start end join leave mute hold modify); each callback carries ConferenceSid,
 * FriendlyName, AccountSid, SequenceNumber, Timestamp, StatusCallbackEvent and, for a
 * participant's events, CallSid, Muted, Hold, Coaching, EndConferenceOnExit, StartConferenceOnEnter;
 * conference-end adds ReasonConferenceEnded (the Conference resource's reason_conference_ended
 * values) and CallSidEndingConference. participant-leave's ReasonParticipantLeft (Twilio's
 * changelog, Oct. 2023) uses values of the emulator's own choosing.
 */

export type ParticipantStatus = 'queued' | 'connecting' | 'ringing' | 'connected' | 'complete' | 'failed'

export interface Participant extends ParticipantOptions {
  call: EmulatedCall
  status: ParticipantStatus
  hold: boolean
  created: Date
  updated: Date
  /** Ends the participant's wait in the room (kicked, or the room ended): its TwiML goes on after the <Dial>. */
  release: () => void
  released: Promise<void>
}

export interface Conference {
  sid: string
  accountSid: string
  friendlyName: string
  status: 'init' | 'in-progress' | 'completed'
  created: Date
  updated: Date
  /** Who is in the room now, and Participants API calls still ringing (status not connected). */
  participants: Participant[]
  statusCallback: string | null
  events: Set<string>
  reasonEnded: string | null
  callSidEnding: string | null
  seq: number
  /** Everything that happened, in order, for assertions: the event and the call (wall clock ms). */
  log: { event: string; callSid: string | null; at: number }[]
}

const CONFERENCE_EVENTS: Record<string, string> = {
  'conference-start': 'start', 'conference-end': 'end', 'participant-join': 'join', 'participant-leave': 'leave',
  'participant-mute': 'mute', 'participant-unmute': 'mute', 'participant-hold': 'hold', 'participant-unhold': 'hold', 'participant-modify': 'modify',
}

/** A TwiML boolean attribute (Twilio writes true/false). */
const flag = (value: string | undefined, fallback: boolean) => (value === undefined ? fallback : value === 'true')
const split = (value: string | undefined) => new Set((value ?? '').split(/[\s,]+/).filter(Boolean))

/** The participant options of a <Conference> noun (defaults from twilio.com/docs/voice/twiml/conference). */
export function optionsOf(noun: TwimlNode): ParticipantOptions {
  const a = noun.attrs
  return {
    muted: flag(a.muted, false),
    coaching: a.coach !== undefined && a.coach !== '',
    callSidToCoach: a.coach || null,
    startConferenceOnEnter: flag(a.startConferenceOnEnter, true),
    endConferenceOnExit: flag(a.endConferenceOnExit, false),
    beep: a.beep ?? 'true',
    waitUrl: a.waitUrl ?? null,
    label: a.participantLabel ?? null,
    statusCallback: a.statusCallback ?? null,
    statusCallbackEvents: split(a.statusCallbackEvent),
  }
}

export class Conferences {
  readonly all = new Map<string, Conference>()

  constructor(private readonly engine: Engine) {}

  /** The running (not completed) room of that name on the account. */
  running(accountSid: string, friendlyName: string): Conference | null {
    return [...this.all.values()].find((c) => c.accountSid === accountSid && c.friendlyName === friendlyName && c.status !== 'completed') ?? null
  }

  /** The running room of that name, or a new one (`init`). */
  open(accountSid: string, friendlyName: string): Conference {
    const found = this.running(accountSid, friendlyName)
    if (found) return found
    const now = new Date()
    const conference: Conference = {
      sid: this.engine.wire.newConferenceSid(), accountSid, friendlyName, status: 'init', created: now, updated: now, participants: [],
      statusCallback: null, events: new Set(), reasonEnded: null, callSidEnding: null, seq: 0, log: [],
    }
    this.all.set(conference.sid, conference)
    return conference
  }

  /** The room a call is in now (or rings into), if any. */
  of(call: EmulatedCall): { conference: Conference; participant: Participant } | null {
    for (const conference of this.all.values()) {
      const participant = conference.participants.find((p) => p.call === call)
      if (participant) return { conference, participant }
    }
    return null
  }

  /** A Participants API call not yet answered: listed as queued until it joins. */
  pending(conference: Conference, call: EmulatedCall, options: ParticipantOptions): Participant {
    const participant = this.participant(call, options, 'queued')
    conference.participants.push(participant)
    this.adoptCallback(conference, options)
    return participant
  }

  /**
   * The call joins the room and stays until it ends or is moved (null) or the room ends or it is
   * kicked (true: its TwiML goes on after the <Dial>).
   */
  async join(call: EmulatedCall, conference: Conference, options: ParticipantOptions): Promise<true | null> {
    if (conference.status === 'completed') return true
    let participant = conference.participants.find((p) => p.call === call)
    if (!participant) {
      participant = this.participant(call, options, 'connected')
      conference.participants.push(participant)
    }
    participant.status = 'connected'
    participant.updated = new Date()
    this.adoptCallback(conference, options)
    this.notify(conference, 'participant-join', participant)
    if (conference.status === 'init' && participant.startConferenceOnEnter) {
      conference.status = 'in-progress'
      conference.updated = new Date()
      this.notify(conference, 'conference-start', participant)
    }
    this.hearing(conference)
    const cutShort = await this.engine.hold(call, participant.released)
    return cutShort ? null : true
  }

  /** The call hung up or was given new TwiML: it leaves its room (a ringing API participant just goes). */
  drop(call: EmulatedCall, reason: 'hung-up' | 'updated'): void {
    const found = this.of(call)
    if (!found) return
    const { conference, participant } = found
    if (participant.status !== 'connected') {
      participant.status = 'failed'
      conference.participants.splice(conference.participants.indexOf(participant), 1)
      if (conference.participants.length === 0) this.finish(conference, null, 'last-participant-left', call)
      return
    }
    this.leave(conference, participant, reason === 'hung-up' ? 'participant_hung_up' : 'participant_updated_via_api')
    if (participant.endConferenceOnExit && conference.status === 'in-progress') this.end(conference, 'participant-with-end-conference-on-exit-left', call)
    else if (conference.participants.every((p) => p.status !== 'connected')) this.end(conference, 'last-participant-left', call)
  }

  /** DELETE .../Participants/{CallSid}.json: out of the room; its TwiML goes on after the <Dial>. */
  kick(conference: Conference, participant: Participant): void {
    this.leave(conference, participant, 'participant_kicked')
    participant.release()
    if (participant.endConferenceOnExit && conference.status === 'in-progress') this.end(conference, 'participant-with-end-conference-on-exit-kicked', participant.call)
    else if (conference.participants.every((p) => p.status !== 'connected')) this.end(conference, 'last-participant-kicked', participant.call)
  }

  /** The room ends: everyone in it leaves (their <Dial> is over), then conference-end. */
  end(conference: Conference, reason: string, by: EmulatedCall | null): void {
    if (conference.status === 'completed') return
    // Ended through the API: the callback travels with a participant's call (they carry the signing token).
    const via = by ?? conference.participants[0]?.call ?? null
    for (const p of [...conference.participants]) {
      if (p.status === 'connected') this.leave(conference, p, 'conference_ended')
      else conference.participants.splice(conference.participants.indexOf(p), 1)
      p.release()
    }
    this.finish(conference, by, reason, via)
  }

  /** Muted, Hold, Coaching or CallSidToCoach changed through the API: told, and what the lead hears may change. */
  changed(conference: Conference, participant: Participant, event: 'participant-mute' | 'participant-unmute' | 'participant-hold' | 'participant-unhold' | 'participant-modify'): void {
    participant.updated = new Date()
    this.notify(conference, event, participant)
    this.hearing(conference)
  }

  private finish(conference: Conference, by: EmulatedCall | null, reason: string, via: EmulatedCall | null): void {
    conference.status = 'completed'
    conference.updated = new Date()
    conference.reasonEnded = reason
    conference.callSidEnding = by?.sid ?? null
    this.post(conference, 'conference-end', null, via, { ReasonConferenceEnded: reason, ...(by ? { CallSidEndingConference: by.sid } : {}), Reason: reason })
  }

  private leave(conference: Conference, participant: Participant, reason: string): void {
    conference.participants.splice(conference.participants.indexOf(participant), 1)
    participant.status = 'complete'
    participant.updated = new Date()
    this.notify(conference, 'participant-leave', participant, { ReasonParticipantLeft: reason })
  }

  private participant(call: EmulatedCall, options: ParticipantOptions, status: ParticipantStatus): Participant {
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    const now = new Date()
    return { ...options, call, status, hold: false, created: now, updated: now, release, released }
  }

  private adoptCallback(conference: Conference, options: ParticipantOptions): void {
    if (conference.statusCallback !== null || !options.statusCallback) return
    conference.statusCallback = options.statusCallback
    conference.events = options.statusCallbackEvents
  }

  /** A lead in a started room hears a person when another participant is a person, answered by a person, not muted, and not coaching someone else. */
  private hearing(conference: Conference): void {
    if (conference.status !== 'in-progress') return
    const inRoom = conference.participants.filter((p) => p.status === 'connected' && !p.hold)
    for (const lead of inRoom.filter((p) => p.call.role === 'lead')) {
      const hears = inRoom.some((p) => p !== lead && p.call.role === 'person' && isPersonAnswer(p.call.party) && !p.muted && (!p.coaching || p.callSidToCoach === lead.call.sid))
      if (hears) this.engine.heard(lead.call, 'person')
    }
  }

  private notify(conference: Conference, event: string, p: Participant, extra: Record<string, string> = {}): void {
    this.post(conference, event, p, p.call, {
      CallSid: p.call.sid, Muted: String(p.muted), Hold: String(p.hold), Coaching: String(p.coaching),
      EndConferenceOnExit: String(p.endConferenceOnExit), StartConferenceOnEnter: String(p.startConferenceOnEnter),
      ...(p.callSidToCoach ? { CallSidToCoach: p.callSidToCoach } : {}), ...(p.label ? { ParticipantLabel: p.label } : {}), ...extra,
    })
  }

  private post(conference: Conference, event: string, p: Participant | null, via: EmulatedCall | null, extra: Record<string, string>): void {
    conference.log.push({ event, callSid: p?.call.sid ?? null, at: Date.now() })
    const subscribed = conference.events.has(CONFERENCE_EVENTS[event] ?? event)
    if (!conference.statusCallback || !subscribed || !via) return
    void this.engine.post(via, 'conference', conference.statusCallback, {
      AccountSid: conference.accountSid, ConferenceSid: conference.sid, FriendlyName: conference.friendlyName,
      SequenceNumber: String(conference.seq++), Timestamp: rfc2822(new Date()), StatusCallbackEvent: event, ...extra,
    })
  }
}
