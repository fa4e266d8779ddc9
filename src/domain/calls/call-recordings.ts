import type { CallRow } from '../../db/stores/call-store'
import type { Stores } from '../../db/stores'
import { ApiError } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import type { SignedLinks } from '../links/signed-links'
import type { CarrierDirectory } from './carrier-choice'

/** Spec "Limits": recording link life. */
export const RECORDING_LINK_MS = 5 * 60 * 1000

/** A call's recording: the signed link to it, and its audio from the carrier that placed the call. */
export function callRecordings(deps: { stores: Pick<Stores, 'calls' | 'orgs'>; carriers: CarrierDirectory; clock: Clock; links: SignedLinks }) {
  const { stores, clock, links } = deps
  const notAvailable = () => new ApiError('recording_not_available', 'There is no recording of this call.')
  return {
    /** A 5-minute signed link to the recording, made on each request and never stored. */
    recordingLink(row: CallRow): { url: string; expires_at: string } {
      if (!row.recordingAvailable || !stores.orgs.get(row.orgId)!.recordingEnabled) throw notAvailable()
      const expiresAt = clock.now() + RECORDING_LINK_MS
      return { url: links.url(`/recordings/${row.id}`, expiresAt), expires_at: iso(Math.floor(expiresAt / 1000) * 1000) }
    },

    recordingAudio(callId: string, expires: string | undefined, signature: string | undefined): Uint8Array {
      links.verify(`/recordings/${callId}`, expires, signature, clock.now())
      const row = stores.calls.get(callId)
      const audio = row?.recordingAvailable ? (deps.carriers.named(row.carrier)?.recording({ id: row.id, durationSeconds: row.durationSeconds }) ?? null) : null
      if (!audio) throw notAvailable()
      return audio
    },
  }
}
