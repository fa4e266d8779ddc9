import { FRAME_BYTES, FRAME_MS, mulaw } from '../../../scripts/reference-agent-audio'
import type { EmulatedCall } from './emulator-types'

/**
 * The lead's side of a <Connect><Stream> as the emulator plays it: 20 ms frames of 8 kHz μ-law
 * (160 bytes, no headers: twilio.com/docs/voice/media-streams/websocket-messages, "media"
 * message, mediaFormat audio/x-mulaw 8000 Hz mono). The scenario's lines (PLANS) are speech
 * bursts at their times (15 characters a second, at least 1 s, as <Say> is timed), else quiet
 * line noise; every frame carries noise seeded by its chunk, so no two frames are alike and a
 * reordering or a lost frame shows in a byte-for-byte comparison.
 */

// One μ-law encoder and frame size for the reference agent and the emulator.
export { FRAME_BYTES, FRAME_MS, mulaw } from '../../../scripts/reference-agent-audio'
const RATE = 8000

/**
 * Frame `index` of a stream (0 = the first 20 ms after `start`), base64 as a media payload.
 * `speaking`: a voice-like tone (a 180 Hz carrier, slowly modulated) over the noise.
 */
export function leadFrame(index: number, speaking: boolean): string {
  const bytes = new Uint8Array(FRAME_BYTES)
  let seed = (index + 1) * 2654435761
  for (let n = 0; n < FRAME_BYTES; n++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    const noise = ((seed >>> 16) / 65536 - 0.5) * 60
    const t = (index * FRAME_BYTES + n) / RATE
    const voice = speaking ? 7000 * Math.sin(2 * Math.PI * 180 * t) * (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t)) : 0
    bytes[n] = mulaw(voice + noise)
  }
  return Buffer.from(bytes).toString('base64')
}

/** Is the lead speaking at `at` emulated seconds since the call started (one of its plan's lines)? */
export function speakingAt(call: EmulatedCall, at: number): boolean {
  return call.plan.lines.some(([from, text]) => at >= from && at < from + Math.max(1, text.length / 15))
}

/** The keys the lead presses during a stream: [seconds after the stream's start, digit], in time order. */
export function streamDigitsOf(call: EmulatedCall): [number, string][] {
  return [...(call.script.streamDigits ?? call.plan.streamDigits ?? [])].sort((a, b) => a[0] - b[0])
}

/** A media payload Twilio can play: base64 (no headers are checked: μ-law has none). */
export function isBase64(payload: unknown): payload is string {
  return typeof payload === 'string' && payload.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(payload)
}
