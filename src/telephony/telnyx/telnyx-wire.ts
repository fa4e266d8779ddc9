import type { Clock } from '../../jobs/clock'
import { formParams } from '../twilio/signature'
import type { RestClientOptions } from '../twilio/rest-client'
import type { CarrierWire } from '../twilio/wire'
import { normalizeTranscription, telnyxUrlOf, texmlOf } from './markup'
import { TelnyxRestClient, type TelnyxAccount } from './rest-client'
import { replayKey, SIGNATURE_HEADER, TelnyxVerifier, TIMESTAMP_HEADER } from './signature'
import { telnyxStreamDialect } from './stream-frames'

/**
 * Telnyx TeXML's side of the call engine's wire port (twilio/wire.ts): its REST client, Ed25519
 * callback signatures checked against the service's clock, call ids `v3:…` (call_control_id, `v2:` in older examples), TeXML.
 */
export function telnyxWire(deps: {
  account: (orgId: string) => TelnyxAccount | null
  publicUrl: string
  clock: Clock
  rest?: RestClientOptions
  verifier?: TelnyxVerifier
}): CarrierWire {
  const verifier = deps.verifier ?? new TelnyxVerifier()
  return {
    kind: 'telnyx',
    label: 'Telnyx',
    root: '/telnyx',
    signatureHeader: SIGNATURE_HEADER,
    timestampHeader: TIMESTAMP_HEADER,
    callSid: /^v[23]:[A-Za-z0-9_-]{1,200}$/,
    recordingSid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    conferenceSid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$|^v[23]:[A-Za-z0-9_-]{1,200}$/,
    rest(orgId) {
      const account = deps.account(orgId)
      return account ? new TelnyxRestClient(account, deps.rest) : null
    },
    verify(orgId, input) {
      const account = deps.account(orgId)
      if (!account) return { refused: 'unknown_call' }
      // Checked over the raw body before anything in it is read.
      const key = replayKey(input.url, input.signature ?? '')
      const check = verifier.check(account.publicKey, input.signature, input.timestamp, input.body, deps.clock.now(), key)
      if (check === 'replay') return { refused: check, key }
      if (check !== 'ok') return { refused: check }
      const params: Record<string, string> = {}
      for (const [name, value] of Object.entries(formParams(input.body))) params[name] = Array.isArray(value) ? (value[0] ?? '') : value
      if (params.AccountSid !== undefined && params.AccountSid !== account.accountSid) return { refused: 'account' }
      return { params: normalizeTranscription(params), key }
    },
    markup: (twiml) => texmlOf(twiml, deps.publicUrl),
    url: (url) => telnyxUrlOf(url, deps.publicUrl),
    streamDialect: telnyxStreamDialect,
  }
}
