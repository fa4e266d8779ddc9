import { Elysia, t } from 'elysia'
import { bodyReader, readText } from '../../http/body-reader'
import { checkCallbackFields, TWILIO_FORM } from '../../http/callback-body'
import type { CallbackDoor } from '../ports'
import { pathAndQuery, refusedSignature, signedBy } from './callback-routes'
import type { FloorCallEngine } from './inbound-carrier'

/** Where an organization's numbers send incoming calls: `<DIALER_PUBLIC_URL>/twilio/inbound/<org id>` (voice URL) and `.../status` (status callback). */
export const INBOUND_PREFIX = '/twilio/inbound/'

/**
 * Twilio's incoming-call webhook and the number's status callback (docs/telephony.md "Calls
 * back"): no API key, the X-Twilio-Signature under the organization's auth token is the
 * permission, as for every Twilio callback (callback-routes.ts).
 */
export function twilioInboundRoutes(twilio: FloorCallEngine, door: CallbackDoor) {
  const prefix = `${twilio.wire.root}/inbound/`
  const answer = (status: boolean) => async ({ params, request }: { params: { org: string }; request: Request }) => {
    // Size and field count before any signature work (callback-body.ts).
    const body = await readText(request, TWILIO_FORM)
    checkCallbackFields(body)
    const input = { orgId: params.org, url: door.publicUrl + pathAndQuery(request.url), body, ...signedBy(twilio.wire, request) }
    const reply = status ? twilio.incomingStatus(input) : twilio.answerIncoming(input)
    if (reply.status === 403) throw refusedSignature(twilio.wire)
    if (reply.twiml === null) return new Response('', { status: 200 })
    return new Response(reply.twiml, { headers: { 'content-type': 'text/xml; charset=utf-8' } })
  }
  const hook = { params: t.Object({ org: t.String({ format: 'uuid', 'x-param': 'org' }) }), reads: TWILIO_FORM, detail: { hide: true } }
  return new Elysia().use(bodyReader()).onTransform(door.markRoute)
    .post(`${prefix}:org`, answer(false), hook)
    .post(`${prefix}:org/status`, answer(true), hook)
}
