import type { Voicemail } from '../../db/schema'
import { invalid } from '../../errors'
import { checkMediaUrl } from '../orgs/carrier-fields'

/**
 * A message the lead hears, as a field of a campaign takes it: exactly one of a said text (not
 * blank, at most `maxSay` characters, trimmed) or an https audio URL. Faults name `param`.
 */
export function spokenMessageOf(raw: unknown, param: string, maxSay: number): Voicemail {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(`${param} must be {"say": "..."} or {"audio_url": "https://..."}.`, param)
  const keys = Object.keys(raw)
  const message = raw as Record<string, unknown>
  if (keys.length !== 1 || (keys[0] !== 'say' && keys[0] !== 'audio_url')) throw invalid(`${param} must hold exactly one of say or audio_url.`, param)
  if (keys[0] === 'audio_url') {
    if (typeof message.audio_url !== 'string') throw invalid(`${param}.audio_url must be a URL.`, `${param}.audio_url`)
    return { audio_url: checkMediaUrl(message.audio_url, `${param}.audio_url`) }
  }
  const say = message.say
  if (typeof say !== 'string' || say.trim() === '') throw invalid(`${param}.say must not be blank.`, `${param}.say`)
  if (say.length > maxSay) throw invalid(`${param}.say must be at most ${maxSay} characters.`, `${param}.say`)
  return { say: say.trim() }
}
