import type { Database } from 'bun:sqlite'
import type { HandledBy } from '../schema/calls'

/** A live call on the floor view, with its lead's name and phone. */
export interface FloorCallRow {
  id: string
  campaignId: string
  leadId: string
  leadName: string | null
  leadPhone: string
  status: 'ringing' | 'in_progress'
  direction: 'outbound' | 'inbound'
  started: number
  answeredAt: number | null
  connectedAt: number | null
  handledBy: HandledBy
}

/** A callback booked for today that has not been dialed yet. */
export interface FloorCallbackRow {
  leadId: string
  campaignId: string
  leadName: string | null
  leadPhone: string
  callbackAt: number
}

/** One person's calls taken since the organization's midnight. */
export interface FloorPersonRow {
  id: string
  name: string
  role: 'sdr' | 'closer'
  callsTaken: number
  talkSeconds: number
  handoverSeconds: number | null
}

/** The smallest uuid v7 made at `ms` or later (ids compare as text): today's calls are an id range. */
const firstUuidAt = (ms: number): string => {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`
}

/**
 * The console's floor view (live data only): open calls through calls_open, today's callbacks
 * through leads_waiting_due, and today's calls per person through calls_org_list's id range.
 * Read every 2 s per organization with an open floor page.
 */
export function floorStore(sqlite: Database) {
  const open = sqlite.query<Omit<FloorCallRow, 'handledBy'> & { handledBy: string }, [string, number]>(
    `SELECT c.id, c.campaign_id AS campaignId, c.lead_id AS leadId, l.name AS leadName, l.phone AS leadPhone, c.status, c.direction,
       c.started, c.answered_at AS answeredAt, c.connected_at AS connectedAt, c.handled_by AS handledBy
     FROM calls c INDEXED BY calls_open JOIN leads l ON l.id = c.lead_id
     WHERE c.status IN ('ringing', 'in_progress') AND c.org_id = ? AND c.livemode = 1 ORDER BY c.started, c.id LIMIT ?`,
  )
  // The partial index's own condition is repeated so SQLite may use it (it must be implied word for word).
  const callbacks = sqlite.query<FloorCallbackRow, [number, string, number, number, number]>(
    `SELECT id AS leadId, campaign_id AS campaignId, name AS leadName, phone AS leadPhone, callback_at AS callbackAt
     FROM leads INDEXED BY leads_waiting_due
     WHERE status IN ('scheduled', 'callback_scheduled') AND due_at >= ? AND status = 'callback_scheduled'
       AND org_id = ? AND livemode = 1 AND callback_at >= ? AND callback_at < ? ORDER BY callback_at, id LIMIT ?`,
  )
  // Talk time: from the connection to the end where the ledger has the connection, else the call's duration.
  const people = sqlite.query<FloorPersonRow, [string, string, number]>(
    `SELECT json_extract(handled_by, '$.id') AS id, json_extract(handled_by, '$.name') AS name, json_extract(handled_by, '$.role') AS role,
       count(*) AS callsTaken,
       coalesce(sum(CASE WHEN ended IS NULL THEN 0 WHEN connected_at IS NOT NULL THEN max(0, ended - connected_at) / 1000.0 ELSE coalesce(duration_seconds, 0) END), 0) AS talkSeconds,
       avg(tth_seconds) AS handoverSeconds
     FROM calls WHERE org_id = ? AND livemode = 1 AND id >= ? AND started >= ?
       AND json_extract(handled_by, '$.role') IN ('sdr', 'closer') AND json_extract(handled_by, '$.id') IS NOT NULL
     GROUP BY 1, 2, 3 ORDER BY callsTaken DESC, name LIMIT 200`,
  )
  return {
    /** The organization's live calls not ended, oldest first (at most `limit`). */
    openCalls(orgId: string, limit: number): FloorCallRow[] {
      return open.all(orgId, limit).map((row) => ({ ...row, handledBy: JSON.parse(row.handledBy) as HandledBy }))
    },
    /** Callbacks booked in [from, to) still waiting to be dialed, soonest first. */
    callbacksBetween(orgId: string, from: number, to: number, limit: number): FloorCallbackRow[] {
      return callbacks.all(from, orgId, from, to, limit)
    },
    /** Calls each person took since `since` (started then or later), most first. */
    peopleSince(orgId: string, since: number): FloorPersonRow[] {
      return people.all(orgId, firstUuidAt(since), since)
    },
  }
}

export type FloorStore = ReturnType<typeof floorStore>
