import { Elysia } from 'elysia'
import { invalid } from '../../errors'
import { upgradeToSocket } from '../../http/websocket-door'
import type { SeatRelay } from '../media-stream/contract'
import type { CallbackDoor } from '../ports'

/** Where Twilio opens a seat's Media Stream (the answer TwiML's `<Connect><Stream url>`). */
export const STREAM_PATH = '/twilio/streams'

/**
 * The AI seat's stream socket (docs/telephony.md "The AI seat: the relay"). No key and no
 * signature: Twilio signs the upgrade with X-Twilio-Signature, but the `<Parameter>` token the
 * relay's host checks at `start` names the call and is what lets a stream in.
 */
export const twilioStreamRoutes = (relay: SeatRelay, door: CallbackDoor, path = STREAM_PATH, protocol = 'Twilio Media Streams') =>
  new Elysia().onTransform(door.markRoute).get(
    path,
    ({ request }) => {
      const upgraded = upgradeToSocket(request, (socket, from) => relay.open(socket, from))
      if (!upgraded) throw invalid(`This address takes a WebSocket (${protocol}): send an upgrade request.`, null)
      // Bun ignores the reply to an upgraded request; the log and metrics see 200.
      return new Response(null, { status: 200 })
    },
    { detail: { hide: true } },
  )
