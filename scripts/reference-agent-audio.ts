/**
 * The reference agent's voice: a tone as 8 kHz μ-law in 20 ms frames (160 bytes), the format
 * Twilio's Media Streams carry (twilio.com/docs/voice/media-streams/websocket-messages: media
 * payloads are base64 audio/x-mulaw, 8000 Hz, mono, no headers).
 */
export const FRAME_BYTES = 160
export const FRAME_MS = 20

/** G.711 μ-law of one 16-bit linear sample. */
export function mulaw(sample: number): number {
  const BIAS = 0x84
  const CLIP = 32635
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)))
  const sign = s < 0 ? 0x80 : 0
  if (sign) s = -s
  if (s > CLIP) s = CLIP
  s += BIAS
  let exponent = 7
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--
  const mantissa = (s >> (exponent + 3)) & 0x0f
  return ~(sign | (exponent << 4) | mantissa) & 0xff
}

/**
 * `count` frames of a `hz` tone, phase kept across frames (so no two neighbours are equal and a
 * reordering shows), each base64 as a `media.payload`.
 */
export function toneFrames(count: number, hz = 440, startFrame = 0): string[] {
  const frames: string[] = []
  for (let f = startFrame; f < startFrame + count; f++) {
    const bytes = new Uint8Array(FRAME_BYTES)
    for (let i = 0; i < FRAME_BYTES; i++) {
      const t = (f * FRAME_BYTES + i) / 8000
      bytes[i] = mulaw(8000 * Math.sin(2 * Math.PI * hz * t))
    }
    frames.push(Buffer.from(bytes).toString('base64'))
  }
  return frames
}
