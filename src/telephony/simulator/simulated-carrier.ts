import { createHash } from 'node:crypto'
import type { RecordingNotice, TranscriptLine } from '../call-values'
import { localDateOf, zonedTime } from '../../domain/calling-hours/calling-window'
import type { Outcome } from '../../domain/outcomes'
import type { Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import type { AnsweredBy, CallEvents, Carrier, CallReport, DialRequest } from '../carrier'
import { toneWav } from '../tone-wav'

/** One step of a scripted call, `at` seconds after dialing (at DIALER_SIM_SPEED 1). */
type Step =
  | { at: number; kind: 'answer'; by: AnsweredBy }
  | { at: number; kind: 'intent'; excerpt: string; confidence: number }
  | { at: number; kind: 'handover' }
  | { at: number; kind: 'end'; outcome: Outcome | null; note: string | null; voicemail?: boolean; callback?: 'tomorrow_10' | 'in_2_hours'; optOut?: boolean }

interface Script {
  steps: Step[]
  lines: { at: number; speaker: TranscriptLine['speaker']; text: string }[]
}

const GREETING = { at: 0.5, speaker: 'ai' as const, text: 'Hi, this is the assistant calling about your request. Is now a good time?' }

const simple = (outcome: Outcome, leadSays: string, note: string, end = 30, by: AnsweredBy = 'person'): Script => ({
  steps: [{ at: 5, kind: 'answer', by }, { at: end, kind: 'end', outcome, note }],
  lines: [{ ...GREETING, at: 6 }, { at: 10, speaker: 'lead', text: leadSays }],
})

const INTENT = 'Yes, that sounds good. Can someone walk me through the pricing?'

/** How long the recording notice plays: read at 15 characters a second (a recording: 3 s), as the Twilio emulator does. */
export const noticeSeconds = (notice: RecordingNotice): number => ('say' in notice ? Math.max(1, notice.say.length / 15) : 3)

/** DESIGN.md "Telephony": the scenario is chosen by the last two digits of the number. */
const SCENARIOS: Record<string, Script> = {
  '00': {
    steps: [
      { at: 6, kind: 'answer', by: 'person' },
      { at: 25, kind: 'intent', excerpt: INTENT, confidence: 0.92 },
      { at: 35, kind: 'handover' },
      { at: 95, kind: 'end', outcome: 'interested', note: 'Interested; the SDR took the call and set next steps.' },
    ],
    lines: [{ ...GREETING, at: 7 }, { at: 25, speaker: 'lead', text: INTENT }, { at: 36, speaker: 'agent', text: 'Happy to help, let me walk you through it.' }],
  },
  '01': simple('not_interested', 'No thanks, I am not interested.', 'Not interested.', 45),
  '02': { steps: [{ at: 30, kind: 'end', outcome: 'no_answer', note: 'No answer after 30 seconds of ringing.' }], lines: [] },
  '03': { steps: [{ at: 2, kind: 'end', outcome: 'busy', note: 'The line was busy.' }], lines: [] },
  '04': {
    steps: [{ at: 8, kind: 'answer', by: 'machine' }, { at: 35, kind: 'end', outcome: 'voicemail', note: 'Voicemail left.', voicemail: true }],
    lines: [{ at: 12, speaker: 'ai', text: 'Hi, sorry we missed you. Please call us back when convenient.' }],
  },
  '05': { steps: [{ at: 1, kind: 'end', outcome: 'failed', note: 'The carrier could not connect the call.' }], lines: [] },
  '06': {
    steps: [{ at: 5, kind: 'answer', by: 'person' }, { at: 50, kind: 'end', outcome: 'callback', note: 'Asked for a call back tomorrow at 10:00.', callback: 'tomorrow_10' }],
    lines: [{ ...GREETING, at: 6 }, { at: 12, speaker: 'lead', text: 'Not now, can you call me back tomorrow at 10?' }],
  },
  '07': {
    steps: [{ at: 5, kind: 'answer', by: 'person' }, { at: 20, kind: 'end', outcome: 'dnc', note: 'Asked not to be called again.', optOut: true }],
    lines: [{ ...GREETING, at: 6 }, { at: 10, speaker: 'lead', text: 'Stop calling me. Take me off your list.' }],
  },
  '08': simple('wrong_number', 'You have the wrong number.', 'Wrong number.'),
  '09': simple('hung_up', '(hangs up)', 'The lead hung up.', 12),
  '10': simple('screened', 'Who is calling and why?', 'The call was screened.', 20, 'unknown'),
  '11': simple('language_barrier', 'No hablo inglés.', 'Language barrier.'),
  '12': simple('not_qualified', 'I rent, I do not own the house.', 'Not qualified.'),
  '13': simple('undetermined', 'Hmm, maybe, I am not sure.', 'The outcome is undetermined.'),
  '14': {
    steps: [
      { at: 5, kind: 'answer', by: 'person' },
      { at: 20, kind: 'intent', excerpt: INTENT, confidence: 0.88 },
      { at: 50, kind: 'end', outcome: 'callback', note: 'Interested, but nobody could take the call; a callback was booked.', callback: 'in_2_hours' },
    ],
    lines: [{ ...GREETING, at: 6 }, { at: 20, speaker: 'lead', text: INTENT }],
  },
  '15': {
    steps: [
      { at: 5, kind: 'answer', by: 'person' },
      { at: 20, kind: 'intent', excerpt: INTENT, confidence: 0.9 },
      { at: 28, kind: 'handover' },
      { at: 88, kind: 'end', outcome: null, note: null },
    ],
    lines: [{ ...GREETING, at: 6 }, { at: 20, speaker: 'lead', text: INTENT }, { at: 29, speaker: 'agent', text: 'Hi, I can take it from here.' }],
  },
}

// Realistic contact rates for every other number: [scenario, share in percent].
const MIX: [string, number][] = [
  ['02', 45], ['03', 8], ['04', 14], ['05', 3], ['01', 14], ['13', 3], ['09', 3], ['06', 3], ['00', 4], ['14', 1], ['08', 2],
]

/** The scenario for a number: its last two digits, or a fixed pick seeded by the call id. */
export function scenarioFor(phone: string, callId: string): string {
  const digits = phone.slice(-2)
  if (SCENARIOS[digits]) return digits
  const roll = createHash('sha256').update(callId).digest().readUInt32BE(0) % 100
  let sum = 0
  for (const [scenario, share] of MIX) {
    sum += share
    if (roll < sum) return scenario
  }
  return '02'
}

/**
 * The built-in carrier: plays each call from a script on the service clock, its times
 * divided by DIALER_SIM_SPEED. With the fake clock, moving the clock plays calls forward.
 */
export class SimulatedCarrier implements Carrier {
  readonly name = 'simulator'
  private readonly running = new Map<string, (() => void)[]>()

  constructor(private readonly deps: { clock: Clock; scheduler: Scheduler; speed: number }) {}

  dial(request: DialRequest, events: CallEvents): void {
    const script = SCENARIOS[scenarioFor(request.to, request.callId)]!
    const start = this.deps.clock.now()
    const at = (seconds: number) => start + Math.round((seconds * 1000) / this.deps.speed)
    const cancels: (() => void)[] = []
    let answered = false
    // Where every party must consent the notice plays after the answer; recording starts when it ends.
    const consent = request.record ? (request.consent ?? null) : null
    let announced = consent === null
    for (const step of script.steps) {
      cancels.push(
        this.deps.scheduler.at(at(step.at), () => {
          switch (step.kind) {
            case 'answer':
              answered = true
              if (consent) {
                const noticeAt = at(step.at + noticeSeconds(consent.notice))
                cancels.push(this.deps.scheduler.at(noticeAt, () => {
                  announced = true
                  events.announced?.(request.callId, noticeAt)
                }))
              }
              events.answered(request.callId, step.by)
              // The AI assistant speaks to whoever answers at once: a person is connected at the answer (the ledger).
              if (step.by !== 'machine') {
                events.personAnswered?.(request.callId, at(step.at))
                events.connected?.(request.callId, at(step.at))
              }
              return
            case 'intent':
              return events.intent(request.callId, step.excerpt, step.confidence)
            case 'handover':
              return events.handover(request.callId)
            case 'end': {
              this.running.delete(request.callId)
              const report: CallReport = {
                outcome: step.outcome,
                note: step.note,
                voicemailDelivered: step.voicemail === true,
                callbackAt: step.callback ? this.callbackTime(step.callback, request.leadZone) : null,
                optOut: step.optOut === true,
                // Scaled like every other time of the script (DESIGN.md: durations / DIALER_SIM_SPEED).
                durationSeconds: answered ? Math.max(1, Math.round((step.at - script.steps[0]!.at) / this.deps.speed)) : 0,
                transcript: script.lines.map((line) => ({
                  speaker: line.speaker,
                  name: line.speaker === 'ai' ? 'AI assistant' : line.speaker === 'agent' ? request.agentName : (request.leadName ?? 'Lead'),
                  text: line.text,
                  at: at(line.at),
                })),
                recorded: answered && request.record && announced,
              }
              return events.ended(request.callId, report)
            }
          }
        }),
      )
    }
    this.running.set(request.callId, cancels)
  }

  hangUp(callId: string): void {
    for (const cancel of this.running.get(callId) ?? []) cancel()
    this.running.delete(callId)
  }

  /** A scripted call cannot be picked up again after a restart: the service closes it as failed. */
  resume(): boolean {
    return false
  }

  /** A second of a 440 Hz tone per call, 8 kHz 8-bit mono WAV: enough to prove the link works. */
  recording(call: { id: string; durationSeconds: number | null }): Uint8Array | null {
    if (!call.durationSeconds) return null
    return toneWav()
  }

  private callbackTime(when: 'tomorrow_10' | 'in_2_hours', zone: string): number {
    const now = this.deps.clock.now()
    if (when === 'in_2_hours') return now + 2 * 3_600_000
    // DESIGN.md: scenario 06 books 10:00 the next calendar day in the lead's zone.
    const today = localDateOf(zone, now)
    return zonedTime(zone, { ...today, d: today.d + 1 }, '10:00')
  }
}
