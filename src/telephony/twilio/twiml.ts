/**
 * TwiML the dialer answers Twilio with (twilio.com/docs/voice/twiml). Every attribute and text
 * is XML-escaped; the output is exact so tests can compare strings.
 */

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>'

/** Escapes text and attribute values; drops characters XML 1.0 cannot carry at all. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

type Attrs = Record<string, string | number | boolean | undefined>

function element(name: string, attrs: Attrs = {}, children?: string): string {
  const a = Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('')
  return children === undefined ? `<${name}${a}/>` : `<${name}${a}>${children}</${name}>`
}

const response = (...verbs: string[]) => `${XML_HEAD}<Response>${verbs.join('')}</Response>`

export interface TranscriptionStart {
  /** Where Twilio posts transcription-started/-content/-stopped events. */
  statusCallbackUrl: string
  /** BCP-47, default en-US. */
  languageCode?: string
}

/**
 * Our names for the two tracks. Twilio's transcription callbacks say which track a line came
 * from in `Track`: inbound_track/outbound_track, or the label given here.
 */
export const TRACK_LABELS = { inbound: 'lead', outbound: 'agent' } as const

/** `<Start><Transcription>`: real-time transcription of both sides, labelled for our speakers. */
export function startTranscription(t: TranscriptionStart): string {
  return element(
    'Start',
    {},
    element('Transcription', {
      statusCallbackUrl: t.statusCallbackUrl,
      statusCallbackMethod: 'POST',
      track: 'both_tracks',
      // On an outbound API call the inbound track is the called party: the lead.
      inboundTrackLabel: TRACK_LABELS.inbound,
      outboundTrackLabel: TRACK_LABELS.outbound,
      languageCode: t.languageCode ?? 'en-US',
      partialResults: 'false',
    }),
  )
}

export interface BridgeLeg {
  /** The people to ring, SDRs then closers, E.164, in order. */
  phones: readonly string[]
  /** Which of them to ring now (0-based). */
  index: number
  /** The number the SDR sees (the caller ID the call was placed from). */
  callerId: string
  /** Seconds to ring this person before trying the next. */
  timeoutSeconds: number
  /**
   * Where Twilio reports the leg's result (DialCallStatus). The service answers it with the
   * next leg when nobody picked up, or hangs up when the bridge ended.
   */
  actionUrl: (index: number) => string
  /** Where the leg's <Number> reports that the person picked up (handover, tth from this moment): calls dialed before press 1. */
  legStatusUrl?: (index: number) => string
  /**
   * `<Number url>`: TwiML Twilio runs on the person's own leg once they answer, before the two
   * are connected (twilio.com/docs/voice/twiml/number#attributes-url): the press-1 briefing.
   */
  screenUrl?: (index: number) => string
  /** Starts transcription first; only on the first leg (a second <Start> would fork twice). */
  transcription?: TranscriptionStart
  /** Said to the lead while the first person rings. */
  greeting?: string
}

/**
 * One leg of the person-first bridge: `<Dial>` to one SDR or closer, with its own ring timeout
 * and an action URL carrying the leg's index. Legs are chained through the action URL rather
 * than listing every `<Number>` in one `<Dial>`: several Numbers ring at once, and Dial's
 * `sequential` attribute shares one timeout among them.
 */
export function bridgeLeg(leg: BridgeLeg): string | null {
  const phone = leg.phones[leg.index]
  if (phone === undefined) return null
  const verbs: string[] = []
  if (leg.index === 0 && leg.transcription) verbs.push(startTranscription(leg.transcription))
  if (leg.index === 0 && leg.greeting) verbs.push(element('Say', {}, escapeXml(leg.greeting)))
  const number = leg.screenUrl
    ? element('Number', { url: leg.screenUrl(leg.index), method: 'POST' }, escapeXml(phone))
    : leg.legStatusUrl
      ? element('Number', { statusCallbackEvent: 'answered', statusCallback: leg.legStatusUrl(leg.index), statusCallbackMethod: 'POST' }, escapeXml(phone))
      : element('Number', {}, escapeXml(phone))
  verbs.push(element('Dial', { action: leg.actionUrl(leg.index), method: 'POST', callerId: leg.callerId, timeout: leg.timeoutSeconds, answerOnBridge: true }, number))
  return response(...verbs)
}

/**
 * The press-1 briefing on a person's leg: the text inside a one-digit `<Gather>` (the digit goes
 * to `actionUrl` as `Digits`); no digit before the timeout runs the next verb, `<Hangup/>`, so
 * the leg ends unbridged (twilio.com/docs/voice/twiml/gather).
 */
export function pressOne(text: string, actionUrl: string, timeoutSeconds: number): string {
  const gather = element('Gather', { input: 'dtmf', numDigits: 1, timeout: timeoutSeconds, action: actionUrl, method: 'POST' }, element('Say', {}, escapeXml(text)))
  return response(gather, element('Hangup'))
}

/**
 * A lead joins a seat's conference (twilio.com/docs/voice/twiml/conference): it starts the room
 * if need be, its leaving does not end it (the seat waits on for the next lead), no beep. When the
 * room ends (the seat's person hung up) the `<Dial>` is over and the call hangs up.
 */
export function joinConference(room: string, transcription?: TranscriptionStart): string {
  const conference = element('Conference', { startConferenceOnEnter: true, endConferenceOnExit: false, beep: false }, escapeXml(room))
  return response(...(transcription ? [startTranscription(transcription)] : []), element('Dial', {}, conference), element('Hangup'))
}

/**
 * A seat's person in their own room (twilio.com/docs/voice/twiml/conference): the room starts
 * with them and ends when they leave (a lead in it is let go); waitUrl "" is silence while they
 * are alone (no hold music), no beep; the room's start and end go to `statusCallback` (its
 * ConferenceSid, where supervisors are added).
 */
export function seatConference(room: string, statusCallback: string): string {
  const conference = element('Conference', {
    startConferenceOnEnter: true, endConferenceOnExit: true, beep: false, waitUrl: '',
    statusCallback, statusCallbackEvent: 'start end', statusCallbackMethod: 'POST',
  }, escapeXml(room))
  return response(element('Dial', {}, conference), element('Hangup'))
}

/**
 * A recorded message inside a one-digit `<Gather>` (the digit goes to `actionUrl` as `Digits`),
 * then a sentence said after it; no digit by the timeout runs `<Hangup/>` (twilio.com/docs/voice/twiml/gather).
 */
export function messageGather(message: VoicemailDrop, then: string, actionUrl: string, timeoutSeconds: number): string {
  const verb = 'audioUrl' in message ? element('Play', {}, escapeXml(message.audioUrl)) : element('Say', {}, escapeXml(message.say))
  const gather = element('Gather', { input: 'dtmf', numDigits: 1, timeout: timeoutSeconds, action: actionUrl, method: 'POST' }, verb + element('Say', {}, escapeXml(then)))
  return response(gather, element('Hangup'))
}

/** Empty TwiML: the `<Number url>` document ends and Twilio connects the two parties. */
export const connectLeg = (): string => `${XML_HEAD}<Response/>`

export type VoicemailDrop = { audioUrl: string } | { say: string }

/**
 * The voicemail drop on a machine. With AsyncAmd and DetectMessageEnd, the service redirects the
 * call here when the AMD callback says machine_end_*, i.e. after the beep. With `doneUrl` the
 * message is followed by a `<Redirect>` there, so the service learns the drop played to its end
 * (voicemail.left) and answers it with a hang-up; without it the call hangs up at once.
 */
export function voicemailDrop(drop: VoicemailDrop, doneUrl?: string): string {
  const verb = 'audioUrl' in drop ? element('Play', {}, escapeXml(drop.audioUrl)) : element('Say', {}, escapeXml(drop.say))
  return response(verb, doneUrl ? element('Redirect', { method: 'POST' }, escapeXml(doneUrl)) : element('Hangup'))
}

/**
 * The recording notice where every party must consent: said or played, then a `<Redirect>` to
 * `nextUrl`, which starts recording (the REST API) and answers with the rest of the call.
 */
export function noticeThen(notice: VoicemailDrop, nextUrl: string): string {
  const verb = 'audioUrl' in notice ? element('Play', {}, escapeXml(notice.audioUrl)) : element('Say', {}, escapeXml(notice.say))
  return response(verb, element('Redirect', { method: 'POST' }, escapeXml(nextUrl)))
}

/**
 * What Twilio runs when the lead answers, before AMD has decided (AsyncAmd): keep the line
 * open quietly so the AMD callback can redirect it, with transcription started.
 */
export function holdForDetection(options: { pauseSeconds: number; transcription?: TranscriptionStart }): string {
  const verbs: string[] = []
  if (options.transcription) verbs.push(startTranscription(options.transcription))
  verbs.push(element('Pause', { length: options.pauseSeconds }))
  return response(...verbs)
}

/**
 * The AI seat (docs/telephony.md "The AI seat"): the disclosure said or played, transcription
 * started where nothing started it before, then a bidirectional stream to the service
 * (twilio.com/docs/voice/twiml/connect, twilio.com/docs/voice/twiml/stream). Twilio drops the
 * stream URL's query string, so the call's token travels in a `<Parameter>` (it arrives in
 * `start.customParameters`). When the service closes the socket the `<Connect>` ends and Twilio
 * requests `actionUrl`, whose TwiML runs next.
 */
export function connectStream(seat: { disclosure: VoicemailDrop; transcription?: TranscriptionStart; streamUrl: string; actionUrl: string; parameters: Record<string, string> }): string {
  const verbs: string[] = []
  verbs.push('audioUrl' in seat.disclosure ? element('Play', {}, escapeXml(seat.disclosure.audioUrl)) : element('Say', {}, escapeXml(seat.disclosure.say)))
  if (seat.transcription) verbs.push(startTranscription(seat.transcription))
  const parameters = Object.entries(seat.parameters).map(([name, value]) => element('Parameter', { name, value })).join('')
  verbs.push(element('Connect', { action: seat.actionUrl, method: 'POST' }, element('Stream', { url: seat.streamUrl }, parameters)))
  return response(...verbs)
}

export function say(text: string, then: 'hangup' | 'nothing' = 'hangup'): string {
  return then === 'hangup' ? response(element('Say', {}, escapeXml(text)), element('Hangup')) : response(element('Say', {}, escapeXml(text)))
}

export function hangup(): string {
  return response(element('Hangup'))
}
