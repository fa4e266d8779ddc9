import type { Server } from 'bun'
import type { CallEngine } from './emulator-calls'
import type { Conference } from './emulator-conference'
import type { StreamRecord } from './emulator-stream'
import { type EmulatedCall, type Heard, isPersonAnswer, type SentCallback } from './emulator-types'

/** What heardAt tells about one call. */
export interface HeardRecord {
  answeredAt: number | null
  /** Who really answered, in AMD's words (null: not answered). */
  party: string | null
  /** Answered, and by a person (human or unknown): the calls the 2-second rule is about. */
  personAnswered: boolean
  firstHeard: Heard | null
  /** firstHeard.at - answeredAt (null when nothing was heard). */
  waited: number | null
  /** The Timeout the call was created with. */
  timeout: number
}

/**
 * What tests read of an emulator whichever carrier it plays (Twilio's, Telnyx's): its calls,
 * the callbacks it sent, when each lead first heard someone, its streams and rooms. Each
 * carrier's emulator adds its own REST side and wire.
 */
export abstract class EmulatorObserver {
  readonly sent: SentCallback[] = []
  readonly calls = new Map<string, EmulatedCall>()
  protected abstract readonly engine: CallEngine
  protected server: Server<undefined> | null = null

  /** The base URL to configure as the carrier's api_base_url. */
  get url(): string {
    if (!this.server) throw new Error('The emulator is not running.')
    return `http://${this.server.hostname}:${this.server.port}`
  }

  /** Resolves when the call has ended and every callback about it was answered. */
  settled(callSid: string): Promise<void> {
    return this.calls.get(callSid)?.done ?? Promise.resolve()
  }

  /** The callbacks sent about one call, in order. */
  callbacksFor(callSid: string): SentCallback[] {
    return this.sent.filter((c) => c.callSid === callSid)
  }

  /**
   * When the lead of a call first heard a person or a message after the answer (see the note at
   * the top of twilio/emulator.ts); null for an unknown call.
   */
  heardAt(callSid: string): HeardRecord | null {
    const call = this.calls.get(callSid)
    if (!call) return null
    const firstHeard = call.heard ? { ...call.heard } : null
    return {
      answeredAt: call.answeredAt, party: call.party, personAnswered: call.answeredAt !== null && isPersonAnswer(call.party), firstHeard,
      waited: firstHeard && call.answeredAt !== null ? firstHeard.at - call.answeredAt : null, timeout: call.timeout,
    }
  }

  /** The call's latest <Connect><Stream> (null: none, or an unknown call). */
  stream(callSid: string): StreamRecord | null {
    return this.calls.get(callSid)?.stream ?? null
  }

  /** The Timeout each call was created with (calls and participants the service created), by CallSid. */
  timeouts(): Map<string, number> {
    return new Map([...this.calls.values()].filter((c) => c.direction === 'outbound-api').map((c) => [c.sid, c.timeout]))
  }

  /** Every conference room, in the order they were made. */
  conferences(): Conference[] {
    return [...this.engine.conferences.all.values()]
  }

  /** A room by its sid, or the latest of that friendly name; null when there is none. */
  conference(friendlyNameOrSid: string): Conference | null {
    const rooms = this.conferences()
    return rooms.find((c) => c.sid === friendlyNameOrSid) ?? rooms.filter((c) => c.friendlyName === friendlyNameOrSid).at(-1) ?? null
  }

  /** Ends every call and stops serving. */
  async stop(): Promise<void> {
    for (const call of this.calls.values()) void this.engine.end(call, call.answeredAt === null ? 'canceled' : 'completed')
    await this.server?.stop(true)
    this.server = null
  }
}
