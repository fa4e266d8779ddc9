import { type Conferences, optionsOf } from './emulator-conference'
import { dialNumber } from './emulator-dial'
import { startTranscription } from './emulator-media'
import { connectStream } from './emulator-stream'
import { type TwimlNode, parseTwiml } from './emulator-twiml'
import type { EmulatedCall, Engine, SentCallback } from './emulator-types'

/**
 * The TwiML a call runs on its own leg: <Say>, <Play>, <Pause>, <Start><Transcription>,
 * <Gather>, <Dial> (<Number> or <Conference>), <Connect><Stream> (emulator-stream.ts), <Redirect> and
 * <Hangup> (twilio.com/docs/voice/twiml).
 * Whatever it does not know it skips. The document's end hangs up.
 */

export interface VerbEngine extends Engine {
  readonly conferences: Conferences
  fetchTwiml(call: EmulatedCall, kind: SentCallback['kind'], url: string, extra?: Record<string, string>): Promise<string | null>
}

export async function runTwiml(engine: VerbEngine, call: EmulatedCall, xml: string, gen: number): Promise<void> {
  let doc: TwimlNode
  try {
    doc = parseTwiml(xml)
  } catch {
    // Twilio says "an application error has occurred" and hangs up.
    return engine.end(call, 'completed')
  }
  for (const verb of doc.children) {
    if (call.gen !== gen || call.endedAt !== null) return
    switch (verb.name) {
      case 'Say':
      case 'Play':
        if (await speak(engine, call, verb)) return
        break
      case 'Pause':
        if (await engine.sleep(call, Number(verb.attrs.length ?? 1) || 1)) return
        break
      case 'Start':
        for (const t of verb.children) {
          const url = t.name === 'Transcription' ? engine.wire.transcriptionUrl(t.attrs) : undefined
          if (url) startTranscription(engine, call, url, t.attrs)
        }
        break
      case 'Hangup':
        return engine.end(call, 'completed')
      case 'Redirect': {
        const next = await engine.fetchTwiml(call, 'redirect', verb.text.trim())
        if (next === null || call.gen !== gen) return
        return runTwiml(engine, call, next, gen)
      }
      case 'Gather': {
        const next = await gather(engine, call, verb)
        if (next === null) break
        if (next === false || call.gen !== gen) return
        return runTwiml(engine, call, next, gen)
      }
      case 'Connect': {
        // twilio.com/docs/voice/twiml/connect: when the stream ends by itself, the action's TwiML runs; without one, the next verb.
        if (!(await connectStream(engine, call, verb)) || call.gen !== gen || call.endedAt !== null) return
        if (verb.attrs.action) {
          const next = await engine.fetchTwiml(call, 'action', verb.attrs.action)
          if (next === null || call.gen !== gen) return
          return runTwiml(engine, call, next, gen)
        }
        break
      }
      case 'Dial': {
        const result = await dial(engine, call, verb)
        if (result === null || call.gen !== gen || call.endedAt !== null) return
        // The leg is over: end() must not report it to the action URL a second time.
        const legSid = call.dial?.legSid ?? ''
        call.dial = null
        if (verb.attrs.action) {
          const next = await engine.fetchTwiml(call, 'action', verb.attrs.action, { DialCallStatus: result, DialCallSid: legSid, DialCallDuration: '0', DialBridged: 'false' })
          if (next === null || call.gen !== gen) return
          return runTwiml(engine, call, next, gen)
        }
        break
      }
    }
  }
  if (call.gen === gen) return engine.end(call, 'completed')
}

/** A <Say> (15 characters a second, at least 1 s) or <Play> (3 s) on the call's own leg: a message the lead hears from its start. */
async function speak(engine: VerbEngine, call: EmulatedCall, verb: TwimlNode): Promise<boolean> {
  engine.heard(call, 'message')
  const seconds = verb.name === 'Play' ? 3 : Math.max(1, verb.text.length / 15)
  if (await engine.sleep(call, seconds)) return true
  ;(call.spoken ??= []).push({ text: verb.name === 'Play' ? verb.text.trim() : verb.text, endedAt: engine.now(call) })
  return false
}

/**
 * <Gather> on the call's own leg (twilio.com/docs/voice/twiml/gather): its nested <Say>/<Play>
 * play, then the phone's key (keyOf) goes to `action` as Digits and that TwiML is returned; no
 * key waits `timeout` (5 s) and the next verb runs (null), or with actionOnEmptyResult the
 * action is asked without Digits. false: the call ended or moved on.
 */
async function gather(engine: VerbEngine, call: EmulatedCall, verb: TwimlNode): Promise<string | null | false> {
  for (const inner of verb.children) {
    if ((inner.name === 'Say' || inner.name === 'Play') && (await speak(engine, call, inner))) return false
  }
  const key = engine.keyOf(call)
  const action = verb.attrs.action
  if (key !== null && action) {
    ;(call.pressed ??= []).push(key)
    return (await engine.fetchTwiml(call, 'gather', action, { Digits: key, FinishedOnKey: '' })) ?? false
  }
  if (await engine.sleep(call, Number(verb.attrs.timeout ?? 5) || 5)) return false
  if (action && verb.attrs.actionOnEmptyResult === 'true') return (await engine.fetchTwiml(call, 'gather', action, { Digits: '', FinishedOnKey: '' })) ?? false
  return null
}

/** <Dial> with a <Number> or a <Conference> (the room's end or a kick ends it `completed`). */
async function dial(engine: VerbEngine, call: EmulatedCall, verb: TwimlNode): Promise<string | null> {
  const number = verb.children.find((c) => c.name === 'Number')
  if (number) return dialNumber(engine, call, verb, number)
  const noun = verb.children.find((c) => c.name === 'Conference')
  if (!noun) return 'failed'
  const conference = engine.conferences.open(call.accountSid, noun.text.trim())
  return (await engine.conferences.join(call, conference, optionsOf(noun))) === null ? null : 'completed'
}
