import { carrierPlugin } from '../plugin'
import { engineOf, engineRoutes } from './engine-plugin'
import { accountOf, twilioCli, twilioRules, twilioSettings } from './settings'
import { twilioWire } from './twilio-wire'

/** Twilio Programmable Voice (docs/telephony.md): live calls of organizations that set it. */
export const twilioPlugin = carrierPlugin({
  settings: twilioSettings,
  rules: twilioRules,
  cli: twilioCli,
  create: (ports) => engineOf('twilio', ports, () => twilioWire((orgId) => accountOf(ports.settingsOf(orgId, 'twilio')))),
  routes: (twilio, door) => engineRoutes(twilio, door),
  // A Twilio call quiet for 15 minutes is looked up (a lost final callback), so none stays up forever.
  watch: (twilio) => void twilio.watch(),
})
