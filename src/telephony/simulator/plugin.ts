import { t } from 'elysia'
import { carrierPlugin } from '../plugin'
import { SimulatedCarrier } from './simulated-carrier'

/** The built-in carrier: test keys, and live keys of organizations that set no other (it has no settings). */
export const simulatorPlugin = carrierPlugin({
  settings: t.Object({}),
  cli: { note: 'dial live calls with the built-in simulator again (the default)', flags: {}, body: () => ({}) },
  create: (ports) => new SimulatedCarrier({ clock: ports.clock, scheduler: ports.scheduler, speed: ports.simSpeed }),
})
