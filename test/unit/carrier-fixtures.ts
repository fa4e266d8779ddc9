import type { OrgCarrierRow } from '../../src/db/stores/org-store'
import { checkApiBaseUrl as checkEndpoint } from '../../src/domain/orgs/carrier-fields'
import { checkCarrier as checkWith, type CarrierInput } from '../../src/domain/orgs/carrier-settings'
import { secretBox } from '../../src/domain/secrets/secret-box'
import { carrierRules } from '../../src/telephony/registry'
import { DEFAULT_TWILIO_API } from '../../src/telephony/twilio/settings'

/** The carrier-settings unit tests' Twilio account, sealing box and domain calls. */

export const SID = `AC${'0123456789abcdef'.repeat(2)}`
export const OTHER_SID = `AC${'fedcba9876543210'.repeat(2)}`
export const TOKEN = '9f'.repeat(16)
export const CALLER = '+14155550100'
export const TWILIO: CarrierInput = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER] }
export const box = secretBox(Buffer.alloc(32, 0x5a))

// The domain's functions with the registry's rules, as the organization service calls them.
export const checkCarrier = (input: CarrierInput, stored: OrgCarrierRow | undefined, param?: string, allowPrivate?: boolean) =>
  checkWith(carrierRules, input, stored, param, allowPrivate)
export const checkApiBaseUrl = (raw: string, param: string, allowPrivate?: boolean) => checkEndpoint(raw, param, DEFAULT_TWILIO_API, allowPrivate)
