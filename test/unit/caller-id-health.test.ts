import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { callerIdHealth, type CallerIdHealthPorts } from '../../src/domain/caller-ids/caller-id-health'
import { declined, figuresOf, judge, judgeAll, MIN_CALLS, windowStart, type HealthCall } from '../../src/domain/caller-ids/health-rule'
import type { CallerIdHealthRow } from '../../src/db/stores/caller-id-store'
import type { OrgRow } from '../../src/db/stores/org-store'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const DAY = 24 * 60 * 60 * 1000
const T0 = Date.UTC(2026, 0, 5, 15)
const CAMPAIGN = '01890000-0000-7000-8000-0000000000c1'

type Kind = 'person' | 'machine' | 'no_answer' | 'declined' | 'busy' | 'failed_unrung'
/** One call of a kind on a number, started `ago` ms before T0. */
function call(callerId: string, kind: Kind, ago = 60_000, campaignId = CAMPAIGN): HealthCall {
  const started = T0 - ago
  const base: HealthCall = { callerId, campaignId, started, ended: started + 30_000, answered: null, answeredBy: null, rangAt: started + 1_000, durationSeconds: 0, outcome: 'no_answer', attestation: null }
  switch (kind) {
    case 'person': return { ...base, answered: started + 5_000, answeredBy: 'person', durationSeconds: 60, outcome: 'not_interested', attestation: 'A' }
    case 'machine': return { ...base, answered: started + 5_000, answeredBy: 'machine', durationSeconds: 20, outcome: 'voicemail' }
    case 'no_answer': return base
    case 'declined': return { ...base, ended: started + 3_500 }
    case 'busy': return { ...base, rangAt: null, ended: started + 500, outcome: 'busy' }
    case 'failed_unrung': return { ...base, rangAt: null, ended: started + 200, outcome: 'failed' }
  }
}
const many = (n: number, make: (i: number) => HealthCall) => Array.from({ length: n }, (_, i) => make(i))
/** n calls on a number, `answered` of them by a person, `declines` declined, the rest unanswered. */
const mix = (id: string, n: number, answered: number, declines = 0) =>
  many(n, (i) => call(id, i < answered ? 'person' : i < answered + declines ? 'declined' : 'no_answer', (i + 1) * 60_000))

describe('figures', () => {
  test('rates, the median talk time, declines and attestation; calls the carrier failed before any ring do not count', () => {
    const f = figuresOf([call('+1', 'person'), call('+1', 'machine'), call('+1', 'no_answer'), call('+1', 'declined'), call('+1', 'busy'), call('+1', 'failed_unrung')])
    expect(f.calls).toBe(5)
    expect(f.answered).toBe(2)
    expect(f.answer_rate).toBeCloseTo(0.4)
    expect(f.person_answered).toBe(1)
    expect(f.median_talk_seconds).toBe(40)
    expect(f.declined).toBe(2)
    expect(f.attestation).toEqual({ A: 1, B: 0, C: 0, not_reported: 4 })
    expect(figuresOf([]).answer_rate).toBeNull()
  })

  test('declined: within 3 s of the first ring and unanswered, or busy; 3.0 s is within, 3.001 s is not', () => {
    const at = (ms: number) => ({ ...call('+1', 'no_answer'), ended: T0 + ms, rangAt: T0 })
    expect(declined(at(3_000))).toBe(true)
    expect(declined(at(3_001))).toBe(false)
    expect(declined({ ...at(1_000), answered: T0 + 500 })).toBe(false)
    expect(declined(call('+1', 'busy'))).toBe(true)
  })
})

describe('the rule (table)', () => {
  // [name, number's calls, baseline's calls, the rule expected to fire]
  const cases: [string, HealthCall[], HealthCall[], string | null][] = [
    ['answer rate under half the baseline', mix('+A', 40, 4), mix('+B', 40, 20), 'answer_rate'],
    ['answer rate at exactly half is not under half', mix('+A', 40, 10), mix('+B', 40, 20), null],
    ['declines over 3x the baseline and over 20%', mix('+A', 40, 12, 12), mix('+B', 40, 14, 2), 'declines'],
    ['declines over 3x but under 20% of calls', mix('+A', 40, 14, 7), mix('+B', 40, 14, 1), null],
    ['declines at exactly 3x', mix('+A', 40, 14, 12), mix('+B', 40, 14, 4), null],
    ['a number below the minimum sample is not judged', mix('+A', MIN_CALLS - 1, 0), mix('+B', 40, 30), null],
    ['a baseline below the minimum sample judges nothing', mix('+A', 40, 0), mix('+B', MIN_CALLS - 1, 29), null],
    ['exactly the minimum on both sides is judged', mix('+A', MIN_CALLS, 0), mix('+B', MIN_CALLS, 20), 'answer_rate'],
    ['unrung carrier failures do not make up the sample', [...mix('+A', 29, 0), ...many(20, () => call('+A', 'failed_unrung'))], mix('+B', 40, 20), null],
    ['as good as the baseline', mix('+A', 40, 20, 2), mix('+B', 40, 20, 2), null],
  ]
  for (const [name, own, base, expected] of cases) {
    test(name, () => {
      expect(judge(CAMPAIGN, figuresOf(own), figuresOf(base))?.rule ?? null).toBe(expected as never)
    })
  }

  test('judgeAll: per campaign the number served, against that campaign\u2019s other numbers only', () => {
    const OTHER = '01890000-0000-7000-8000-0000000000c2'
    // In CAMPAIGN +A is as good as +B; in OTHER +A is poor but OTHER has no other number: no baseline, no verdict.
    const samples = new Map([
      ['+A', [...mix('+A', 40, 20), ...many(40, (i) => call('+A', 'no_answer', i * 1000, OTHER))]],
      ['+B', mix('+B', 40, 20)],
    ])
    expect(judgeAll(samples).size).toBe(0)
    // A poor third number in CAMPAIGN is judged against +A and +B together.
    samples.set('+C', mix('+C', 40, 2))
    const verdicts = judgeAll(samples)
    expect([...verdicts.keys()]).toEqual(['+C'])
    expect(verdicts.get('+C')!.baseline.calls).toBe(80)
  })

  test('the window: 30 days back, or from when the number came back into use', () => {
    expect(windowStart(T0, null)).toBe(T0 - 30 * DAY)
    expect(windowStart(T0, T0 - DAY)).toBe(T0 - DAY)
    expect(windowStart(T0, T0 - 40 * DAY)).toBe(T0 - 30 * DAY)
  })
})

/** The service over in-memory ports and a fake clock. */
function world(restDays = 7) {
  const clock = new FakeClock(T0)
  const rows = new Map<string, CallerIdHealthRow>()
  const calls: HealthCall[] = []
  const ports: CallerIdHealthPorts = {
    store: {
      healthOf: () => [...rows.values()],
      put: (row) => rows.set(row.callerId, row),
      recentCalls: (_org, id, since, limit) => calls.filter((c) => c.callerId === id && c.started >= since).sort((a, b) => b.started - a.started).slice(0, limit),
      orgsWithCarriers: () => ['org'],
    },
    org: () => ({ id: 'org', callerIdRestDays: restDays } as OrgRow),
    transaction: (work) => work(),
    carrierPool: () => [{ kind: 'twilio', weight: null, caller_ids: ['+A', '+B', '+C'] }],
    clock,
  }
  return { clock, rows, calls, health: callerIdHealth(ports) }
}

describe('resting', () => {
  test('a poor number is rested for the organization\u2019s days, left out of dials, then back with a fresh window', () => {
    const w = world(7)
    w.calls.push(...mix('+A', 40, 2), ...mix('+B', 40, 20), ...mix('+C', 40, 18))
    expect(w.health.checkAll()).toEqual({ orgs: 1, rested: 1 })
    const row = w.rows.get('+A')!
    expect(row.restedUntil).toBe(T0 + 7 * DAY)
    expect(row.evidence).toMatchObject({ rule: 'answer_rate', rest_days: 7, campaign_id: CAMPAIGN, number: { calls: 40 }, baseline: { calls: 80 } })
    expect(w.health.usable('org', ['+A', '+B'])).toEqual(['+B'])
    // Checked again while rested: nothing changes.
    expect(w.health.check('org')).toEqual([])
    // After the rest its old calls no longer count: not rested again on them.
    w.clock.set(T0 + 7 * DAY + 1)
    expect(w.health.usable('org', ['+A', '+B'])).toEqual(['+A', '+B'])
    expect(w.health.check('org')).toEqual([])
    expect(w.health.numbers('org').find((n) => n.caller_id === '+A')!.figures.calls).toBe(0)
  })

  test('every number offered rested: all are used', () => {
    const w = world()
    w.calls.push(...mix('+A', 40, 2), ...mix('+B', 40, 20), ...mix('+C', 40, 18))
    w.health.check('org')
    expect(w.health.usable('org', ['+A'])).toEqual(['+A'])
  })

  test('caller_id_rest_days 0: nothing is rested, the page still says the number is far below', () => {
    const w = world(0)
    w.calls.push(...mix('+A', 40, 2), ...mix('+B', 40, 20), ...mix('+C', 40, 18))
    expect(w.health.check('org')).toEqual([])
    expect(w.rows.size).toBe(0)
    const a = w.health.numbers('org').find((n) => n.caller_id === '+A')!
    expect(a.status).toBe('in_use')
    expect(a.far_below?.rule).toBe('answer_rate')
  })

  test('an owner puts a rested number back: in use now, its calls count from now; a number not listed is 404', () => {
    const w = world()
    w.calls.push(...mix('+A', 40, 2), ...mix('+B', 40, 20), ...mix('+C', 40, 18))
    w.health.check('org')
    w.clock.set(T0 + DAY)
    const back = w.health.putBack('org', '+A', 'owner@example.com (console)')
    expect(back.status).toBe('in_use')
    expect(back.figures.calls).toBe(0)
    expect(w.rows.get('+A')!.restedUntil).toBe(T0 + DAY)
    expect(w.health.usable('org', ['+A', '+B'])).toEqual(['+A', '+B'])
    expect(() => w.health.putBack('org', '+19999999999', 'x')).toThrow('No such caller ID')
  })
})
