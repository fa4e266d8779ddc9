import { carrierPlugin } from '../plugin'
import { twilioCallbackRoutes } from './callback-routes'
import { warnIfLoopback } from './public-url'
import { accountOf, twilioCli, twilioRules, twilioSettings } from './settings'
import { TwilioCarrier } from './twilio-carrier'

/** Twilio Programmable Voice (docs/telephony.md): live calls of organizations that set it. */
export const twilioPlugin = carrierPlugin({
  settings: twilioSettings,
  rules: twilioRules,
  cli: twilioCli,
  create: (ports) => {
    if (ports.kindInUse?.('twilio')) warnIfLoopback(ports.publicUrl)
    return new TwilioCarrier({
      store: ports.store,
      transaction: ports.transaction,
      afterDurable: ports.afterDurable,
      account: (orgId) => accountOf(ports.settingsOf(orgId)),
      publicUrl: ports.publicUrl,
      recordings: ports.recordings,
      clock: ports.clock,
      scheduler: ports.scheduler,
      metrics: ports.metrics,
    })
  },
  routes: twilioCallbackRoutes,
  // A Twilio call quiet for 15 minutes is looked up (a lost final callback), so none stays up forever.
  watch: (twilio) => void twilio.watch(),
})
