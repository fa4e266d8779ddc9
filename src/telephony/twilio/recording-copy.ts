import type { Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import { logger } from '../../log'
import type { CallEvents } from '../carrier'
import type { CarrierCallPort, CarrierCallRecord, RecordingStorage } from '../ports'
import { callbackUrl, type CarrierState } from './call-plan'
import { tellEnded } from './callback-steps'
import type { CallRest } from './wire'

/**
 * A call's recording: downloaded from Twilio with the account's credentials and stored, then
 * Twilio's copy deleted, so no copy outlives the organization's retention there. The owed
 * delete is kept in the row's state (`twilioCopy: 'delete'`, the row open); a failure is tried
 * again a few times, then by the watchdog, which looks at open rows quiet for 15 minutes.
 */
const DOWNLOAD_RETRIES_MS = [5_000, 30_000, 120_000]
export const DELETE_RETRIES_MS = [5_000, 30_000, 120_000]

export interface RecordingCopyDeps {
  store: CarrierCallPort
  /** The organization's REST client (null: no account of the carrier's kind). */
  rest: (orgId: string) => CallRest | null
  /** A callback URL the engine built, as the carrier's. */
  url: (url: string) => string
  /** The carrier's kind, in log lines. */
  label: string
  scheduler: Scheduler
  clock: Clock
  transaction: <T>(work: () => T) => T
  /** The service is closing: a reply that comes later is dropped (the watchdog asks again after a restart). */
  stopped: () => boolean
  save: (row: CarrierCallRecord, state: CarrierState) => void
  recordings: RecordingStorage
  afterDurable: (effect: () => void) => void
  events: () => CallEvents
}

/** GET the audio, store it, tell the service (and end a call that waited for it), then delete Twilio's copy. */
export async function downloadRecording(deps: RecordingCopyDeps, callId: string, recordingSid: string, attempt: number): Promise<void> {
  const row = deps.store.get(callId)
  const rest = row ? deps.rest(row.orgId) : null
  if (!row || !rest) return
  const audio = await rest.downloadRecording(recordingSid)
  if (deps.stopped()) return
  if (!audio.ok) {
    logger.warn(`${deps.label}_recording_download_failed`, { call_id: callId, attempt: attempt + 1, kind: audio.error.kind, status: audio.error.status })
    const delay = DOWNLOAD_RETRIES_MS[attempt]
    if (delay !== undefined && audio.error.kind !== 'rejected') deps.scheduler.at(deps.clock.now() + delay, () => void downloadRecording(deps, callId, recordingSid, attempt + 1))
    return
  }
  deps.recordings.save(callId, audio.value)
  deps.transaction(() => {
    const current = deps.store.get(callId)!
    let state: CarrierState = { ...(current.state as CarrierState), recorded: true, twilioCopy: 'delete' }
    deps.events().recorded(callId)
    if (state.pendingEnd) state = tellEnded({ callId, events: deps.events() }, state, state.pendingEnd)
    deps.save(current, state)
  })
  deps.afterDurable(() => void deleteTwilioCopy(deps, callId, 0))
}

/** `attempt` past the quick retries (the watchdog's) schedules none: the next look waits its quiet time. */
export async function deleteTwilioCopy(deps: RecordingCopyDeps, callId: string, attempt: number): Promise<void> {
  const row = deps.store.get(callId)
  const state = row?.state as CarrierState | undefined
  if (!row || state?.twilioCopy !== 'delete' || state.recordingSid === null) return
  const rest = deps.rest(row.orgId)
  const result = rest ? await rest.deleteRecording(state.recordingSid) : null
  if (deps.stopped()) return
  if (!result?.ok) {
    logger.warn(`${deps.label}_recording_delete_failed`, { call_id: callId, attempt: attempt + 1, kind: result?.error.kind ?? 'no_account', status: result?.error.status ?? null })
    const delay = DELETE_RETRIES_MS[attempt]
    if (delay !== undefined) deps.scheduler.at(deps.clock.now() + delay, () => void deleteTwilioCopy(deps, callId, attempt + 1))
    else deps.transaction(() => deps.store.update(callId, { updated: deps.clock.now() }))
    return
  }
  deps.transaction(() => {
    const current = deps.store.get(callId)
    if (current) deps.save(current, { ...(current.state as CarrierState), twilioCopy: 'deleted' })
  })
}

/** The notice has played: record the live call from now on (consent-steps.ts). Refused (the call ended meanwhile): no recording to wait for. */
export async function startRecording(deps: RecordingCopyDeps, publicUrl: string, callId: string): Promise<void> {
  const row = deps.store.get(callId)
  const rest = row ? deps.rest(row.orgId) : null
  if (!row?.carrierCallId || !rest) return
  const started = await rest.startRecording(row.carrierCallId, deps.url(callbackUrl(publicUrl, callId, 'recording')))
  if (deps.stopped() || started.ok) return
  logger.warn(`${deps.label}_recording_start_failed`, { call_id: callId, kind: started.error.kind, status: started.error.status, code: started.error.code })
  deps.transaction(() => {
    const current = deps.store.get(callId)!
    let state: CarrierState = { ...(current.state as CarrierState), recordingAbsent: true }
    if (state.pendingEnd) state = tellEnded({ callId, events: deps.events() }, state, state.pendingEnd)
    deps.save(current, state)
  })
}

/** An ended call waits for its recording at most `ms`: then the service is told without it. */
export function waitForRecording(deps: RecordingCopyDeps, callId: string, ms: number): void {
  deps.scheduler.at(deps.clock.now() + ms, () => {
    deps.transaction(() => {
      const row = deps.store.get(callId)
      const state = row?.state as CarrierState | undefined
      if (!row || !state?.pendingEnd) return
      deps.save(row, tellEnded({ callId, events: deps.events() }, state, state.pendingEnd))
    })
  })
}
