import type { RecordingConsent } from '../../db/schema/calls'
import { DEFAULT_RECORDING_NOTICE, type ConsentNotice, type RecordingNotice } from '../../telephony/call-values'
import type { CallingRulesEngine } from '../calling-rules/contract'

/**
 * Whether a call records only after a notice: the organization records, and a state of the
 * lead (by area code or address, as contactability's `states`) requires every party's consent.
 * Then the carrier starts the call unrecorded, plays the campaign's notice after the answer and
 * starts recording once it has ended; the call keeps `recording_consent`. Null: a one-party
 * call, recorded from the answer when the organization records.
 */
export function recordingConsentOf(
  engine: Pick<CallingRulesEngine, 'reachOf' | 'recordingConsent'>,
  input: { phone: string; address: string | null; orgTimezone: string; recordingEnabled: boolean; notice: RecordingNotice | null },
): { carrier: ConsentNotice; stored: RecordingConsent } | null {
  if (!input.recordingEnabled) return null
  const { requiredBy } = engine.recordingConsent(engine.reachOf(input.phone, input.address, input.orgTimezone))
  if (requiredBy.length === 0) return null
  const notice = input.notice ?? { say: DEFAULT_RECORDING_NOTICE }
  return {
    carrier: { requiredBy, notice },
    stored: { required_by: requiredBy, announced_at: null, method: 'audio_url' in notice ? 'audio_url' : 'say' },
  }
}
