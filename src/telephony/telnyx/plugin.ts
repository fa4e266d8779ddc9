import { carrierPlugin } from '../plugin'
import { engineOf, engineRoutes } from '../twilio/engine-plugin'
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
  create: (ports) => engineOf('telnyx', ports, () => telnyxWire({ account: (orgId) => accountOf(ports.settingsOf(orgId, 'telnyx')), publicUrl: ports.publicUrl, clock: ports.clock })),
  routes: (telnyx, door) => engineRoutes(telnyx, door, { path: TELNYX_STREAM_PATH, protocol: 'Telnyx media streaming' }),
  // A call quiet for 15 minutes is looked up (a lost final callback), so none stays up forever.
  watch: (telnyx) => void telnyx.watch(),
})
