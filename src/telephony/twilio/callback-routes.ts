import { Elysia, t } from 'elysia'
import { ApiError, notFound } from '../../errors'
import { bodyReader, readText } from '../../http/body-reader'
import { checkCallbackFields, TWILIO_FORM } from '../../http/callback-body'
import type { CallbackDoor } from '../ports'
import { CALLBACK_PREFIX } from './call-plan'
import type { TwilioCarrier } from './twilio-carrier'

/**
 * Twilio's callbacks (docs/telephony.md "What Twilio sends back"): no API key, the
 * X-Twilio-Signature is the permission. The body is a form, read here (the route declares
 * `reads: TWILIO_FORM`, so the pipeline leaves it unread); the URL checked is
 * DIALER_PUBLIC_URL plus the path and query, the one Twilio was given and signed.
 */
export const twilioCallbackRoutes = (twilio: TwilioCarrier, door: CallbackDoor) =>
  new Elysia().use(bodyReader()).onTransform(door.markRoute).post(
    `${CALLBACK_PREFIX}:id/:step`,
    async ({ params, query, request }) => {
      // Size and field count before any signature work (callback-body.ts).
      const body = await readText(request, TWILIO_FORM)
      checkCallbackFields(body)
      const reply = twilio.handle({
        callId: params.id,
        step: params.step,
        leg: query.leg === undefined ? null : Number(query.leg),
        url: door.publicUrl + pathAndQuery(request.url),
        body,
        signature: request.headers.get('x-twilio-signature'),
      })
      if (reply.status === 404) throw notFound('No such callback.')
      // Changes nothing: an unknown call, or a missing or wrong signature.
      if (reply.status === 403) throw new ApiError('permission_denied', 'The X-Twilio-Signature of this request is missing or wrong.')
      if (reply.twiml === null) return new Response('', { status: 200 })
      return new Response(reply.twiml, { headers: { 'content-type': 'text/xml; charset=utf-8' } })
    },
    {
      params: t.Object({ id: t.String({ maxLength: 64 }), step: t.String({ maxLength: 32 }) }),
      query: t.Object({ leg: t.Optional(t.String({ pattern: '^[0-9]{1,3}$', 'x-param': 'leg' })) }),
      reads: TWILIO_FORM,
      detail: { hide: true },
    },
  )

/** The path and query of a request URL, as sent (signatures cover them byte for byte). */
export function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  return start < 0 ? '/' : url.slice(start)
}
