import type { Database } from 'bun:sqlite'

/**
 * `count` leads of one campaign written straight into a stopped service's database, for the
 * console search test and benchmark: named `Lead i`, `lead{i}@example.com`, external id `crm-i`,
 * one a millisecond from a day ago. Two are named to be found: "Quentin Oldest" (the first, which
 * background indexing reaches last) and "Quentin Lately" (6,000 from the newest).
 */
export function writeSearchLeads(db: Database, orgId: string, campaignId: string, count: number): void {
  const insert = db.prepare(
    `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, name, email, external_id, fields, lead_source, status, call_now, queued_at, late, attempts, last_posted_at, created, updated)
     VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, '{}', 'import', 'done', 0, 1, 0, 0, 1, 1, 1)`,
  )
  const first = Date.now() - 86_400_000
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const name = i === 0 ? 'Quentin Oldest' : i === count - 6_000 ? 'Quentin Lately' : `Lead ${i}`
      insert.run(Bun.randomUUIDv7('hex', first + i), orgId, campaignId, `+1212${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')}`, name, `lead${i}@example.com`, `crm-${i}`)
    }
  })()
  insert.finalize()
}
