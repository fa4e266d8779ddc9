import type { DatabaseHandle } from '../client'
import { callStore } from './call-store'
import { carrierCallStore } from './carrier-call-store'
import { consoleStore } from './console-store'
import { decisionStore } from './decision-store'
import { campaignStore } from './campaign-store'
import { dncStore } from './dnc-store'
import { eventStore } from './event-store'
import { idempotencyStore } from './idempotency-store'
import { importStore } from './import-store'
import { keyStore } from './key-store'
import { leadStore } from './lead-store'
import { orgStore } from './org-store'
import { settingsStore } from './settings-store'
import { exportStore } from './export-store'
import { usageStore } from './usage-store'
import { webhookStore } from './webhook-store'
import { registryStore } from './registry-store'
import { ledgerStore } from './ledger-store'
import { floorStore } from './floor-store'
import { seatStore } from './seat-store'
import { callerIdStore } from './caller-id-store'

/** Every data-access module over one open database, plus its unit-of-work helper. */
export function createStores(database: DatabaseHandle) {
  const { db } = database
  return {
    transaction: database.transaction,
    afterCommit: database.afterCommit,
    afterDurable: database.afterDurable,
    caches: database.caches,
    settings: settingsStore(db),
    orgs: orgStore(db, database.caches),
    keys: keyStore(db),
    campaigns: campaignStore(db, database.sqlite, database.caches),
    dnc: dncStore(db, database.sqlite),
    idempotency: idempotencyStore(db),
    leads: leadStore(db, database.sqlite),
    events: eventStore(db, database.sqlite),
    calls: callStore(db, database.sqlite),
    carrierCalls: carrierCallStore(db),
    console: consoleStore(db, database.sqlite),
    decisions: decisionStore(db, database.sqlite),
    webhooks: webhookStore(db, database.sqlite),
    usage: usageStore(db, database.sqlite),
    exports: exportStore(db, database.sqlite),
    registry: registryStore(database.sqlite, database.standalone),
    imports: importStore(db),
    ledger: ledgerStore(database.sqlite),
    floor: floorStore(database.sqlite),
    seats: seatStore(db),
    callerIds: callerIdStore(db, database.caches),
  }
}

export type Stores = ReturnType<typeof createStores>
