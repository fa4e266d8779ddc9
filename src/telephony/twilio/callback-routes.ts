import { Elysia, t } from 'elysia'
import { ApiError, notFound } from '../../errors'
import { bodyReader, readText } from '../../http/body-reader'
import { checkCallbackFields, TWILIO_FORM } from '../../http/callback-body'
import type { CallbackDoor } from '../ports'
import type { CallEngine } from './twilio-carrier'
import type { CarrierWire } from './wire'

/**
 * The carrier's callbacks (docs/telephony.md "What Twilio sends back"): no API key, the
 * signature (X-Twilio-Signature; Telnyx's Ed25519 one) is the permission. The body is a form,
 * read here (the route declares `reads: TWILIO_FORM`, so the pipeline leaves it unread); the URL
 * Twilio's signature covers is DIALER_PUBLIC_URL plus the path and query, the one it was given.
 */
export const twilioCallbackRoutes = (twilio: CallEngine, door: CallbackDoor) =>
  new Elysia().use(bodyReader()).onTransform(door.markRoute).post(
    `${twilio.wire.root}/calls/:id/:step`,
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
        ...signedBy(twilio.wire, request),
      })
      if (reply.status === 404) throw notFound('No such callback.')
      // Changes nothing: an unknown call, or a missing or wrong signature.
      if (reply.status === 403) throw refusedSignature(twilio.wire)
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

/** The signing headers of a callback, as the carrier's wire names them. */
export function signedBy(wire: CarrierWire, request: Request): { signature: string | null; timestamp: string | null } {
  return { signature: request.headers.get(wire.signatureHeader), timestamp: wire.timestampHeader ? request.headers.get(wire.timestampHeader) : null }
}

/** 403 in the spec's envelope for a callback whose signature is missing, wrong or stale. */
export function refusedSignature(wire: CarrierWire): ApiError {
  const what = wire.timestampHeader ? `${wire.signatureHeader} (or ${wire.timestampHeader})` : wire.signatureHeader
  return new ApiError('permission_denied', `The ${what} of this request is missing, wrong${wire.timestampHeader ? ' or too old' : ''}.`)
}

/** The path and query of a request URL, as sent (signatures cover them byte for byte). */
export function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  return start < 0 ? '/' : url.slice(start)
}
