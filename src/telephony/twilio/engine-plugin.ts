import { Elysia } from 'elysia'
import type { CallbackDoor, CarrierPorts } from '../ports'
import { twilioCallbackRoutes } from './callback-routes'
import { twilioInboundRoutes } from './inbound-routes'
import { warnIfLoopback } from './public-url'
import { SeatedCallEngine } from './seat-carrier'
import { twilioSeatRoutes } from './seat-callback-routes'
import { twilioStreamRoutes } from './stream-routes'
import type { CarrierWire } from './wire'

/**
 * What every carrier on the call engine (Twilio, Telnyx) plugs in the same way: the engine built
 * from the service's ports on the carrier's wire, and its routes (callbacks of the calls it places,
 * leads' and seats', incoming calls, the AI seat's stream socket at `streamPath`).
 */
export function engineOf(kind: string, ports: CarrierPorts, wire: (ports: CarrierPorts) => CarrierWire): SeatedCallEngine {
  if (ports.kindInUse?.(kind)) warnIfLoopback(ports.publicUrl)
  const { settingsOf: _, simSpeed: __, kindInUse: ___, ...deps } = ports
  return new SeatedCallEngine(deps, wire(ports))
}

export const engineRoutes = (engine: SeatedCallEngine, door: CallbackDoor, stream?: { path: string; protocol: string }) =>
  new Elysia()
    .use(twilioCallbackRoutes(engine, door)).use(twilioInboundRoutes(engine, door)).use(twilioSeatRoutes(engine, door))
    .use(twilioStreamRoutes(engine.relay, door, stream?.path, stream?.protocol))
