import { transcript } from './emulator-media'
import { type TwimlNode, parseTwiml } from './emulator-twiml'
import { type EmulatedCall, type Engine, keyFor } from './emulator-types'

/**
 * <Dial><Number> (twilio.com/docs/voice/twiml/number): one person's leg rung from the call, its
 * `<Number url>` run on that leg before it is connected (twilio.com/docs/voice/twiml/gather for
 * the keypress), then the two bridged until the call ends.
 */

/**
 * The SDR's own last two digits decide (02 no answer, 03 busy, 05 failed, 06 canceled, else
 * answers in 2 s; 09 answers and its DialCallStatus at the end is `answered`). With
 * `<Number url>` the answered leg runs that TwiML first (screen) and is bridged only if it ends
 * without hanging up; else the Dial ends `completed`, unbridged. null: the call ended or moved on.
 */
export async function dialNumber(engine: Engine, call: EmulatedCall, verb: TwimlNode, number: TwimlNode): Promise<string | null> {
  const timeout = Number(verb.attrs.timeout ?? 30) || 30
  const digits = number.text.trim().slice(-2)
  call.dial = { legSid: engine.wire.newCallSid(), action: verb.attrs.action ?? null, answeredAt: null, answeredStatus: digits === '09' ? 'answered' : 'completed' }
  const [result, after] = digits === '03' ? ['busy', 1] : digits === '05' ? ['failed', 1] : digits === '06' ? ['canceled', 1]
    : digits === '02' || timeout < 2 ? ['no-answer', timeout] : ['answered', 2]
  if (await engine.sleep(call, after as number)) return null
  if (result !== 'answered') return result as string
  call.dial.answeredAt = engine.now(call)
  const events = (number.attrs.statusCallbackEvent ?? '').split(/\s+/)
  if (number.attrs.statusCallback && events.includes('answered')) {
    await engine.post(call, 'leg-status', number.attrs.statusCallback, { ...engine.base(call), CallSid: call.dial.legSid, ParentCallSid: call.sid, To: number.text.trim(), CallStatus: 'in-progress' })
  }
  const leg = { to: number.text.trim(), heard: [] as string[], key: null as string | null, bridged: false }
  ;(call.legs ??= []).push(leg)
  if (number.attrs.url) {
    const bridged = await screen(engine, call, number.attrs.url, leg)
    if (bridged === null) return null
    if (!bridged) return 'completed'
  }
  leg.bridged = true
  call.dial.bridged = true
  // A voicemail box (14) bridged without a screen is a machine, not a person the lead hears.
  if (digits !== '14') engine.heard(call, 'person')
  if (call.transcription) engine.after(call, 1, () => transcript(engine, call, 'outbound_track', 'Hi, I can take it from here.'))
  // Bridged until the lead hangs up (end() then reports the leg to the action URL).
  await engine.sleep(call, Number.POSITIVE_INFINITY)
  return null
}

/**
 * A `<Number url>` document on the answered leg, as Twilio runs it before connecting: Say and
 * Pause take time, a one-digit Gather gets the key the phone's digits script (keyFor), posted
 * to its action whose TwiML runs next; no key: the Gather times out and the next verb runs.
 * true: it ended without <Hangup> (bridge); false: the leg hung up; null: the call ended meanwhile.
 */
async function screen(engine: Engine, call: EmulatedCall, url: string, leg: { to: string; heard: string[]; key: string | null }): Promise<boolean | null> {
  const gen = call.gen
  const params = () => ({ ...engine.base(call), CallSid: call.dial!.legSid, ParentCallSid: call.sid, To: leg.to, Called: leg.to, Direction: 'outbound-dial', CallStatus: 'in-progress' })
  let xml: string | null = await legTwiml(engine, call, 'screen', url, params())
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
        if (await engine.sleep(call, Math.max(1, verb.text.length / 15))) return null
        leg.heard.push(verb.text.trim())
      } else if (verb.name === 'Pause') {
        if (await engine.sleep(call, Number(verb.attrs.length ?? 1) || 1)) return null
      } else if (verb.name === 'Redirect') {
        next = await legTwiml(engine, call, 'screen', verb.text.trim(), params())
        if (next === null) return false
        break
      } else if (verb.name === 'Gather') {
        for (const inner of verb.children) {
          if (inner.name !== 'Say' && inner.name !== 'Play') continue
          if (await engine.sleep(call, Math.max(1, inner.text.length / 15))) return null
          leg.heard.push(inner.text.trim())
        }
        const key = keyFor(leg.to)
        if (key === null || !verb.attrs.action) {
          if (await engine.sleep(call, Number(verb.attrs.timeout ?? 5) || 5)) return null
          continue
        }
        leg.key = key
        next = await legTwiml(engine, call, 'gather', verb.attrs.action, { ...params(), Digits: key, FinishedOnKey: '' })
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
async function legTwiml(engine: Engine, call: EmulatedCall, kind: 'screen' | 'gather', url: string, params: Record<string, string>): Promise<string | null> {
  const reply = await engine.post(call, kind, url, params)
  return reply.status === null || reply.status >= 400 ? null : reply.body
}
