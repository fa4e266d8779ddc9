import { seededRandom } from '../../seeded-random'
import { type CallStatus, type EmulatedCall, newSid, type SentCallback } from './emulator-types'
import { type EmulatorWire, twilioWire } from './emulator-wire'

/**
 * How the emulator tells the service about a call: signed form POSTs (Twilio: X-Twilio-Signature
 * over the URL and the parameters, twilio.com/docs/usage/security; another carrier: its wire's
 * signature), one at a time per call so they arrive in order, optionally replayed or shuffled as
 * a carrier's separate callbacks may be.
 */

export interface NotifyDeps {
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
  /** The carrier's parameters and signature (default: Twilio's). */
  wire?: EmulatorWire
}

/** Requests whose reply is TwiML the call runs: never replayed. */
const TWIML_KINDS = new Set<SentCallback['kind']>(['twiml', 'redirect', 'action', 'screen', 'gather', 'incoming'])

export class Notifier {
  private readonly random: () => number
  private readonly wire: EmulatorWire

  constructor(private readonly deps: NotifyDeps) {
    this.random = seededRandom(deps.shuffle?.seed ?? 1)
    this.wire = deps.wire ?? twilioWire
  }

  /** The parameters of every request about a call (twilio.com/docs/usage/webhooks/voice-webhooks). */
  base(call: EmulatedCall): Record<string, string> {
    return this.wire.base(call)
  }

  /** A StatusCallback for one of the subscribed events; terminal statuses go with 'completed' (Twilio's default). */
  async status(call: EmulatedCall, status: CallStatus): Promise<void> {
    const event = status === 'in-progress' ? 'answered' : status === 'initiated' || status === 'ringing' ? status : 'completed'
    if (!call.statusCallback || (event !== 'completed' && !call.events.has(event))) return
    await this.post(call, 'status', call.statusCallback, this.wire.statusParams(call, status, event))
  }

  /** A signed form POST, one at a time per call so they arrive in order. */
  post(call: EmulatedCall, kind: SentCallback['kind'], url: string, given: Record<string, string>): Promise<SentCallback> {
    const params = this.wire.finalize(call, kind, given)
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
  flush(call: EmulatedCall): void {
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
      const form = new URLSearchParams(params).toString()
      const method = this.wire.method?.(call, kind) ?? 'POST'
      const target = method === 'GET' ? `${url}${url.includes('?') ? '&' : '?'}${form}` : url
      const body = method === 'GET' ? '' : form
      const { signature, headers } = this.wire.sign(call, target, params, body, token)
      const record: SentCallback = { kind, callSid: call.sid, url, params, signature, status: null, body: '' }
      if (this.wire !== twilioWire) Object.assign(record, { headers, method })
      this.deps.sent.push(record)
      try {
        const response = await this.deps.fetch(target, {
          method,
          headers: method === 'GET' ? headers : { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
          body: method === 'GET' ? undefined : body,
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
