import { randomBytes } from 'node:crypto'
import { scenarioFor } from '../../../src/telephony/simulator/simulated-carrier'
import { type TwimlNode, parseTwiml } from './emulator-twiml'
import { signTwilioRequest } from '../../../src/telephony/twilio/signature'
import { DETECTION, PLANS, type Plan, type Script } from './emulator-scenarios'
import { seededRandom } from '../../seeded-random'

/**
 * How the emulator plays one call: the scenario table of the simulator (docs/simulator.md, by
 * the last two digits of To), driven through Twilio's callbacks and the TwiML the service
 * answers with. Times are emulated seconds, divided by the emulator's speed.
 */

export type CallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled'

export interface EmulatedCall {
  sid: string
  accountSid: string
  authToken: string
  to: string
  from: string
  url: string | null
  twiml: string | null
  statusCallback: string | null
  events: Set<string>
  amd: 'async' | 'sync' | null
  amdCallback: string | null
  record: boolean
  recordingCallback: string | null
  /** RecordingStatusCallbackEvent (Twilio's default: completed only). */
  recordingEvents: Set<string>
  /** What the test changed for calls to this number. */
  script: Script
  timeout: number
  /** Emulated seconds the call waits in `queued` (the account's calls per second) before it starts. */
  queuedFor?: number
  scenario: string
  status: CallStatus
  answeredBy: string | null
  startedAt: number
  answeredAt: number | null
  endedAt: number | null
  duration: number | null
  recordingSid: string | null
  /** Said or played to its end: the text (a <Play>'s URL) and the emulated second it ended. */
  spoken?: { text: string; endedAt: number }[]
  /** Started on the live call (POST .../Calls/{Sid}/Recordings.json) at `startedAt` emulated seconds. */
  liveRecording?: { sid: string; startedAt: number; callback: string | null; events: Set<string> }
  gen: number
  wakers: Set<() => void>
  /** Timers a redirect does not stop (the lead hanging up, AMD, transcript lines); cleared when the call ends. */
  timers: Set<ReturnType<typeof setTimeout>>
  dial: { legSid: string; action: string | null; answeredAt: number | null; answeredStatus: string; bridged?: boolean } | null
  /** Every person's leg rung by a <Dial><Number>: what its <Number url> said to them, the key pressed, whether it was bridged. */
  legs?: { to: string; heard: string[]; key: string | null; bridged: boolean }[]
  transcription: { url: string; sid: string; seq: number; labels: { inbound_track: string; outbound_track: string } } | null
  /** Notifications held to be sent in shuffled order (the shuffle option). */
  held: { kind: SentCallback['kind']; url: string; params: Record<string, string>; token: string }[]
  flushTimer: ReturnType<typeof setTimeout> | null
  chain: Promise<unknown>
  seq: number
  done: Promise<void>
  finish: () => void
}

export interface SentCallback {
  kind: 'status' | 'amd' | 'twiml' | 'redirect' | 'action' | 'leg-status' | 'recording' | 'transcription' | 'screen' | 'gather'
  callSid: string
  url: string
  params: Record<string, string>
  signature: string
  status: number | null
  body: string
}

export const newSid = (prefix: string): string => prefix + randomBytes(16).toString('hex')

export interface EngineDeps {
  /** Emulated seconds are divided by this (speed 100: a 30 s ring takes 0.3 s). */
  speed: number
  apiBaseUrl: () => string
  fetch: (url: string, init: RequestInit) => Promise<Response>
  sent: SentCallback[]
  /** Deliver every notification (not TwiML fetches) twice, as Twilio may: for idempotency tests. */
  replay: boolean
  /**
   * Hold notifications (not TwiML fetches) briefly and send them in an order drawn from `seed`,
   * each repeated with probability `duplicate`: Twilio's callbacks travel separately and may
   * arrive late, out of order or twice.
   */
  shuffle?: { seed: number; duplicate: number }
  /** Transcription lines name their track by the label <Transcription> gave it (else inbound_track/outbound_track). */
  trackLabels?: boolean
}

export class CallEngine {
  private readonly random: () => number

  constructor(private readonly deps: EngineDeps) {
    this.random = seededRandom(deps.shuffle?.seed ?? 1)
  }

  newCall(fields: Omit<EmulatedCall, 'sid' | 'scenario' | 'status' | 'answeredBy' | 'startedAt' | 'answeredAt' | 'endedAt' | 'duration' | 'recordingSid' | 'gen' | 'wakers' | 'timers' | 'dial' | 'transcription' | 'chain' | 'seq' | 'done' | 'finish' | 'held' | 'flushTimer'>): EmulatedCall {
    const sid = newSid('CA')
    let finish = () => {}
    const done = new Promise<void>((resolve) => (finish = resolve))
    const call: EmulatedCall = {
      ...fields, sid, scenario: scenarioFor(fields.to, sid), status: 'queued', answeredBy: null, startedAt: Date.now(), answeredAt: null,
      endedAt: null, duration: null, recordingSid: null, gen: 0, wakers: new Set(), timers: new Set(), dial: null, transcription: null, chain: Promise.resolve(), seq: 0, done, finish,
      held: [], flushTimer: null,
    }
    // After the create reply is built: Twilio answers 'queued', then the call starts.
    queueMicrotask(() => void this.drive(call))
    return call
  }

  /** Emulated seconds since the call was created. */
  private now(call: EmulatedCall): number {
    return ((Date.now() - call.startedAt) * this.deps.speed) / 1000
  }

  /** Waits emulated seconds; true when a redirect, hang-up or the call's end cut it short. */
  private sleep(call: EmulatedCall, seconds: number): Promise<boolean> {
    const gen = call.gen
    if (call.endedAt !== null) return Promise.resolve(true)
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        call.wakers.delete(wake)
        resolve(true)
      }
      const timer = Number.isFinite(seconds) ? setTimeout(() => {
        call.wakers.delete(wake)
        resolve(call.gen !== gen || call.endedAt !== null)
      }, Math.max(0, (seconds * 1000) / this.deps.speed)) : undefined
      call.wakers.add(wake)
    })
  }

  /** Runs `fn` after emulated seconds unless the call has ended by then. */
  private after(call: EmulatedCall, seconds: number, fn: () => void): void {
    if (call.endedAt !== null) return
    const timer = setTimeout(() => {
      call.timers.delete(timer)
      if (call.endedAt === null) fn()
    }, Math.max(0, (seconds * 1000) / this.deps.speed))
    call.timers.add(timer)
  }

  private interrupt(call: EmulatedCall): void {
    call.gen++
    for (const wake of [...call.wakers]) wake()
  }

  private async drive(call: EmulatedCall): Promise<void> {
    const plan = PLANS[call.scenario]!
    if (call.endedAt !== null) return // canceled before it started
    if (call.queuedFor) {
      // Canceled while queued: end() told it. The call's times count from when it leaves the queue.
      if (await this.sleep(call, call.queuedFor)) return
      call.startedAt = Date.now()
    }
    call.status = 'initiated'
    await this.status(call, 'initiated')
    if (await this.sleep(call, 0.5)) return
    call.status = 'ringing'
    await this.status(call, 'ringing')
    const answerAt = plan.answerAt ?? Number.POSITIVE_INFINITY
    if (plan.terminal || answerAt > call.timeout) {
      const terminal = plan.terminal ?? 'no-answer'
      const at = terminal === 'no-answer' ? Math.min(plan.endAt, call.timeout) : plan.endAt
      if (await this.sleep(call, at - this.now(call))) return
      return this.end(call, terminal)
    }
    if (await this.sleep(call, answerAt - this.now(call))) return
    call.status = 'in-progress'
    call.answeredAt = this.now(call)
    await this.status(call, 'in-progress')
    this.after(call, plan.endAt - this.now(call), () => void this.end(call, 'completed'))
    const by = call.script.answeredBy ?? plan.answeredBy ?? 'human'
    const detection = DETECTION[by] ?? 2
    const extra: Record<string, string> = {}
    if (call.amd === 'async' && call.amdCallback) {
      const url = call.amdCallback
      this.after(call, detection, () => {
        call.answeredBy = by
        void this.post(call, 'amd', url, { ...this.base(call), AnsweredBy: by, MachineDetectionDuration: String(detection * 1000) })
      })
    } else if (call.amd === 'sync') {
      if (await this.sleep(call, detection)) return
      call.answeredBy = by
      extra.AnsweredBy = by
    }
    const gen = call.gen
    if (call.twiml !== null) return this.run(call, call.twiml, gen)
    const doc = await this.fetchTwiml(call, 'twiml', call.url!, extra)
    // A redirect that came while the TwiML was on its way wins.
    if (doc !== null && call.gen === gen) return this.run(call, doc, gen)
  }

  /** POST .../Calls/{Sid}.json with Twiml or Url: the current TwiML stops and the new one runs. */
  redirect(call: EmulatedCall, to: { twiml: string } | { url: string }): void {
    this.interrupt(call)
    call.dial = null
    const gen = call.gen
    if ('twiml' in to) void this.run(call, to.twiml, gen)
    else
      void this.fetchTwiml(call, 'redirect', to.url).then((doc) => {
        if (doc !== null && call.gen === gen) void this.run(call, doc, gen)
      })
  }

  /** Status=completed or canceled: a call not yet answered is canceled, an answered one completed. */
  hangUp(call: EmulatedCall): void {
    void this.end(call, call.answeredAt === null ? 'canceled' : 'completed')
  }

  private async run(call: EmulatedCall, xml: string, gen: number): Promise<void> {
    let doc: TwimlNode
    try {
      doc = parseTwiml(xml)
    } catch {
      // Twilio says "an application error has occurred" and hangs up.
      return this.end(call, 'completed')
    }
    for (const verb of doc.children) {
      if (call.gen !== gen || call.endedAt !== null) return
      switch (verb.name) {
        case 'Say':
          if (await this.sleep(call, Math.max(1, verb.text.length / 15))) return
          ;(call.spoken ??= []).push({ text: verb.text, endedAt: this.now(call) })
          break
        case 'Play':
          if (await this.sleep(call, 3)) return
          ;(call.spoken ??= []).push({ text: verb.text.trim(), endedAt: this.now(call) })
          break
        case 'Pause':
          if (await this.sleep(call, Number(verb.attrs.length ?? 1) || 1)) return
          break
        case 'Start':
          for (const t of verb.children) if (t.name === 'Transcription' && t.attrs.statusCallbackUrl) this.startTranscription(call, t.attrs.statusCallbackUrl, t.attrs)
          break
        case 'Hangup':
          return this.end(call, 'completed')
        case 'Redirect': {
          const next = await this.fetchTwiml(call, 'redirect', verb.text.trim())
          if (next === null || call.gen !== gen) return
          return this.run(call, next, gen)
        }
        case 'Dial': {
          const result = await this.dial(call, verb)
          if (result === null || call.gen !== gen || call.endedAt !== null) return
          // The leg is over: end() must not report it to the action URL a second time.
          const legSid = call.dial?.legSid ?? ''
          call.dial = null
          if (verb.attrs.action) {
            const next = await this.fetchTwiml(call, 'action', verb.attrs.action, { DialCallStatus: result, DialCallSid: legSid, DialCallDuration: '0', DialBridged: 'false' })
            if (next === null || call.gen !== gen) return
            return this.run(call, next, gen)
          }
          break
        }
      }
    }
    if (call.gen === gen) return this.end(call, 'completed')
  }

  /**
   * One <Dial><Number>: the SDR's own last two digits decide (02 no answer, 03 busy, 05 failed,
   * 06 canceled, else answers in 2 s; 09 answers and its DialCallStatus at the end is `answered`).
   * With `<Number url>` the answered leg runs that TwiML first (screen) and is bridged only if it
   * ends without hanging up; else the Dial ends `completed`, unbridged.
   */
  private async dial(call: EmulatedCall, verb: TwimlNode): Promise<string | null> {
    const number = verb.children.find((c) => c.name === 'Number')
    if (!number) return 'failed'
    const timeout = Number(verb.attrs.timeout ?? 30) || 30
    const digits = number.text.trim().slice(-2)
    call.dial = { legSid: newSid('CA'), action: verb.attrs.action ?? null, answeredAt: null, answeredStatus: digits === '09' ? 'answered' : 'completed' }
    const [result, after] = digits === '03' ? ['busy', 1] : digits === '05' ? ['failed', 1] : digits === '06' ? ['canceled', 1]
      : digits === '02' || timeout < 2 ? ['no-answer', timeout] : ['answered', 2]
    if (await this.sleep(call, after)) return null
    if (result !== 'answered') return result
    call.dial.answeredAt = this.now(call)
    const events = (number.attrs.statusCallbackEvent ?? '').split(/\s+/)
    if (number.attrs.statusCallback && events.includes('answered')) {
      await this.post(call, 'leg-status', number.attrs.statusCallback, { ...this.base(call), CallSid: call.dial.legSid, ParentCallSid: call.sid, To: number.text.trim(), CallStatus: 'in-progress' })
    }
    const leg = { to: number.text.trim(), heard: [] as string[], key: null as string | null, bridged: false }
    ;(call.legs ??= []).push(leg)
    if (number.attrs.url) {
      const bridged = await this.screen(call, number.attrs.url, leg)
      if (bridged === null) return null
      if (!bridged) return 'completed'
    }
    leg.bridged = true
    call.dial.bridged = true
    if (call.transcription) this.after(call, 1, () => this.transcript(call, 'outbound_track', 'Hi, I can take it from here.'))
    // Bridged until the lead hangs up (end() then reports the leg to the action URL).
    await this.sleep(call, Number.POSITIVE_INFINITY)
    return null
  }

  /**
   * A `<Number url>` document on the answered leg, as Twilio runs it before connecting: Say and
   * Pause take time, a one-digit Gather gets the key the phone's digits script (keyFor), posted
   * to its action whose TwiML runs next; no key: the Gather times out and the next verb runs.
   * true: it ended without <Hangup> (bridge); false: the leg hung up; null: the call ended meanwhile.
   */
  private async screen(call: EmulatedCall, url: string, leg: { to: string; heard: string[]; key: string | null }): Promise<boolean | null> {
    const gen = call.gen
    const params = () => ({ ...this.base(call), CallSid: call.dial!.legSid, ParentCallSid: call.sid, To: leg.to, Called: leg.to, Direction: 'outbound-dial', CallStatus: 'in-progress' })
    let xml: string | null = await this.legTwiml(call, 'screen', url, params())
    while (xml !== null) {
      if (call.gen !== gen || call.endedAt !== null || !call.dial) return null
      let doc: TwimlNode
      try {
        doc = parseTwiml(xml)
      } catch {
        return false
      }
      let next: string | null = null
      for (const verb of doc.children) {
        if (verb.name === 'Hangup') return false
        if (verb.name === 'Say' || verb.name === 'Play') {
          if (await this.sleep(call, Math.max(1, verb.text.length / 15))) return null
          leg.heard.push(verb.text.trim())
        } else if (verb.name === 'Pause') {
          if (await this.sleep(call, Number(verb.attrs.length ?? 1) || 1)) return null
        } else if (verb.name === 'Redirect') {
          next = await this.legTwiml(call, 'screen', verb.text.trim(), params())
          if (next === null) return false
          break
        } else if (verb.name === 'Gather') {
          for (const inner of verb.children) {
            if (inner.name !== 'Say' && inner.name !== 'Play') continue
            if (await this.sleep(call, Math.max(1, inner.text.length / 15))) return null
            leg.heard.push(inner.text.trim())
          }
          const key = keyFor(leg.to)
          if (key === null || !verb.attrs.action) {
            if (await this.sleep(call, Number(verb.attrs.timeout ?? 5) || 5)) return null
            continue
          }
          leg.key = key
          next = await this.legTwiml(call, 'gather', verb.attrs.action, { ...params(), Digits: key, FinishedOnKey: '' })
          if (next === null) return false
          break
        }
      }
      if (next === null) return true
      xml = next
    }
    return false
  }

  /** A TwiML fetch for a person's leg; an error reply hangs up that leg only (null). */
  private async legTwiml(call: EmulatedCall, kind: 'screen' | 'gather', url: string, params: Record<string, string>): Promise<string | null> {
    const reply = await this.post(call, kind, url, params)
    return reply.status === null || reply.status >= 400 ? null : reply.body
  }

  private startTranscription(call: EmulatedCall, url: string, attrs: Record<string, string>): void {
    if (call.transcription) return
    const labels = {
      inbound_track: (this.deps.trackLabels && attrs.inboundTrackLabel) || 'inbound_track',
      outbound_track: (this.deps.trackLabels && attrs.outboundTrackLabel) || 'outbound_track',
    }
    call.transcription = { url, sid: newSid('GT'), seq: 0, labels }
    void this.post(call, 'transcription', url, { ...this.transcriptionBase(call), TranscriptionEvent: 'transcription-started' })
    for (const [at, text] of PLANS[call.scenario]!.lines) {
      this.after(call, Math.max(0.1, at - this.now(call)), () => this.transcript(call, 'inbound_track', text))
    }
  }

  private transcript(call: EmulatedCall, track: 'inbound_track' | 'outbound_track', text: string): void {
    if (!call.transcription || call.endedAt !== null) return
    void this.post(call, 'transcription', call.transcription.url, {
      ...this.transcriptionBase(call),
      TranscriptionEvent: 'transcription-content',
      LanguageCode: 'en-US',
      Track: call.transcription.labels[track],
      TranscriptionData: JSON.stringify({ transcript: text, confidence: 0.93 }),
      Final: 'true',
    })
  }

  private transcriptionBase(call: EmulatedCall): Record<string, string> {
    const t = call.transcription!
    return { AccountSid: call.accountSid, CallSid: call.sid, TranscriptionSid: t.sid, Timestamp: new Date().toISOString(), SequenceId: String(++t.seq) }
  }

  /** The call ends: a bridged leg is reported to its action, then the final status, recording and transcription stop. */
  async end(call: EmulatedCall, status: CallStatus): Promise<void> {
    if (call.endedAt !== null) return
    const answered = call.answeredAt !== null
    call.endedAt = this.now(call)
    call.status = status
    call.duration = answered ? Math.max(0, Math.round(call.endedAt - call.answeredAt!)) : 0
    for (const timer of call.timers) clearTimeout(timer)
    call.timers.clear()
    this.interrupt(call)
    const dial = call.dial
    call.dial = null
    if (dial?.action) {
      const talked = dial.answeredAt === null ? 0 : Math.round(call.endedAt - dial.answeredAt)
      await this.post(call, 'action', dial.action, { ...this.base(call), DialCallStatus: dial.answeredAt === null ? 'no-answer' : dial.answeredStatus, DialCallSid: dial.legSid, DialCallDuration: String(talked), DialBridged: String(dial.bridged === true) })
    }
    if (call.transcription) await this.post(call, 'transcription', call.transcription.url, { ...this.transcriptionBase(call), TranscriptionEvent: 'transcription-stopped' })
    await this.status(call, status)
    if (answered && call.record) {
      const outcome = call.script.recording ?? 'completed'
      const sid = newSid('RE')
      // Only a completed recording can be fetched; absent and failed ones reach only calls subscribed to absent.
      if (outcome === 'completed') call.recordingSid = sid
      if (call.recordingCallback && call.recordingEvents.has(outcome === 'completed' ? 'completed' : 'absent')) {
        await this.post(call, 'recording', call.recordingCallback, {
          AccountSid: call.accountSid, CallSid: call.sid, RecordingSid: sid,
          RecordingUrl: `${this.deps.apiBaseUrl()}/2010-04-01/Accounts/${call.accountSid}/Recordings/${sid}`,
          RecordingStatus: outcome, RecordingDuration: String(outcome === 'completed' ? call.duration : 0), RecordingChannels: '1', RecordingSource: 'OutboundAPI',
          RecordingStartTime: rfc2822(new Date()), RecordingTrack: 'both', ...(outcome === 'completed' ? {} : { ErrorCode: '0' }),
        })
      }
    }
    if (answered && call.liveRecording) await this.liveRecordingDone(call, call.liveRecording)
    this.flush(call)
    await call.chain
    call.finish()
  }

  /**
   * POST .../Calls/{Sid}/Recordings.json on a call in progress: recording starts now (one per
   * call here; a second request gets the first). in-progress is sent at once when subscribed.
   */
  startRecording(call: EmulatedCall, callback: string | null, events: Set<string>): { sid: string; startedAt: number } {
    if (call.liveRecording) return call.liveRecording
    const recording = { sid: newSid('RE'), startedAt: this.now(call), callback, events }
    call.liveRecording = recording
    if (callback && events.has('in-progress')) void this.post(call, 'recording', callback, this.recordingParams(call, recording.sid, 'in-progress', 0, recording.startedAt))
    return recording
  }

  /** The call ended: its live recording is completed (or absent/failed as scripted) and told. */
  private async liveRecordingDone(call: EmulatedCall, recording: NonNullable<EmulatedCall['liveRecording']>): Promise<void> {
    const outcome = call.script?.recording ?? 'completed'
    if (outcome === 'completed') call.recordingSid = recording.sid
    if (!recording.callback || !recording.events.has(outcome === 'completed' ? 'completed' : 'absent')) return
    const seconds = outcome === 'completed' ? Math.max(0, Math.round(call.endedAt! - recording.startedAt)) : 0
    await this.post(call, 'recording', recording.callback, this.recordingParams(call, recording.sid, outcome, seconds, recording.startedAt))
  }

  private recordingParams(call: EmulatedCall, sid: string, status: string, seconds: number, startedAt: number): Record<string, string> {
    return {
      AccountSid: call.accountSid, CallSid: call.sid, RecordingSid: sid,
      RecordingUrl: `${this.deps.apiBaseUrl()}/2010-04-01/Accounts/${call.accountSid}/Recordings/${sid}`,
      RecordingStatus: status, RecordingDuration: String(seconds), RecordingChannels: '1', RecordingSource: 'StartCallRecordingAPI',
      RecordingStartTime: rfc2822(new Date(call.startedAt + startedAt * 1000)), RecordingTrack: 'both',
    }
  }

  private base(call: EmulatedCall): Record<string, string> {
    return {
      AccountSid: call.accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, CallStatus: call.status, Called: call.to, Caller: call.from,
      Direction: 'outbound-api', From: call.from, To: call.to,
    }
  }

  /** A StatusCallback for one of the subscribed events; terminal statuses go with 'completed' (Twilio's default). */
  private async status(call: EmulatedCall, status: CallStatus): Promise<void> {
    const event = status === 'in-progress' ? 'answered' : status === 'initiated' || status === 'ringing' ? status : 'completed'
    if (!call.statusCallback || (event !== 'completed' && !call.events.has(event))) return
    const params: Record<string, string> = { ...this.base(call), CallStatus: status, CallbackSource: 'call-progress-events', SequenceNumber: String(call.seq++), Timestamp: rfc2822(new Date()) }
    if (event === 'completed') {
      params.CallDuration = String(call.duration ?? 0)
      params.Duration = String(Math.ceil((call.duration ?? 0) / 60))
    }
    await this.post(call, 'status', call.statusCallback, params)
  }

  private async fetchTwiml(call: EmulatedCall, kind: SentCallback['kind'], url: string, extra: Record<string, string> = {}): Promise<string | null> {
    const reply = await this.post(call, kind, url, { ...this.base(call), ...extra })
    if (reply.status === null || reply.status >= 400) {
      await this.end(call, call.answeredAt === null ? 'failed' : 'completed')
      return null
    }
    return reply.body
  }

  /** A signed form POST, one at a time per call so they arrive in order. */
  private post(call: EmulatedCall, kind: SentCallback['kind'], url: string, params: Record<string, string>): Promise<SentCallback> {
    // A replay carries the same idempotency token, as Twilio's own retries do.
    const token = newSid('')
    if (this.deps.shuffle && !TWIML_KINDS.has(kind)) {
      call.held.push({ kind, url, params, token })
      if (call.held.length >= 4) this.flush(call)
      else call.flushTimer ??= setTimeout(() => this.flush(call), 30)
      return Promise.resolve({ kind, callSid: call.sid, url, params, signature: '', status: null, body: 'held' })
    }
    const result = this.deliver(call, kind, url, params, token)
    if (this.deps.replay && !TWIML_KINDS.has(kind)) void this.deliver(call, kind, url, params, token)
    return result
  }

  /** Sends the held notifications in a seeded random order, some twice. */
  private flush(call: EmulatedCall): void {
    if (call.flushTimer) clearTimeout(call.flushTimer)
    call.flushTimer = null
    const held = call.held.splice(0)
    for (let i = held.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1))
      ;[held[i], held[j]] = [held[j]!, held[i]!]
    }
    for (const h of held) {
      void this.deliver(call, h.kind, h.url, h.params, h.token)
      if (this.random() < (this.deps.shuffle?.duplicate ?? 0)) void this.deliver(call, h.kind, h.url, h.params, h.token)
    }
  }

  private deliver(call: EmulatedCall, kind: SentCallback['kind'], url: string, params: Record<string, string>, token: string): Promise<SentCallback> {
    const run = async (): Promise<SentCallback> => {
      const signature = signTwilioRequest(call.authToken, url, params)
      const record: SentCallback = { kind, callSid: call.sid, url, params, signature, status: null, body: '' }
      this.deps.sent.push(record)
      try {
        const response = await this.deps.fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': signature, 'I-Twilio-Idempotency-Token': token },
          body: new URLSearchParams(params).toString(),
          signal: AbortSignal.timeout(15_000),
        })
        record.status = response.status
        record.body = await response.text()
      } catch (error) {
        record.body = error instanceof Error ? error.message : String(error)
      }
      return record
    }
    const result = call.chain.then(run, run)
    call.chain = result
    return result
  }
}

/** Requests whose reply is TwiML the call runs: never replayed. */
const TWIML_KINDS = new Set<SentCallback['kind']>(['twiml', 'redirect', 'action', 'screen', 'gather'])

/**
 * The key a person's phone presses at a press-1 Gather, by its last two digits: 11 presses 1,
 * 12 nothing, 13 presses 2, 14 is a voicemail box (answers, no key). Any other phone that
 * answers presses 1, so scripts written before press 1 keep their meaning.
 */
export function keyFor(phone: string): string | null {
  const digits = phone.slice(-2)
  return digits === '12' || digits === '14' ? null : digits === '13' ? '2' : '1'
}

export const rfc2822 = (d: Date): string => d.toUTCString().replace('GMT', '+0000')
