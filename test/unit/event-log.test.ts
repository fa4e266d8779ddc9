import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { EventRow, EventStore } from '../../src/db/stores/event-store'
import { eventLog, newEventId } from '../../src/domain/events/event-log'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** The event log's stored bodies: an object passed already serialized gives the same text. */
describe('eventLog.record', () => {
  const stored: EventRow[] = []
  const log = eventLog({
    events: { insert: (row: EventRow) => stored.push(row), lastSeq: () => null } as unknown as EventStore,
    clock: new FakeClock(Date.UTC(2026, 0, 5, 15, 0, 0, 123)),
    apiVersion: '2026-01-01',
  })

  test.each([
    ['a lead', { id: 'l1', phone: '+12125550123', fields: { a: 'b "quoted"' }, calls: [], consent: null }],
    ['unicode and nesting', { name: 'Zoë – \u2028', nested: { list: [1, 2, { x: null }] }, flag: true }],
    ['empty', {}],
  ])('%s: objectJson gives the body JSON.stringify would', (_name, object) => {
    for (const livemode of [true, false]) {
      const base = { type: 'lead.created' as const, orgId: 'o', livemode, campaignId: 'c', objectId: 'l1', object }
      const plain = log.record(base)
      const given = log.record({ ...base, objectJson: JSON.stringify(object) })
      const [a, b] = stored.slice(-2) as [EventRow, EventRow]
      expect(b.body).toBe(JSON.stringify({ ...given }))
      expect(a.body).toBe(JSON.stringify(plain))
      expect(JSON.parse(b.body)).toEqual({ ...JSON.parse(a.body), id: given.id })
    }
  })

  test('an api_version that needs escaping is escaped alike in both bodies', () => {
    const rows: EventRow[] = []
    const odd = eventLog({
      events: { insert: (row: EventRow) => rows.push(row), lastSeq: () => null } as unknown as EventStore,
      clock: new FakeClock(Date.UTC(2026, 0, 5)),
      apiVersion: 'v"1\\2',
    })
    const base = { type: 'lead.queued' as const, orgId: 'o', livemode: false, campaignId: null, objectId: 'l1', object: { a: 1 } }
    odd.record(base)
    const given = odd.record({ ...base, objectJson: '{"a":1}' })
    expect(rows[1]!.body).toBe(JSON.stringify(given))
    expect(JSON.parse(rows[1]!.body).api_version).toBe('v"1\\2')
    expect(JSON.parse(rows[0]!.body)).toEqual({ ...JSON.parse(rows[1]!.body), id: rows[0]!.id })
  })

  test('event ids are evt_ and 32 hex digits, in time order', () => {
    const ids = Array.from({ length: 50 }, newEventId)
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{32}$/)
    expect([...ids].sort()).toEqual(ids)
  })
})
