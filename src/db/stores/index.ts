import type { DatabaseHandle } from '../client'
import { campaignStore } from './campaign-store'
import { dncStore } from './dnc-store'
import { idempotencyStore } from './idempotency-store'
import { keyStore } from './key-store'
import { orgStore } from './org-store'
import { settingsStore } from './settings-store'

/** Every data-access module over one open database, plus its unit-of-work helper. */
export function createStores(database: DatabaseHandle) {
  const { db } = database
  return {
    transaction: database.transaction,
    settings: settingsStore(db),
    orgs: orgStore(db),
    keys: keyStore(db),
    campaigns: campaignStore(db, database.onRollback),
    dnc: dncStore(db, database.sqlite),
    idempotency: idempotencyStore(db),
  }
}

export type Stores = ReturnType<typeof createStores>
