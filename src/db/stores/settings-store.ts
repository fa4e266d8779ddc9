import { eq } from 'drizzle-orm'
import type { Db } from '../client'
import { settings } from '../schema'

/** Small named values the service keeps for itself (admin token hash, link signing key). */
export function settingsStore(db: Db) {
  return {
    get(name: string): string | null {
      return db.select({ value: settings.value }).from(settings).where(eq(settings.name, name)).get()?.value ?? null
    },
    set(name: string, value: string): void {
      db.insert(settings).values({ name, value }).onConflictDoUpdate({ target: settings.name, set: { value } }).run()
    },
  }
}

export type SettingsStore = ReturnType<typeof settingsStore>
