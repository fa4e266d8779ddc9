import { mulaw } from '../../../scripts/reference-agent-audio'

/**
 * The emulator's audio: G.711 μ-law at 8 kHz (`audio/pcmu`, 8 bytes a millisecond, as the
 * Realtime reference's PCMUAudioFormat and Twilio's Media Streams carry it), its server VAD as a
 * loudness gate, and the model's voice as a tone.
 * https://developers.openai.com/api/reference/resources/realtime/client-events (session.update:
 * audio.input.format / audio.output.format `audio/pcmu`).
 */

export const BYTES_PER_MS = 8

/** G.711 μ-law byte to a 16-bit linear sample. */
export function unmulaw(byte: number): number {
  const u = ~byte & 0xff
  const sign = u & 0x80
  const exponent = (u >> 4) & 0x07
  const mantissa = u & 0x0f
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84
  return sign ? -magnitude : magnitude
}

/** Root mean square of a μ-law chunk, in linear units (quiet line noise is ~30, Twilio's emulated speech ~4000). */
export function loudness(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0
  let sum = 0
  for (const b of bytes) {
    const s = unmulaw(b)
    sum += s * s
  }
  return Math.sqrt(sum / bytes.length)
}

/** Speech above this RMS; the Twilio emulator's lead speech bursts are far above, its noise far below. */
export const SPEECH_RMS = 1000

/**
 * The model's voice for `ms` of audio: a 330 Hz tone as μ-law, cut into deltas of `deltaMs`,
 * each base64 (a response.output_audio.delta's `delta`). `phase` keeps the tone continuous across
 * responses so no two deltas of a session are equal.
 */
export function toneDeltas(ms: number, deltaMs: number, phase = 0): string[] {
  const total = Math.max(0, Math.round(ms)) * BYTES_PER_MS
  const chunk = Math.max(1, Math.round(deltaMs)) * BYTES_PER_MS
  const out: string[] = []
  for (let start = 0; start < total; start += chunk) {
    const bytes = new Uint8Array(Math.min(chunk, total - start))
    for (let i = 0; i < bytes.length; i++) {
      const t = (phase + start + i) / 8000
      bytes[i] = mulaw(6000 * Math.sin(2 * Math.PI * 330 * t))
    }
    out.push(Buffer.from(bytes).toString('base64'))
  }
  return out
}

/** Base64 text as bytes, or null when it is not base64. */
export function fromBase64(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null
  return new Uint8Array(Buffer.from(text, 'base64'))
}
