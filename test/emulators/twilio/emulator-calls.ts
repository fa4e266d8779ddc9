import { scenarioFor } from '../../../src/telephony/simulator/simulated-carrier'
import { Conferences } from './emulator-conference'
import { recordingsAtEnd, startRecording, transcriptionAtEnd } from './emulator-media'
import { Notifier, type NotifyDeps } from './emulator-notify'
import { DETECTION, PLANS, personPlan } from './emulator-scenarios'
import { runTwiml } from './emulator-verbs'
import { type CallStatus, type EmulatedCall, type Engine, type Heard, keyFor, type SentCallback } from './emulator-types'
import { type EmulatorWire, twilioWire } from './emulator-wire'

export { keyFor, rfc2822, type EmulatedCall, type SentCallback, type CallStatus } from './emulator-types'

/**
 * How the emulator plays one call: a lead's side from the scenario table of the simulator
 * (docs/simulator.md, by the last two digits of To), a person's phone by personPlan, driven
 * through Twilio's callbacks and the TwiML the service answers with. Times are emulated seconds,
 * divided by the emulator's speed.
 */

export interface EngineDeps extends NotifyDeps {
  /** Emulated seconds are divided by this (speed 100: a 30 s ring takes 0.3 s). */
  speed: number
  apiBaseUrl: () => string
  /** Transcription lines name their track by the label <Transcription> gave it (else inbound_track/outbound_track). */
  trackLabels?: boolean
}

/** What a create (Calls.json, Participants.json, an incoming call) fixes about a call. */
export type CallInit = Pick<EmulatedCall, 'accountSid' | 'authToken' | 'to' | 'from' | 'url' | 'twiml' | 'statusCallback' | 'events' | 'amd' | 'amdCallback'
  | 'record' | 'recordingCallback' | 'recordingEvents' | 'script' | 'timeout' | 'joins'> & Partial<Pick<EmulatedCall, 'direction' | 'role'>>

export class CallEngine implements Engine {
  readonly conferences: Conferences
  private readonly notifier: Notifier
  readonly apiBaseUrl: () => string
  readonly trackLabels: boolean
  readonly wire: EmulatorWire

  constructor(private readonly deps: EngineDeps) {
    this.wire = deps.wire ?? twilioWire
    this.notifier = new Notifier(deps)
    this.conferences = new Conferences(this)
    this.apiBaseUrl = deps.apiBaseUrl
    this.trackLabels = deps.trackLabels ?? false
  }

  /** A new call; an outbound one starts by itself after the create reply, an inbound one waits for callIn. */
  newCall(init: CallInit): EmulatedCall {
    const sid = this.wire.newCallSid()
    let finish = () => {}
    const done = new Promise<void>((resolve) => (finish = resolve))
    // A seat's own leg is a person's phone (its callbacks live under /seats/), unless the test says otherwise.
    const role = init.script.role ?? init.role ?? (init.url && new URL(init.url).pathname.includes('/seats/') ? 'person' : 'lead')
    // The far end: who was called, or who calls in.
    const scenario = scenarioFor(init.direction === 'inbound' ? init.from : init.to, sid)
    const call: EmulatedCall = {
      ...init, sid, direction: init.direction ?? 'outbound-api', role, scenario, plan: role === 'person' ? personPlan(init.direction === 'inbound' ? init.from : init.to) : PLANS[scenario]!,
      status: 'queued', answeredBy: null, party: null, startedAt: Date.now(), answeredAt: null, heard: null,
      endedAt: null, duration: null, recordingSid: null, gen: 0, wakers: new Set(), timers: new Set(), dial: null, transcription: null, chain: Promise.resolve(), seq: 0, done, finish,
      held: [], flushTimer: null,
    }
    // After the create reply is built: Twilio answers 'queued', then the call starts.
    if (call.direction === 'outbound-api') queueMicrotask(() => void this.drive(call))
    return call
  }

  now(call: EmulatedCall): number {
    return ((Date.now() - call.startedAt) * this.deps.speed) / 1000
  }

  sleep(call: EmulatedCall, seconds: number): Promise<boolean> {
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

  hold(call: EmulatedCall, until: Promise<unknown>): Promise<boolean> {
    if (call.endedAt !== null) return Promise.resolve(true)
    return new Promise((resolve) => {
      let settled = false
      const settle = (cutShort: boolean) => {
        if (settled) return
        settled = true
        call.wakers.delete(wake)
        resolve(cutShort)
      }
      const wake = () => settle(true)
      call.wakers.add(wake)
      void until.then(() => settle(false))
    })
  }

  after(call: EmulatedCall, seconds: number, fn: () => void): void {
    if (call.endedAt !== null || !Number.isFinite(seconds)) return
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

  heard(call: EmulatedCall, kind: Heard['kind']): void {
    if (call.role === 'lead' && call.answeredAt !== null && call.heard === null && call.endedAt === null) call.heard = { kind, at: this.now(call) }
  }

  keyOf(call: EmulatedCall): string | null {
    if (call.script.press !== undefined) return call.script.press
    return call.role === 'person' ? keyFor(call.to) : null
  }

  base(call: EmulatedCall): Record<string, string> {
    return this.notifier.base(call)
  }

  post(call: EmulatedCall, kind: SentCallback['kind'], url: string, params: Record<string, string>): Promise<SentCallback> {
    return this.notifier.post(call, kind, url, params)
  }

  private async drive(call: EmulatedCall): Promise<void> {
    const plan = call.plan
    if (call.endedAt !== null) return // canceled before it started
    if (call.queuedFor) {
      // Canceled while queued: end() told it. The call's times count from when it leaves the queue.
      if (await this.sleep(call, call.queuedFor)) return
      call.startedAt = Date.now()
    }
    call.status = 'initiated'
    await this.notifier.status(call, 'initiated')
    if (await this.sleep(call, 0.5)) return
    call.status = 'ringing'
    await this.notifier.status(call, 'ringing')
    const answerAt = plan.answerAt ?? Number.POSITIVE_INFINITY
    if (plan.terminal || answerAt > call.timeout) {
      const terminal = plan.terminal ?? 'no-answer'
      const at = terminal === 'no-answer' ? Math.min(plan.endAt, call.timeout) : plan.endAt
      if (await this.sleep(call, at - this.now(call))) return
      return this.end(call, terminal)
    }
    if (await this.sleep(call, answerAt - this.now(call))) return
    const by = call.script.answeredBy ?? plan.answeredBy ?? 'human'
    await this.answered(call, by)
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
    if (call.joins) return this.joinByApi(call, call.joins)
    if (call.twiml !== null) return this.run(call, call.twiml, gen)
    const doc = await this.fetchTwiml(call, 'twiml', call.url!, extra)
    // A redirect that came while the TwiML was on its way wins.
    if (doc !== null && call.gen === gen) return this.run(call, doc, gen)
  }

  /** The far end picked up: in-progress, and the party hangs up at its time. */
  async answered(call: EmulatedCall, party: string): Promise<void> {
    call.status = 'in-progress'
    call.answeredAt = this.now(call)
    call.party = party
    await this.notifier.status(call, 'in-progress')
    const hangUpAt = call.script.hangUpAfter !== undefined ? call.answeredAt + call.script.hangUpAfter : call.plan.endAt
    this.after(call, hangUpAt - this.now(call), () => void this.end(call, 'completed'))
  }

  /** A Participants API call answered: straight into the room; out of it, the call is over. */
  private async joinByApi(call: EmulatedCall, joins: NonNullable<EmulatedCall['joins']>): Promise<void> {
    const conference = this.conferences.all.get(joins.conferenceSid)
    const left = conference ? await this.conferences.join(call, conference, joins.options) : true
    if (left) await this.end(call, 'completed')
  }

  /** POST .../Calls/{Sid}.json with Twiml or Url: the current TwiML stops and the new one runs. */
  redirect(call: EmulatedCall, to: { twiml: string } | { url: string }): void {
    this.conferences.drop(call, 'updated')
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

  /** POST .../Calls/{Sid}/Recordings.json on a call in progress. */
  startRecording(call: EmulatedCall, callback: string | null, events: Set<string>): { sid: string; startedAt: number } {
    return startRecording(this, call, callback, events)
  }

  run(call: EmulatedCall, xml: string, gen: number): Promise<void> {
    return runTwiml(this, call, xml, gen)
  }

  /** The call ends: out of its room, a bridged leg reported to its action, then the final status, recording and transcription stop. */
  async end(call: EmulatedCall, status: CallStatus): Promise<void> {
    if (call.endedAt !== null) return
    this.conferences.drop(call, 'hung-up')
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
    await transcriptionAtEnd(this, call)
    await this.notifier.status(call, status)
    await recordingsAtEnd(this, call, answered)
    this.notifier.flush(call)
    await call.chain
    call.finish()
  }

  /** A TwiML request; an error reply or none ends the call (failed before the answer). */
  async fetchTwiml(call: EmulatedCall, kind: SentCallback['kind'], url: string, extra: Record<string, string> = {}): Promise<string | null> {
    const reply = await this.post(call, kind, url, { ...this.base(call), ...extra })
    if (reply.status === null || reply.status >= 400) {
      await this.end(call, call.answeredAt === null ? 'failed' : 'completed')
      return null
    }
    return reply.body
  }
}
