import { Elysia, t } from 'elysia'
import { notFound } from '../../errors'
import { bodyReader, readText } from '../../http/body-reader'
import { checkCallbackFields, TWILIO_FORM } from '../../http/callback-body'
import type { CallbackDoor } from '../ports'
import { pathAndQuery, refusedSignature, signedBy } from './callback-routes'
import type { SeatedCallEngine } from './seat-carrier'

/**
 * Callbacks of seats' own legs (docs/telephony.md "Seats"): `/twilio/seats/<seat id>/<step>`,
 * no API key, the X-Twilio-Signature under the organization's token is the permission, as for
 * lead calls' callbacks (callback-routes.ts).
 */
export const twilioSeatRoutes = (twilio: SeatedCallEngine, door: CallbackDoor) =>
  new Elysia().use(bodyReader()).onTransform(door.markRoute).post(
    `${twilio.wire.root}/seats/:seatId/:step`,
    async ({ params, request }) => {
      // Size and field count before any signature work (callback-body.ts).
      const body = await readText(request, TWILIO_FORM)
      checkCallbackFields(body)
      const reply = twilio.handleSeat({
        seatId: params.seatId, step: params.step, url: door.publicUrl + pathAndQuery(request.url), body, ...signedBy(twilio.wire, request),
      })
      if (reply.status === 404) throw notFound('No such callback.')
      if (reply.status === 403) throw refusedSignature(twilio.wire)
      if (reply.twiml === null) return new Response('', { status: 200 })
      return new Response(reply.twiml, { headers: { 'content-type': 'text/xml; charset=utf-8' } })
    },
    {
      params: t.Object({ seatId: t.String({ maxLength: 64 }), step: t.String({ maxLength: 32 }) }),
      reads: TWILIO_FORM,
      detail: { hide: true },
    },
  )
