import { Elysia } from 'elysia'
import { carrierPlugin } from '../plugin'
import { twilioCallbackRoutes } from '../twilio/callback-routes'
import { twilioInboundRoutes } from '../twilio/inbound-routes'
import { warnIfLoopback } from '../twilio/public-url'
import { SeatedCallEngine } from '../twilio/seat-carrier'
import { twilioSeatRoutes } from '../twilio/seat-callback-routes'
import { twilioStreamRoutes } from '../twilio/stream-routes'
import { accountOf, telnyxCli, telnyxRules, telnyxSettings } from './settings'
import { telnyxWire } from './telnyx-wire'

/** Where Telnyx opens a seat's media stream (the TeXML `<Connect><Stream url>`). */
export const TELNYX_STREAM_PATH = '/telnyx/streams'

/**
 * Telnyx TeXML (docs/telephony.md "Telnyx"): the same call engine as Twilio's on Telnyx's wire
 * (REST, Ed25519 callbacks, `v3:` call ids, TeXML, its media stream dialect).
 */
export const telnyxPlugin = carrierPlugin({
  settings: telnyxSettings,
  rules: telnyxRules,
  cli: telnyxCli,
  create: (ports) => {
    if (ports.kindInUse?.('telnyx')) warnIfLoopback(ports.publicUrl)
    const wire = telnyxWire({ account: (orgId) => accountOf(ports.settingsOf(orgId, 'telnyx')), publicUrl: ports.publicUrl, clock: ports.clock })
    return new SeatedCallEngine({
      store: ports.store,
      transaction: ports.transaction,
      afterDurable: ports.afterDurable,
      publicUrl: ports.publicUrl,
      recordings: ports.recordings,
      clock: ports.clock,
      scheduler: ports.scheduler,
      metrics: ports.metrics,
      seats: ports.seats,
      inbound: ports.inbound,
      seatLegs: ports.seatLegs,
      streamKey: ports.streamKey,
      realtimeAgentOf: ports.realtimeAgentOf,
      seatMetrics: ports.seatMetrics,
    }, wire)
  },
  // Callbacks of the calls it places (leads' and seats'), incoming calls to the organizations' numbers, and the AI seat's stream sockets.
  routes: (telnyx, door) => new Elysia()
    .use(twilioCallbackRoutes(telnyx, door)).use(twilioInboundRoutes(telnyx, door)).use(twilioSeatRoutes(telnyx, door))
    .use(twilioStreamRoutes(telnyx.relay, door, TELNYX_STREAM_PATH, 'Telnyx media streaming')),
  // A call quiet for 15 minutes is looked up (a lost final callback), so none stays up forever.
  watch: (telnyx) => void telnyx.watch(),
})
