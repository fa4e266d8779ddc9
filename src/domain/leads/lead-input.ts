import { isIP } from 'node:net'
import type { Consent } from '../../db/schema'
import { invalid } from '../../errors'

/** One lead as a client sends it (POST /leads, a batch item, the older campaign path). */
export interface LeadInput {
  campaign_id?: string
  external_id?: string
  phone: string
  name?: string
  email?: string
  address?: string
  fields?: Record<string, string>
  consent?: Consent
  call_now?: boolean
}

export const MAX_CUSTOM_FIELDS = 50
export const MAX_FIELD_KEY = 100
export const MAX_FIELD_VALUE = 1000

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/

/**
 * Rules a schema cannot say: consent needs text or url, a real IP, an email's shape, custom
 * field keys. `at` prefixes param names (`leads[3].`) for batch items.
 */
export function checkLeadInput(input: Omit<LeadInput, 'phone'>, at = ''): void {
  if (input.email !== undefined && input.email !== '' && !EMAIL.test(input.email)) {
    throw invalid('email is not an email address.', `${at}email`)
  }
  if (input.consent) checkConsent(input.consent, at)
  if (input.fields) checkFields(input.fields, at)
}

export function checkConsent(consent: Consent, at = ''): void {
  if (consent.text === undefined && consent.url === undefined) {
    throw invalid('consent needs the text agreed to or the url of the page agreed on.', `${at}consent`)
  }
  if (consent.ip !== undefined && isIP(consent.ip) === 0) {
    throw invalid('consent.ip is not an IP address.', `${at}consent.ip`)
  }
  if (Number.isNaN(Date.parse(consent.agreed_at))) {
    throw invalid('consent.agreed_at must be an ISO 8601 date-time.', `${at}consent.agreed_at`)
  }
}

/**
 * The lead columns that keep a consent as evidence: the consent as received, when it
 * was stored, and SHA-256 (hex) of the text agreed to, or of the url when there is no text.
 */
export function consentColumns(consent: Consent, now: number): { consent: Consent; consentRecordedAt: number; consentSha256: string } {
  const hashed = consent.text ?? consent.url ?? ''
  return { consent, consentRecordedAt: now, consentSha256: new Bun.CryptoHasher('sha256').update(hashed).digest('hex') }
}

export function checkFields(fields: Record<string, string>, at = ''): void {
  const keys = Object.keys(fields)
  if (keys.length > MAX_CUSTOM_FIELDS) throw invalid(`At most ${MAX_CUSTOM_FIELDS} custom fields.`, `${at}fields`)
  for (const key of keys) {
    if (key === '' || key.length > MAX_FIELD_KEY) {
      throw invalid(`Custom field names are 1 to ${MAX_FIELD_KEY} characters.`, `${at}fields`)
    }
    if (typeof fields[key] !== 'string' || fields[key]!.length > MAX_FIELD_VALUE) {
      throw invalid(`Custom field values are strings of at most ${MAX_FIELD_VALUE} characters.`, `${at}fields.${key}`)
    }
  }
}
