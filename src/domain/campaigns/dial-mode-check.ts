import type { Voicemail } from '../../db/schema'
import { invalid } from '../../errors'
import { spokenMessageOf } from './spoken-message'
import { ABANDON_RATE_BOUND } from '../calls/ledger'
import type { DialMode } from '../calls/pacing'

/** What a campaign's dialing settings are once a create or change is applied (docs/telephony.md "Dial modes"). */
export interface DialSettings {
  dialMode: DialMode
  maxAbandonRate: number
  abandonMessage: Voicemail | null
}

export interface DialSettingsInput {
  dial_mode?: DialMode
  max_abandon_rate?: number
  abandon_message?: Voicemail | null
}

const MODES: readonly string[] = ['bridge', 'power', 'predictive']
const SAY_MAX = 500

export const DIAL_DEFAULTS: DialSettings = { dialMode: 'bridge', maxAbandonRate: ABANDON_RATE_BOUND, abandonMessage: null }

/**
 * The settings a create or change leaves, checked as a whole before anything is written: the
 * schema checks shapes at the door, this checks the rules (and the shapes again, for callers
 * that are not the HTTP API). Power and predictive need a message to play within the 2 seconds.
 */
export function checkDialSettings(current: DialSettings, input: DialSettingsInput): DialSettings {
  const dialMode = input.dial_mode ?? current.dialMode
  if (!MODES.includes(dialMode)) throw invalid('dial_mode must be bridge, power or predictive.', 'dial_mode')
  const maxAbandonRate = input.max_abandon_rate ?? current.maxAbandonRate
  if (typeof maxAbandonRate !== 'number' || !Number.isFinite(maxAbandonRate) || maxAbandonRate <= 0 || maxAbandonRate > ABANDON_RATE_BOUND) {
    throw invalid(`max_abandon_rate must be above 0 and at most ${ABANDON_RATE_BOUND}.`, 'max_abandon_rate')
  }
  const abandonMessage = input.abandon_message === undefined ? current.abandonMessage : abandonMessageOf(input.abandon_message)
  if (dialMode !== 'bridge' && abandonMessage === null) {
    throw invalid(`dial_mode ${dialMode} needs an abandon_message ({"say": "..."} or {"audio_url": "https://..."}): it plays when no seat can take a person who answers.`, 'abandon_message')
  }
  return { dialMode, maxAbandonRate, abandonMessage }
}

/** Exactly one of a said text (1-500 characters, not blank) or an https audio URL; null turns it off. */
function abandonMessageOf(raw: unknown): Voicemail | null {
  return raw === null ? null : spokenMessageOf(raw, 'abandon_message', SAY_MAX)
}
