import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RuleView } from '../../src/domain/calling-rules/contract'
import { RECORDING_RULES } from '../../src/domain/calling-rules/recording-rules'
import { CANADA_HOURS, FEDERAL_HOURS, RULES_VERSION, STATE_RULES } from '../../src/domain/calling-rules/state-rules'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** docs/calling-rules.md "The rules" is the table in state-rules.ts, word for word; "Recording consent" is recording-rules.ts. */

const DOCS = join(import.meta.dir, '../../docs/calling-rules.md')
const HEADER = '| Rule | Kind | Rule says | Source | Effective | Note |'
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

function says(r: RuleView): string {
  if (r.kind === 'day') return `no calls on ${r.days!.map((d) => DAYS[d]).join(', ')}`
  if (r.kind === 'holiday') return 'no calls on state holidays'
  const cap = r.max !== undefined ? `at most ${r.max} per rolling ${r.period_hours} h` : ''
  if (!r.hours) return cap
  const hours = r.hours.map((h) => {
    const on = h.weekdays
      ? ` ${h.weekdays.length === 1 ? DAYS[h.weekdays[0]!] : `${DAYS[h.weekdays[0]!]}-${DAYS[h.weekdays.at(-1)!]}`}`
      : h.days && h.days !== 'all' ? ` ${h.days}` : ''
    return `${h.start}-${h.end}${on}`
  }).join(', ')
  const holiday = r.holiday_hours ? `, ${r.holiday_hours.start}-${r.holiday_hours.end} on state holidays` : ''
  const zone = r.timezone ? ` (${r.timezone})` : ''
  return [`${hours}${holiday}${zone}`, cap].filter(Boolean).join('; ')
}

function expectedTable(): string {
  const rows = [FEDERAL_HOURS, CANADA_HOURS, ...Object.keys(STATE_RULES).sort().flatMap((s) => STATE_RULES[s]!)]
  return [
    `Table version \`${RULES_VERSION}\`.`,
    '',
    HEADER,
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| \`${r.id}\` | ${r.kind} | ${says(r)} | ${r.source} | ${r.effective ?? 'not known'} | ${r.note ?? ''} |`),
  ].join('\n')
}

function docsTable(): string {
  const lines = readFileSync(DOCS, 'utf8').split('\n')
  const start = lines.findIndex((line) => line.startsWith('Table version `'))
  if (start < 0) return ''
  let end = start + 2
  while (end < lines.length && lines[end]!.startsWith('|')) end++
  return lines.slice(start, end).join('\n')
}

describe('docs/calling-rules.md', () => {
  test('lists every rule of the table with its source and effective date (on failure, paste the expected table)', () => {
    expect(docsTable()).toBe(expectedTable())
  })

  test('lists every recording-consent row with its statute', () => {
    const docs = readFileSync(DOCS, 'utf8')
    for (const r of Object.values(RECORDING_RULES)) expect(docs).toContain(`| \`${r.id}\` | ${r.state} | ${r.source} | ${r.note ?? ''} |`)
  })
})
