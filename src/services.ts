import type { Config } from './config'
import { migrate, openDatabase, type DatabaseHandle } from './db/client'
import { createStores, type Stores } from './db/stores'
import { adminToken, type AdminToken } from './domain/access/admin-token'
import { accountService, type AccountService } from './domain/console/accounts'
import { sessionService, type SessionService } from './domain/console/sessions'
import { leadSearchIndexer, type LeadSearchIndexer } from './domain/console/lead-search-indexer'
import { keyService, type KeyService } from './domain/access/key-service'
import { campaignService, type CampaignService } from './domain/campaigns/campaign-service'
import { dncService, type DncService } from './domain/dnc/dnc-service'
import { nationalRegistry, type NationalRegistryService } from './domain/dnc/national-registry'
import { eventLog, type EventLog } from './domain/events/event-log'
import { leadService, type LeadService } from './domain/leads/lead-service'
import { callActivity, HandleTimes } from './domain/calls/call-activity'
import type { Carrier } from './telephony/carrier'
import type { OpenedSettings } from './telephony/ports'
import { eventQueries, type EventQueries } from './domain/events/event-queries'
import { DeliveryWorker } from './domain/webhooks/delivery-worker'
import { httpTransport, type WebhookTransport } from './domain/webhooks/transport'
import type { Resolver } from './domain/webhooks/target-check'
import { webhookService, type WebhookService } from './domain/webhooks/webhook-service'
import { RequestTally } from './domain/usage/request-tally'
import { usageService, type UsageService } from './domain/usage/usage-service'
import { exportService, type ExportService } from './domain/exports/export-service'
import { importService, type ImportService } from './domain/imports/import-service'
import { DialQueues } from './domain/queue/dial-queues'
import { orgService, type OrgService } from './domain/orgs/org-service'
import { secretContext } from './domain/orgs/carrier-settings'
import { agentKeyContext } from './domain/campaigns/ai-agent-check'
import { secretBox } from './domain/secrets/secret-box'
import { loadSecretKey, type LoadedSecretKey } from './domain/secrets/secret-key-file'
import { IdempotencyGuard } from './http/idempotency'
import { Metrics } from './http/metrics'
import { ConcurrencyGate, FailureWindow, MinuteCounter, RequestRateLimiter } from './http/rate-limit'
import { ACCOUNT_WINDOW_MS, guessGuard, type GuessGuard } from './domain/access/guess-guard'
import { FakeClock, systemClock, type Clock } from './jobs/clock'
import { FakeScheduler, RealScheduler, type Scheduler } from './jobs/scheduler'
import { logger } from './log'
import type { CallService } from './domain/calls/call-service'
import type { AbandonmentReports } from './domain/calls/abandonment-report'
import type { Supervisions } from './domain/calls/supervision'
import type { Dialer } from './domain/calls/dialer'
import type { SignedLinks } from './domain/links/signed-links'
import type { SeatBoardService } from './domain/seats/seat-board'
import { carrierList, carrierRules, type CarrierSet } from './telephony/registry'
import type { CallerIdHealth } from './domain/caller-ids/caller-id-health'
import { bootAndSchedule } from './wiring/boot-and-jobs'
import { wireCalling } from './wiring/calling'
import { streamTokenKey } from './telephony/media-stream/stream-token'
import { wireSubscriptions } from './wiring/subscriptions'

/** Everything a running service holds: database, clock, domain services, limits and jobs. */
export interface Services {
  readonly config: Readonly<Config>
  readonly database: DatabaseHandle
  readonly stores: Stores
  readonly clock: Clock
  readonly scheduler: Scheduler
  /** Set when DIALER_FAKE_CLOCK=1: the admin clock endpoints move it. */
  readonly fakeScheduler: FakeScheduler | null
  readonly adminToken: AdminToken
  /** The console's accounts and signed-in sessions (src/console/). */
  readonly accounts: AccountService
  readonly sessions: SessionService
  readonly orgs: OrgService
  readonly keys: KeyService
  readonly campaigns: CampaignService
  readonly dnc: DncService
  /** The national Do Not Call registry (every organization, both modes). */
  readonly registry: NationalRegistryService
  readonly events: EventLog
  readonly queues: DialQueues
  readonly leads: LeadService
  readonly calls: CallService
  readonly dialer: Dialer
  /** Each campaign's abandonment record (admin API, CLI, console). */
  readonly abandonment: AbandonmentReports
  /** Supervisors called into live calls' seat conferences (admin API, CLI, console). */
  readonly supervision: Supervisions
  /** Seats of power/predictive campaigns (admin API, CLI, console, the dialer's pacing, the carrier's answers). */
  readonly seats: SeatBoardService
  /** Caller-ID health: rested numbers, the console's Numbers page (src/domain/caller-ids/). */
  readonly callerIds: CallerIdHealth
  /** The default carrier (the simulator): test keys, and live keys of organizations without a carrier. */
  readonly carrier: Carrier
  /** Every carrier of the registry (src/telephony/registry.ts), by kind; the app mounts their callback routes. */
  readonly carriers: CarrierSet
  readonly links: SignedLinks
  readonly eventQueries: EventQueries
  readonly webhooks: WebhookService
  readonly deliveries: DeliveryWorker
  readonly tally: RequestTally
  readonly usage: UsageService
  readonly exports: ExportService
  /** Lead CSV imports' records (the import itself is leads.importCsv). */
  readonly imports: ImportService
  readonly metrics: Metrics
  /** The console's lead search index, filled in the background (src/domain/console/lead-search-indexer.ts). */
  readonly searchIndex: LeadSearchIndexer
  readonly limits: {
    readonly requests: RequestRateLimiter
    readonly concurrency: ConcurrencyGate
    readonly authFailures: MinuteCounter
    /** Console sign-ins and admin tokens tried, per address and per account (guess-guard.ts). */
    readonly guessFailures: MinuteCounter
    readonly accountFailures: FailureWindow
    /** Console sign-in and the admin token: refused unread over the address's or the account's budget. */
    readonly guesses: GuessGuard
    readonly newLeads: MinuteCounter
  }
  readonly idempotency: IdempotencyGuard
  close(): void
}

export interface ServiceOptions {
  /** Start time of the fake clock (tests). */
  fakeStart?: number
  /** Dial queued leads as lines free up (default). Tests that look at queues switch it off. */
  autoDial?: boolean
  /** How webhooks are sent (default: HTTP with a 10 s timeout). */
  webhookTransport?: WebhookTransport
  /** How webhook hosts are resolved (default: the system's); tests answer without DNS. */
  webhookResolver?: Resolver
  /** A group whose commit failed (default: stop the process; tests watch it instead). */
  onGroupLost?: (error: unknown) => void
}

export function createServices(config: Readonly<Config>, options: ServiceOptions = {}): Services {
  const metrics = new Metrics()
  const database = openDatabase(config.databasePath, {
    synchronous: config.synchronous,
    groupCommits: config.groupCommits,
    cacheMb: config.sqliteCacheMb,
    onGroupLost: options.onGroupLost,
    onCommit: (seconds) => metrics.commits.observe(seconds),
  })
  migrate(database)
  const stores = createStores(database)
  // A key file that is malformed or readable by others, or a key (or missing file) that cannot
  // open the carrier secrets sealed in the database, stops the start here.
  let secretKey: LoadedSecretKey
  try {
    secretKey = loadSecretKey(config, () => [
      ...stores.orgs.sealedSecrets().map((t) => ({ sealed: t.sealed, context: secretContext(t.orgId, t.kind, t.name) })),
      ...stores.campaigns.sealedAgentKeys().map((c) => ({ sealed: c.sealed, context: agentKeyContext(c.id) })),
    ])
  } catch (error) {
    database.close()
    throw error
  }
  if (secretKey.source === 'minted') logger.info('secret_key_minted', { path: secretKey.path })

  const fakeClock = config.fakeClock ? new FakeClock(options.fakeStart) : null
  const clock: Clock = fakeClock ?? systemClock
  // Each fake task commits at its own time, so what waits for the commit (a dial, a webhook
  // send) happens then, as on the real clock, not once the whole move is over.
  const fakeScheduler = fakeClock ? new FakeScheduler(fakeClock, () => database.flush()) : null
  // A timer batch is a big unit of work already: it commits on its own rather than in the turn's group.
  const scheduler: Scheduler = fakeScheduler ?? new RealScheduler(clock, (work) => database.standalone(work))
  scheduler.onJobRun((run) => metrics.jobRan(run.name, run.endedAt, run.durationMs, run.ok))

  const transaction = stores.transaction
  const operatorToken = adminToken(stores.settings, config.adminToken)
  const accounts = accountService({ console: stores.console, orgs: stores.orgs, clock, transaction })
  const guessFailures = new MinuteCounter(clock)
  const accountFailures = new FailureWindow(clock, config.accountFailures, ACCOUNT_WINDOW_MS)
  const guesses = guessGuard({ addresses: guessFailures, accounts: accountFailures, perAddress: config.authFailuresPerMinute, clock })
  const searchIndex = leadSearchIndexer({ store: stores.console, standalone: (work) => database.standalone(work) })
  // On the fake clock (tests) search reads unindexed leads directly; tests index with catchUp().
  if (!fakeClock) searchIndex.start()
  const sessions = sessionService({ console: stores.console, adminToken: operatorToken, guesses, clock, transaction })
  const keys = keyService({ keys: stores.keys, orgs: stores.orgs, campaigns: stores.campaigns, clock, caches: database.caches })
  const secrets = secretBox(secretKey.key)
  const orgs = orgService({
    orgs: stores.orgs, clock, onChange: (orgId) => keys.forgetOrg(orgId), secrets, transaction,
    openCarrierCalls: (orgId, kind) => stores.carrierCalls.openCount(orgId, kind), carrierAllowPrivate: config.carrierAllowPrivate, carriers: carrierRules,
  })
  const campaigns = campaignService({ campaigns: stores.campaigns, orgs: stores.orgs, clock, transaction, secrets })
  const dnc = dncService({ dnc: stores.dnc, clock, transaction })
  const registry = nationalRegistry({ store: stores.registry, clock })
  const registryLoadMs = registry.load()
  if (registry.total > 0) logger.info('dnc_registry_loaded', { numbers: registry.total, duration_ms: Math.round(registryLoadMs) })
  const idempotency = new IdempotencyGuard(stores.idempotency, clock)
  const events = eventLog({ events: stores.events, clock, apiVersion: config.apiVersion })
  const queues = new DialQueues()
  const newLeads = new MinuteCounter(clock)
  const tally = new RequestTally()
  const usage = usageService({ stores, clock, tally })
  // Read by the leads (wait estimates) and forgotten by the dialer as calls end.
  const handleTimes = new HandleTimes({ calls: stores.calls, clock, caches: database.caches })
  const imports = importService({ imports: stores.imports, clock })
  const leads = leadService({
    stores, campaigns, dnc, registry, events, queues, scheduler, clock, newLeads,
    calls: callActivity(stores.calls), handleTimes, spendCap: usage,
    onRefused: (code) => metrics.intakeRefusals.inc(code),
    imports,
    windowEndMarginMs: config.windowEndMarginSeconds * 1000, tollFree: config.tollFree,
  })
  const { recordings, carrierSet, carrier, carriers, links, calls, seats, dialer, supervision, abandonment, callerIds } = wireCalling({
    config, stores, orgs, dnc, events, leads, queues, handleTimes, clock, scheduler, metrics, autoDial: options.autoDial ?? true,
    openedCarrierOf: (orgId, kind) => openedCarrierOf(orgs, orgId, kind),
    streamKey: streamTokenKey(secretKey.key),
    secrets,
  })

  const webhooks = webhookService({
    stores, clock, allowPrivate: config.webhookAllowPrivate, resolve: options.webhookResolver, apiVersion: config.apiVersion,
    onResult: (result) => metrics.webhookDeliveries.inc(result),
  })
  const deliveries = new DeliveryWorker({
    store: stores.webhooks,
    clock,
    scheduler,
    transport: options.webhookTransport ?? httpTransport(),
    allowPrivate: config.webhookAllowPrivate,
    resolve: options.webhookResolver,
    transaction: stores.transaction,
    eventBody: (eventId) => stores.events.get(eventId)?.body,
    endpoint: (id) => webhooks.endpoint(id),
    endpointChanged: (endpoint) => webhooks.changed(endpoint),
    onResult: (result) => metrics.webhookDeliveries.inc(result),
  })

  const exports = exportService({ stores, clock, links, dataDir: config.dataDir })
  wireSubscriptions({ stores, dnc, leads, campaigns, dialer, usage, queues, calls, carrierSet, events, webhooks, deliveries })
  bootAndSchedule({ config, database, stores, clock, scheduler, calls, usage, leads, dialer, exports, imports, idempotency, sessions, deliveries, recordings, carrierSet, callerIds })

  for (const name of scheduler.jobNames()) metrics.job(name)

  return {
    config, database, stores, clock, scheduler, fakeScheduler,
    adminToken: operatorToken,
    accounts,
    sessions,
    searchIndex,
    orgs,
    keys,
    campaigns,
    dnc,
    registry,
    events,
    queues,
    leads,
    calls,
    dialer,
    abandonment,
    supervision,
    seats,
    callerIds,
    carrier,
    carriers: carrierSet,
    links,
    eventQueries: eventQueries(stores.events),
    webhooks,
    deliveries,
    tally,
    usage,
    exports,
    imports,
    metrics,
    limits: {
      requests: new RequestRateLimiter(clock),
      concurrency: new ConcurrencyGate(),
      authFailures: new MinuteCounter(clock),
      guessFailures,
      accountFailures,
      guesses,
      newLeads,
    },
    idempotency,
    close() {
      // Requests counted in memory since the last count are written before the database closes.
      try {
        usage.countNow()
      } catch (error) {
        logger.warn('usage_count_on_close_failed', { error: String(error) })
      }
      deliveries.stop()
      for (const each of carrierList(carrierSet)) each.stop?.()
      scheduler.stop()
      searchIndex.stop()
      database.close()
    },
  }
}

/** The organization's settings of a carrier kind with secrets opened, or null when it has none or they do not open (the key changed). */
function openedCarrierOf(orgs: OrgService, orgId: string, kind: string): OpenedSettings | null {
  try {
    return orgs.carrier(orgId, kind)
  } catch (error) {
    logger.error('carrier_token_unreadable', { org_id: orgId, error: error instanceof Error ? error.name : 'unknown' })
    return null
  }
}
