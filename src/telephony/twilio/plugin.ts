import { Elysia } from 'elysia'
import { carrierPlugin } from '../plugin'
import { twilioCallbackRoutes } from './callback-routes'
import { warnIfLoopback } from './public-url'
import { accountOf, twilioCli, twilioRules, twilioSettings } from './settings'
import { SeatedCallEngine } from './seat-carrier'
import { twilioWire } from './twilio-wire'
import { twilioSeatRoutes } from './seat-callback-routes'
import { twilioInboundRoutes } from './inbound-routes'
import { twilioStreamRoutes } from './stream-routes'

/** Twilio Programmable Voice (docs/telephony.md): live calls of organizations that set it. */
export const twilioPlugin = carrierPlugin({
  settings: twilioSettings,
  rules: twilioRules,
  cli: twilioCli,
  create: (ports) => {
    if (ports.kindInUse?.('twilio')) warnIfLoopback(ports.publicUrl)
    const account = (orgId: string) => accountOf(ports.settingsOf(orgId, 'twilio'))
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
    }, twilioWire(account))
  },
  // Callbacks of the calls it places (leads' and seats'), incoming calls to the organizations' numbers, and the AI seat's stream sockets.
  routes: (twilio, door) => new Elysia().use(twilioCallbackRoutes(twilio, door)).use(twilioInboundRoutes(twilio, door)).use(twilioSeatRoutes(twilio, door)).use(twilioStreamRoutes(twilio.relay, door)),
  // A Twilio call quiet for 15 minutes is looked up (a lost final callback), so none stays up forever.
  watch: (twilio) => void twilio.watch(),
})
