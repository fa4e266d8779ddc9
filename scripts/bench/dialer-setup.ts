/** Options, work directory and phone numbers of the dialer benchmark (scripts/bench/dialer.ts). */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fmt } from './lib'

export const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '100000' },
    campaigns: { type: 'string', default: '50' },
    lines: { type: 'string', default: '20' },
    speed: { type: 'string', default: '1000' },
    calls: { type: 'string', default: '1000000' },
    'list-orgs': { type: 'string', default: '4' },
    'list-campaigns': { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    stall: { type: 'string', default: '30' },
    'no-dial': { type: 'boolean', default: false },
    'no-list': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
export const leadCount = Number(values.leads)
export const campaignCount = Number(values.campaigns)
export const lines = Number(values.lines)
export const speed = Number(values.speed)
export const callCount = Number(values.calls)
export const listOrgs = Number(values['list-orgs'])
export const listCampaigns = Number(values['list-campaigns'])
export const seconds = Number(values.seconds)
export const rounds = Number(values.rounds)
export const connections = Number(values.connections)
export const warmup = Number(values.warmup)
export const stallSeconds = Number(values.stall)
export const doDial = !values['no-dial']
export const doList = !values['no-list'] && callCount > 0
export const RAISED_LIMIT = 100_000_000
export const THREADS = 2

export const work = mkdtempSync(join(tmpdir(), 'dialer-bench-dialer-'))

// ---- phone numbers ----

// Number i -> +1 AAA EEE HH TT: TT (last two digits) 16-99, so the simulator picks the scenario
// from its realistic mix by call id (00-15 are scripted scenarios, 15 waits for a person's
// outcome); HH 00 or 02-99 (never 555-01XX); exchange 200-899; area 212, 646, then 917.
const AREAS = ['212', '646', '917']
const PER_AREA = 84 * 99 * 700
export function phone(i: number): string {
  const tail = 16 + (i % 84)
  let rest = Math.floor(i / 84)
  const hi = rest % 99
  rest = Math.floor(rest / 99)
  const exchange = 200 + (rest % 700)
  const area = AREAS[Math.floor(rest / 700)]
  if (!area) throw new Error(`phone ${i}: out of numbers (${fmt(PER_AREA * AREAS.length)})`)
  return `+1${area}${exchange}${String(hi === 0 ? 0 : hi + 1).padStart(2, '0')}${String(tail).padStart(2, '0')}`
}
