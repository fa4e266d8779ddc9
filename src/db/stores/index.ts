import type { DatabaseHandle } from '../client'
import { callStore } from './call-store'
import { campaignStore } from './campaign-store'
import { dncStore } from './dnc-store'
import { eventStore } from './event-store'
import { idempotencyStore } from './idempotency-store'
import { keyStore } from './key-store'
import { leadStore } from './lead-store'
import { orgStore } from './org-store'
import { settingsStore } from './settings-store'
import { exportStore } from './export-store'
import { usageStore } from './usage-store'
import { webhookStore } from './webhook-store'

/** Every data-access module over one open database, plus its unit-of-work helper. */
export function createStores(database: DatabaseHandle) {
  const { db } = database
  return {
    transaction: database.transaction,
    afterCommit: database.afterCommit,
    afterDurable: database.afterDurable,
    onRollback: database.onRollback,
    settings: settingsStore(db),
    orgs: orgStore(db, database.onRollback),
    keys: keyStore(db),
    campaigns: campaignStore(db, database.sqlite, database.onRollback),
    dnc: dncStore(db, database.sqlite),
    idempotency: idempotencyStore(db),
    leads: leadStore(db, database.sqlite, database.onRollback),
    events: eventStore(db, database.sqlite),
    calls: callStore(db, database.sqlite),
    webhooks: webhookStore(db, database.sqlite),
    usage: usageStore(db, database.sqlite),
    exports: exportStore(db, database.sqlite),
  }
}

export type Stores = ReturnType<typeof createStores>
