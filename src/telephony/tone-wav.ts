/** One second of a 440 Hz tone, 8 kHz 8-bit mono WAV: the simulated recording (simulator, Twilio emulator). */
export function toneWav(): Uint8Array {
  const rate = 8000
  const wav = new Uint8Array(44 + rate)
  const view = new DataView(wav.buffer)
  const text = (offset: number, s: string) => [...s].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)))
  text(0, 'RIFF'); view.setUint32(4, 36 + rate, true); text(8, 'WAVE')
  text(12, 'fmt '); view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true)
  view.setUint32(24, rate, true); view.setUint32(28, rate, true); view.setUint16(32, 1, true); view.setUint16(34, 8, true)
  text(36, 'data'); view.setUint32(40, rate, true)
  for (let i = 0; i < rate; i++) wav[44 + i] = 128 + Math.round(100 * Math.sin((2 * Math.PI * 440 * i) / rate))
  return wav
}
