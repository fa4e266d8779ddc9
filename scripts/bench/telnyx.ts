/**
 * Telnyx benchmark: signed Telnyx callbacks a second with their latency, beside signed
 * Twilio callbacks and GET /healthz on the same service in the same run. Needs wrk.
 *
 *   bun run scripts/bench/telnyx.ts [--calls 200] [--lines 10] [--seconds 5] [--rounds 3]
 *     [--connections 32] [--telnyx-posts 20000]
 *
 * One service as a child process with two organizations (Twilio emulator, Telnyx emulator),
 * `calls` open calls each (telnyx-callbacks.ts). Rounds interleave Telnyx callbacks, Twilio
 * callbacks and /healthz; each figure is the median round by throughput. Every Telnyx post in a
 * run is distinct (no signature the service answers from its replay memory) unless a wrk thread
 * runs out of its share: those repeats are reported.
 *
 * Target (2-core machine): >= 1,000 Telnyx callbacks/s with p99 < 50 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { twoCarrierBench } from './telnyx-callbacks'
import { fmt, log, medianBy, printTable, requireWrk, verdict, type Child } from './lib'
import type { Rate } from './twilio-callbacks'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '200' },
    lines: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'telnyx-posts': { type: 'string', default: '20000' },
  },
})

const work = mkdtempSync(join(tmpdir(), 'dialer-bench-telnyx-'))
const procs: Child[] = []
let exitCode = 0
const load = () => loadavg().map((n) => n.toFixed(2)).join(', ')
try {
  requireWrk()
  log(`Telnyx benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, load average ${load()}; work dir ${work}`)
  const cb = await twoCarrierBench({
    work, calls: Number(values.calls), lines: Number(values.lines), seconds: Number(values.seconds), rounds: Number(values.rounds),
    connections: Number(values.connections), telnyxPosts: Number(values['telnyx-posts']), procs,
  })
  const median = (pick: (r: (typeof cb.rounds)[number]) => Rate) => medianBy(cb.rounds.map(pick), (r) => r.rps)
  const sum = (pick: (r: (typeof cb.rounds)[number]) => Rate, field: 'bad' | 'repeats') => cb.rounds.reduce((n, r) => n + pick(r)[field], 0)
  const figure = (r: Rate, bad: number) => `${fmt(r.rps)}/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, bad ${bad}`
  const telnyx = median((r) => r.telnyx)
  const twilio = median((r) => r.twilio)
  const health = median((r) => r.health)
  const telnyxBad = sum((r) => r.telnyx, 'bad')
  const twilioBad = sum((r) => r.twilio, 'bad')
  // `used` is the largest count of one wrk thread's repeats; two threads send at most twice that.
  const replays = cb.rounds.reduce((n, r) => n + r.telnyx.repeats * 2, 0)
  const telnyxSent = cb.rounds.reduce((n, r) => n + Math.round(r.telnyx.rps * Number(values.seconds)), 0)
  log(`per round (telnyx | twilio | healthz, requests/s and p99 ms): ${cb.rounds.map((r) => `${fmt(r.telnyx.rps)} ${r.telnyx.p99.toFixed(1)} | ${fmt(r.twilio.rps)} ${r.twilio.p99.toFixed(1)} | ${fmt(r.health.rps)} ${r.health.p99.toFixed(1)}`).join('; ')}`)
  const rows: string[][] = [['measure', 'figure', 'target', '']]
  rows.push([`callbacks: ${cb.calls} open calls per carrier, c${values.connections}, ${values.rounds} rounds of ${values.seconds} s`, '', '', ''])
  rows.push([`  signed Telnyx callbacks (Ed25519; ${fmt(cb.telnyxPosts)} distinct posts a round over ${fmt(cb.bodies.telnyx)} bodies)`, `${figure(telnyx, telnyxBad)}, replays ${replays > 0 ? `<= ${fmt(replays)} of ${fmt(telnyxSent)}` : '0'}`,
    '>= 1,000/s, p99 < 50 ms', verdict(telnyx.rps >= 1000 && telnyx.p99 < 50 && telnyxBad === 0)])
  rows.push([`  signed Twilio callbacks (HMAC; ${fmt(cb.bodies.twilio)} posts in turn), same service`, figure(twilio, twilioBad), '(reference)', ''])
  rows.push(['  GET /healthz, same service (reference)', `${fmt(health.rps)}/s, p50 ${health.p50.toFixed(2)} ms, p99 ${health.p99.toFixed(2)} ms`, '(reference)', ''])
  const firstBad = cb.rounds.find((r) => r.telnyx.firstBad)?.telnyx.firstBad ?? cb.rounds.find((r) => r.twilio.firstBad)?.twilio.firstBad
  if (firstBad) log(`first bad callback reply: ${firstBad}`)
  if (telnyxBad + twilioBad > 0) exitCode = 1
  log('')
  printTable(rows)
  log(`\nload average at the end: ${load()}`)
  log('notes: "bad" counts non-200 replies and socket errors; a run with any is a failed run.' +
    ' Telnyx posts after the first of each body carry another timestamp (a resend Telnyx signs afresh): verified, matched, nothing changed.' +
    ' Twilio posts after the first pass are the same bytes again (Twilio has no timestamp), checked and answered without a change.')
} catch (error) {
  console.error(error)
  exitCode = 1
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
