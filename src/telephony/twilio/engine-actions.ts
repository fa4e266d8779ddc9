import { logger } from '../../log'
import { callbackUrl, type CarrierState } from './call-plan'
import type { EngineDeps } from './carrier-types'
import { downloadRecording, startRecording, type RecordingCopyDeps } from './recording-copy'
import type { RestAction } from './step-types'
import type { CarrierWire } from './wire'

/** What the engine lends its REST work (twilio-carrier.ts). */
export interface ActionHost {
  deps: EngineDeps
  wire: CarrierWire
  copyDeps(): RecordingCopyDeps
  waitForRecording(callId: string): void
}

/** REST work a callback called for, once its change is durable. Failures are logged: the call's own callbacks still end it. */
export async function runAction(host: ActionHost, callId: string, action: RestAction): Promise<void> {
  const { deps, wire } = host
  if (action.type === 'wait-for-recording') return host.waitForRecording(callId)
  if (action.type === 'download-recording') return downloadRecording(host.copyDeps(), callId, action.recordingSid, 0)
  if (action.type === 'start-recording') return startRecording(host.copyDeps(), deps.publicUrl, callId)
  const row = deps.store.get(callId)
  const rest = row ? wire.rest(row.orgId) : null
  if (row && rest && !row.carrierCallId && action.type === 'hang-up') return oweHangUp(host, callId)
  if (!row?.carrierCallId || !rest) return
  if (action.type === 'redirect') {
    // The answer's TwiML may have routed the call already (an AMD result that came first).
    const claimed = deps.transaction(() => {
      const current = deps.store.get(callId)!
      const state = current.state as CarrierState
      if (state.routed || state.life.stage === 'ended') return false
      deps.store.update(callId, { state: { ...state, routed: true }, updated: deps.clock.now() })
      return true
    })
    if (!claimed) return
  }
  const update = action.type === 'hang-up' ? { status: 'completed' as const }
    : action.type === 'cancel' ? { status: 'canceled' as const }
    : action.type === 'twiml' ? { twiml: wire.markup(action.twiml) }
      : { url: wire.url(callbackUrl(deps.publicUrl, callId, action.step)) }
  const result = await rest.updateCall(row.carrierCallId, update)
  if (!result.ok) logger.warn(`${wire.kind}_update_failed`, { call_id: callId, action: action.type, kind: result.error.kind, status: result.error.status, code: result.error.code })
}

/** Not named yet (Telnyx names a call in its first callback): the hang-up is kept on the row and sent once it is. */
function oweHangUp(host: ActionHost, callId: string): void {
  const { deps } = host
  const named = deps.transaction(() => {
    const current = deps.store.get(callId)
    if (!current || current.carrierCallId !== null) return current?.carrierCallId != null
    const state = current.state as CarrierState
    if (state.life.stage !== 'ended') deps.store.update(callId, { state: { ...state, hangUpOwed: true }, updated: deps.clock.now() })
    return false
  })
  if (named) void runAction(host, callId, { type: 'hang-up' })
}

/** Replies kept for signed requests a carrier may send again (Telnyx), bounded: a replay gets the same answer. */
export class ReplyMemory {
  private readonly replies = new Map<string, string | null>()

  constructor(private readonly max = 10_000) {}

  keep(key: string | undefined, twiml: string | null): void {
    if (key === undefined) return
    this.replies.set(key, twiml)
    if (this.replies.size > this.max) this.replies.delete(this.replies.keys().next().value!)
  }

  get(key: string | undefined): string | null {
    return (key !== undefined ? this.replies.get(key) : null) ?? null
  }
}
