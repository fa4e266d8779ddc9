import { MULAW_BYTES_PER_MS, type AgentFrame } from '../media-stream/agent-frames'
import { MAX_CONTROL_TEXT } from '../media-stream/control-messages'
import type { RelayTimers } from '../media-stream/seat-session'

/**
 * The model's audio on its way to the lead, and what the lead has heard of it. The model speaks
 * faster than real time; its audio is passed on as Twilio `media` frames at most PACE_AHEAD_MS
 * ahead of playback (the relay drops audio further ahead), each followed by a `mark` that Twilio
 * echoes once that audio has played (twilio.com/docs/voice/media-streams/websocket-messages#send-a-mark-message).
 * The marks that came back tell how many ms of each output item the lead heard: a barge-in
 * truncates the item there (`conversation.item.truncate`,
 * https://platform.openai.com/docs/api-reference/realtime-client-events/conversation/item/truncate)
 * and the AI's transcript line is cut in proportion (heard ms / ms the model produced).
 */

/** Audio sent ahead of what the lead hears, at most (under the relay's MAX_AHEAD_MS). */
export const PACE_AHEAD_MS = 8_000
/** Largest μ-law chunk put in one `media` frame (500 ms: well under the relay's frame limit). */
export const CHUNK_BYTES = 4_000

export interface PlaybackOut {
  /** A Media Streams frame for the carrier (media, mark, clear), with what the relay reads in it. */
  carrier(frame: CarrierBound): void
  /** The AI's line for the transcript. */
  transcript(text: string): void
  /** Tell the model the item was heard only up to `audioEndMs`. */
  truncate(itemId: string, audioEndMs: number): void
}

export type CarrierBound = Extract<AgentFrame, { kind: 'media' | 'mark' | 'clear' }>

interface Item {
  id: string
  /** ms of audio the model produced for it. */
  producedMs: number
  /** ms of it whose marks came back. */
  heardMs: number
  text: string
  transcriptDone: boolean
  audioDone: boolean
}

interface Chunk {
  itemId: string
  payload: string
  /** The item's ms once this chunk has played. */
  endMs: number
  ms: number
}

/** Text cut at a word boundary to the share of the audio that was heard (the whole text when all was). */
export function cutTranscript(text: string, heardMs: number, producedMs: number): string {
  if (producedMs <= 0 || heardMs >= producedMs) return text.trim()
  const keep = Math.round(text.length * Math.max(0, heardMs) / producedMs)
  if (keep <= 0) return ''
  let cut = text.slice(0, keep)
  if (keep < text.length && !/\s/.test(text[keep]!)) {
    const space = cut.search(/\s\S*$/)
    cut = space > 0 ? cut.slice(0, space) : ''
  }
  return cut.trim()
}

export class Playback {
  private readonly items = new Map<string, Item>()
  /** Items interrupted or finished: their late events are ignored. */
  private readonly closedItems = new Set<string>()
  private readonly marks = new Map<string, { itemId: string; endMs: number }>()
  private queue: Chunk[] = []
  private playsUntil = 0
  private timer: unknown = null
  private markSeq = 0
  streamSid = ''

  constructor(private readonly out: PlaybackOut, private readonly timers: RelayTimers) {}

  audio(itemId: string, base64: string): void {
    if (this.closedItems.has(itemId)) return
    const bytes = Buffer.from(base64, 'base64')
    if (bytes.length === 0) return
    const item = this.item(itemId)
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      const part = bytes.subarray(at, at + CHUNK_BYTES)
      const ms = part.length / MULAW_BYTES_PER_MS
      item.producedMs += ms
      this.queue.push({ itemId, payload: part.toString('base64'), endMs: item.producedMs, ms })
    }
    this.pump()
  }

  audioDone(itemId: string): void {
    if (this.closedItems.has(itemId)) return
    this.item(itemId).audioDone = true
    this.settle(itemId)
  }

  transcriptDelta(itemId: string, delta: string): void {
    if (this.closedItems.has(itemId)) return
    this.item(itemId).text += delta
  }

  transcriptDone(itemId: string, transcript: string): void {
    if (this.closedItems.has(itemId)) return
    const item = this.item(itemId)
    item.text = transcript
    item.transcriptDone = true
    this.settle(itemId)
  }

  /** A mark Twilio echoed (its audio played). */
  mark(name: string): void {
    const mark = this.marks.get(name)
    if (!mark) return
    this.marks.delete(name)
    const item = this.items.get(mark.itemId)
    if (!item) return
    item.heardMs = Math.max(item.heardMs, mark.endMs)
    this.settle(item.id)
  }

  /**
   * The lead started speaking. When some of the model's audio is still unheard: Twilio's buffer
   * is cleared, each such item is truncated at what was heard and its line cut to match. False when
   * nothing was playing.
   */
  bargeIn(): boolean {
    const playing = [...this.items.values()].filter((item) => item.producedMs > item.heardMs)
    if (playing.length === 0) return false
    this.out.carrier({ kind: 'clear', raw: JSON.stringify({ event: 'clear', streamSid: this.streamSid }) })
    this.queue = []
    this.marks.clear()
    this.playsUntil = this.timers.now()
    this.timers.clear(this.timer)
    this.timer = null
    for (const item of playing) {
      const heard = Math.floor(item.heardMs)
      this.out.truncate(item.id, heard)
      this.finish(item, cutTranscript(item.text, heard, item.producedMs))
    }
    return true
  }

  /** A decision: everything the model said goes out now (the relay plays it before the stream ends), lines in full. */
  flush(): void {
    this.timers.clear(this.timer)
    this.timer = null
    for (const chunk of this.queue) this.sendChunk(chunk)
    this.queue = []
    for (const item of [...this.items.values()]) this.finish(item, item.text.trim())
  }

  /** The lead hung up: each unfinished line holds what was heard. */
  stopped(): void {
    this.timers.clear(this.timer)
    this.timer = null
    this.queue = []
    for (const item of [...this.items.values()]) this.finish(item, cutTranscript(item.text, item.heardMs, item.producedMs))
  }

  dispose(): void {
    this.timers.clear(this.timer)
    this.timer = null
    this.queue = []
  }

  private item(id: string): Item {
    let item = this.items.get(id)
    if (!item) {
      item = { id, producedMs: 0, heardMs: 0, text: '', transcriptDone: false, audioDone: false }
      this.items.set(id, item)
    }
    return item
  }

  /** An item whose audio and transcript are complete and whose audio was all heard: its line goes out whole. */
  private settle(itemId: string): void {
    const item = this.items.get(itemId)
    if (!item || !item.transcriptDone || !item.audioDone || item.heardMs < item.producedMs) return
    this.finish(item, item.text.trim())
  }

  private finish(item: Item, line: string): void {
    this.items.delete(item.id)
    this.closedItems.add(item.id)
    if (line !== '') this.out.transcript(line.slice(0, MAX_CONTROL_TEXT))
  }

  private pump(): void {
    if (this.timer !== null) return
    while (this.queue.length > 0) {
      const chunk = this.queue[0]!
      const now = this.timers.now()
      const ahead = Math.max(0, this.playsUntil - now)
      if (ahead > 0 && ahead + chunk.ms > PACE_AHEAD_MS) {
        this.timer = this.timers.set(() => {
          this.timer = null
          this.pump()
        }, ahead + chunk.ms - PACE_AHEAD_MS)
        return
      }
      this.queue.shift()
      this.sendChunk(chunk)
    }
  }

  private sendChunk(chunk: Chunk): void {
    const now = this.timers.now()
    this.playsUntil = Math.max(now, this.playsUntil) + chunk.ms
    const name = `rt-${++this.markSeq}`
    this.marks.set(name, { itemId: chunk.itemId, endMs: chunk.endMs })
    this.out.carrier({ kind: 'media', raw: JSON.stringify({ event: 'media', streamSid: this.streamSid, media: { payload: chunk.payload } }), payload: chunk.payload, audioMs: chunk.ms })
    this.out.carrier({ kind: 'mark', raw: JSON.stringify({ event: 'mark', streamSid: this.streamSid, mark: { name } }), name })
  }
}
