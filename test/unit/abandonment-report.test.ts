import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { buildAdminRequest } from '../../src/cli/admin-cli'
import { abandonmentReport } from '../../src/domain/calls/abandonment-report'
import { ApiError } from '../../src/errors'
import { FakeClock } from '../../src/jobs/clock'

setDefaultTimeout(60_000)

/**
 * The abandonment report's rules (src/domain/calls/abandonment-report.ts) on an injected clock
 * and ledger: the window is whole calendar days of the organization's zone ending today, each
 * day from local midnight to the next (23 or 25 hours across a clock change), the rate to 4
 * decimals; and the CLI command that asks for it.
 */

const HOUR = 3_600_000

function reportAt(now: number, zone: string, answeredIn: (from: number, to: number) => { answered: number; abandoned: number } = () => ({ answered: 0, abandoned: 0 })) {
  const ranges: [number, number][] = []
  let idsRange: [number, number, number] | null = null
  const reports = abandonmentReport({
    clock: new FakeClock(now),
    stores: {
      campaigns: { get: (id: string) => (id === 'camp-1' ? { id, orgId: 'org-1' } : undefined) } as never,
      orgs: { get: () => ({ timezone: zone }) } as never,
      ledger: {
        counts: () => ({ answered: 0, abandoned: 0 }),
        between: (_: string, from: number, to: number) => {
          ranges.push([from, to])
          return answeredIn(from, to)
        },
        abandonedIds: (_: string, from: number, to: number, limit: number) => {
          idsRange = [from, to, limit]
          return ['call-9']
        },
      },
    },
  })
  return { reports, ranges, idsRange: () => idsRange }
}

describe('the abandonment report', () => {
  test('days across the spring clock change in New York: local midnights, the 23-hour day included, oldest first', () => {
    // Tuesday 2026-03-10 09:00 New York (EDT); clocks went forward on Sunday the 8th.
    const now = Date.parse('2026-03-10T13:00:00Z')
    const { reports, ranges, idsRange } = reportAt(now, 'America/New_York')
    const r = reports.report('camp-1', 4)
    expect(r.by_day.map((d) => d.date)).toEqual(['2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10'])
    expect(ranges.map(([from]) => new Date(from).toISOString())).toEqual([
      '2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z', '2026-03-10T04:00:00.000Z',
    ])
    expect(ranges.map(([from, to]) => (to - from) / HOUR)).toEqual([24, 23, 24, 24])
    // Each day ends where the next begins; the ids come from the whole window, 1,000 at most.
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1])
    expect(idsRange()).toEqual([ranges[0]![0], ranges[3]![1], 1_000])
    expect(r.abandoned_call_ids).toEqual(['call-9'])
  })

  test('today is the organization\u2019s today: 23:30 UTC is already tomorrow in Tokyo', () => {
    const { reports } = reportAt(Date.parse('2026-01-05T23:30:00Z'), 'Asia/Tokyo')
    expect(reports.report('camp-1', 2).by_day.map((d) => d.date)).toEqual(['2026-01-05', '2026-01-06'])
    const month = reportAt(Date.parse('2026-03-01T12:00:00Z'), 'UTC').reports.report('camp-1')
    expect(month.days).toBe(30)
    expect(month.by_day[0]!.date).toBe('2026-01-31')
    expect(month.by_day[29]!.date).toBe('2026-03-01')
  })

  test('totals are the sum of the days; the rate is rounded to 4 decimals, 0 with no answered call', () => {
    const now = Date.parse('2026-01-05T15:00:00Z')
    let day = 0
    const { reports } = reportAt(now, 'UTC', () => (day++ === 0 ? { answered: 2, abandoned: 1 } : { answered: 1, abandoned: 0 }))
    expect(reports.report('camp-1', 3)).toMatchObject({ answered_by_person: 4, abandoned: 1, rate: 0.25 })
    day = 0
    const { reports: thirds } = reportAt(now, 'UTC', () => (day++ === 0 ? { answered: 3, abandoned: 2 } : { answered: 0, abandoned: 0 }))
    expect(thirds.report('camp-1', 2).rate).toBe(0.6667)
    expect(reportAt(now, 'UTC').reports.report('camp-1', 5)).toMatchObject({ answered_by_person: 0, abandoned: 0, rate: 0 })
  })

  test('days outside 1-90 or not whole: invalid_request param days; an unknown campaign: not_found', () => {
    const { reports } = reportAt(Date.parse('2026-01-05T15:00:00Z'), 'UTC')
    for (const days of [0, 91, 1.5, Number.NaN]) {
      const error = (() => { try { reports.report('camp-1', days) } catch (e) { return e } })() as ApiError
      expect(error).toBeInstanceOf(ApiError)
      expect([error.code, error.param]).toEqual(['invalid_request', 'days'])
    }
    expect(() => reports.report('camp-2', 30)).toThrow(expect.objectContaining({ code: 'not_found' }))
  })
})

describe('dialer admin campaign abandonment', () => {
  test('GET /campaigns/{id}/abandonment, --days as the query', () => {
    expect(buildAdminRequest(['campaign', 'abandonment', 'c1', '--days', '7'])).toEqual({ method: 'GET', path: '/campaigns/c1/abandonment?days=7', body: undefined })
    expect(buildAdminRequest(['campaign', 'abandonment', 'c1'])).toEqual({ method: 'GET', path: '/campaigns/c1/abandonment', body: undefined })
  })
})
