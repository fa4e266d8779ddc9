import type { Config } from '../config'
import type { Stores } from '../db/stores'
import { abandonmentReport } from '../domain/calls/abandonment-report'
import type { HandleTimes } from '../domain/calls/call-activity'
import { callService } from '../domain/calls/call-service'
import { callerIdHealth } from '../domain/caller-ids/caller-id-health'
import { carrierBreakers } from '../domain/calls/carrier-breaker'
import { carrierDirectory } from '../domain/calls/carrier-choice'
import { carrierFailover } from '../domain/calls/carrier-failover'
import { Dialer } from '../domain/calls/dialer'
import { realtimeAgentOf } from '../domain/calls/realtime-agent'
import { recordingFiles } from '../domain/calls/recording-files'
import type { SecretBox } from '../domain/secrets/secret-box'
import { supervision } from '../domain/calls/supervision'
import type { DncService } from '../domain/dnc/dnc-service'
import type { EventLog } from '../domain/events/event-log'
import type { LeadService } from '../domain/leads/lead-service'
import { signedLinks } from '../domain/links/signed-links'
import type { OrgService } from '../domain/orgs/org-service'
import type { DialQueues } from '../domain/queue/dial-queues'
import { seatBoard, seatPorts } from '../domain/seats/seat-board'
import type { Metrics } from '../http/metrics'
import type { Clock } from '../jobs/clock'
import type { Scheduler } from '../jobs/scheduler'
import type { OpenedSettings } from '../telephony/ports'
import { createCarriers, DEFAULT_CARRIER } from '../telephony/registry'

/**
 * The calling side of the service, built in one place: the carriers (with the ports they need:
 * their call rows, inbound calls, seats' legs), the call service, the seats, the dialer that
 * paces by them, and what reads or steers calls (abandonment reports, supervisors).
 */
export function wireCalling(deps: {
  config: Readonly<Config>
  stores: Stores
  orgs: OrgService
  dnc: DncService
  events: EventLog
  leads: LeadService
  queues: DialQueues
  handleTimes: HandleTimes
  clock: Clock
  scheduler: Scheduler
  metrics: Metrics
  autoDial: boolean
  /** The organization's settings of a carrier kind with secrets opened (null: none of that kind, or they do not open). */
  openedCarrierOf: (orgId: string, kind: string) => OpenedSettings | null
  /** Signs the AI seat's stream tokens (derived from the secret key). */
  streamKey: Uint8Array
  /** Opens a built-in agent's sealed API key when its stream starts. */
  secrets: SecretBox
}) {
  const { config, stores, orgs, dnc, events, leads, queues, handleTimes, clock, scheduler, metrics } = deps
  const recordings = recordingFiles(config.dataDir)
  const carrierSet = createCarriers({
    store: stores.carrierCalls,
    transaction: stores.transaction,
    afterDurable: stores.afterDurable,
    settingsOf: deps.openedCarrierOf,
    recordings,
    clock,
    scheduler,
    publicUrl: config.publicUrl,
    simSpeed: config.simSpeed,
    metrics: metrics.carrier,
    kindInUse: (kind) => stores.orgs.hasCarrierKind(kind),
    streamKey: deps.streamKey,
    realtimeAgentOf: realtimeAgentOf({ stores, secrets: deps.secrets }),
    seatMetrics: metrics.seat,
    // Both are built below; carriers reach them only once a call or a seat's leg calls back.
    inbound: { open: (orgId, call) => calls.openInbound(orgId, call) },
    ...seatPorts(() => seats),
  })
  const carrier = carrierSet[DEFAULT_CARRIER]
  // A breaker per organization and carrier kind: a pool's dials skip a carrier in an outage.
  const breakers = carrierBreakers({ now: () => clock.now(), onOpen: (_orgId, kind) => metrics.carrierBreakerOpened.inc(kind) })
  metrics.breakerStates = breakers.notClosed
  const carriers = carrierDirectory({
    carriers: carrierSet,
    fallback: carrier,
    // Without opening a secret: its kinds, weights, caller IDs and detection are all a dial decides with.
    poolOf: (orgId) => orgs.dialPool(orgId),
    breakers,
  })
  const links = signedLinks(stores.settings, config.publicUrl)
  // Rested caller IDs are left out of dials (src/domain/caller-ids/).
  const callerIds = callerIdHealth({
    store: stores.callerIds, org: (id) => stores.orgs.get(id), transaction: stores.transaction, carrierPool: (id) => orgs.carrierPool(id), clock,
  })
  const calls = callService({
    stores, leads, dnc, events, carriers, clock, scheduler, links,
    onOutcome: (outcome) => metrics.calls.inc(outcome),
    usableCallerIds: callerIds.usable,
    failover: carrierFailover({ carriers, breakers, usableCallerIds: callerIds.usable, onFailover: (from) => metrics.carrierFailovers.inc(from) }),
  })
  const seats = seatBoard({ stores, clock, carriers, pump: (campaignId) => dialer.pump(campaignId, true) })
  const dialer = new Dialer({
    stores, queues, leads, calls, handleTimes, clock, scheduler, seats,
    // Seats and pacing concern live calls through a real carrier, not the simulator.
    seatedCarrier: (orgId) => carriers.forDial(orgId, true, { seated: true }).carrier !== carrier,
  }, deps.autoDial)
  return {
    recordings, carrierSet, carrier, carriers, links, calls, seats, dialer, callerIds,
    abandonment: abandonmentReport({ stores, clock }),
    supervision: supervision({ stores, events, clock, carriers, view: calls.view, seats: () => seats }),
  }
}
