/**
 * Dialer benchmark: 50 campaigns x 20 lines dialing 100,000 queued leads through to
 * call.completed on the simulator (DIALER_SIM_SPEED 1000: a 30-second call lasts 30 ms), then
 * GET /calls with 1,000,000 calls stored. Needs wrk (`apt-get install -y wrk`).
 *
 *   bun run scripts/bench/dialer.ts [--leads 100000] [--campaigns 50] [--lines 20] [--speed 1000]
 *     [--calls 1000000] [--list-orgs 4] [--list-campaigns 5] [--seconds 5] [--rounds 3]
 *     [--connections 8] [--warmup 2] [--stall 30] [--no-dial] [--no-list] [--keep]
 *
 * How, part 1 (dialing), in this process:
 * - createServices(loadConfig({ DIALER_DATA_DIR, DIALER_SIM_SPEED, ... }), { autoDial: false })
 *   on a real database file (WAL, synchronous NORMAL, the checkpointer worker: as served), real
 *   timers; the clock shifted to 09:00 New York (dialer-dial.ts) so the calling rules'
 *   08:00-21:00 window stays open for the run. One organization, N active campaigns (lines L,
 *   one SDR, calling hours 08:00-21:00) through services.campaigns.create.
 * - The services are closed, the leads written straight into SQLite as queued imports (queue
 *   order = insertion order, spread round-robin over the campaigns; unique New York numbers whose
 *   last two digits are 16-99, so every call takes the simulator's realistic pseudo-random mix of
 *   scenarios), and the services made again on that file: boot rebuilds the dial queues.
 * - services.dialer.setEnabled(true) starts dialing; the run ends when no lead is queued and no
 *   call is up. Retries do not re-enter the run: retry_minutes is 60 on the real clock and
 *   callbacks are booked for hours later, so each lead is called exactly once (checked).
 * - Figures: calls completed per second (call.ended with its outcome, line freed) and event rows
 *   per second over the wall time from setEnabled(true) to the last call ending; the dialer's own
 *   delays, recorded only because this bench asks (`dialer.measureDelays()`; a running service
 *   keeps none) (a lead next with a free line -> dialed, what the target is about); and, for
 *   reference, the same delay counted from the moment the carrier's end-of-call timer was due
 *   (so it includes event-loop lag while the process is saturated); peak RSS; CPU time.
 *
 * Part 2 (GET /calls), as a child process like the other benchmarks:
 * - `bun run src/main.ts serve` on a fresh data directory; organizations, campaigns and a live
 *   key per organization through the admin API; stopped; plan and key limits raised in SQLite
 *   (so rate limits are not what is measured); 1,000,000 ended calls (and their leads, two calls
 *   a lead) inserted in one transaction with prepared statements (indexes dropped and rebuilt);
 *   started again (boot time printed: boot recovery reads the open calls).
 * - wrk at 8 connections: GET /api/v1/external/calls?limit=50 (each organization's key in turn),
 *   the same with campaign_id, and with starting_after a call id from the middle of the
 *   organization's calls. Rounds interleaved; each figure is the median round by p99.
 *
 * Targets (2-core machine): >= 2,000 simulated calls completed per second; dialer scheduling
 * delay p99 < 50 ms; GET /calls p99 < 10 ms with 1,000,000 calls stored.
 *
 * Modules: dialer-setup.ts (options, work directory, phone numbers), dialer-dial.ts (part 1),
 * dialer-list.ts (part 2); this file runs them and prints the report.
 */
import { rmSync } from 'node:fs'
import { dialBench } from './dialer-dial'
import { listBench } from './dialer-list'
import { connections, doDial, doList, rounds, speed, values, work } from './dialer-setup'
import { fmt, log, percentile, printTable, requireWrk, verdict, type Child } from './lib'

if (doList) requireWrk()

// ---- run ----

const procs: Child[] = []
let exitCode = 0
try {
  log(`Dialer benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs; work dir ${work}`)
  const dial = doDial ? await dialBench() : null
  if (dial) {
    log(`\nlead statuses after the run: ${dial.leadStatuses}`)
    log(`event rows by type: ${dial.eventTypes}`)
    for (const p of dial.problems) log(`PROBLEM: ${p}`)
    log('')
  }
  const list = doList ? await listBench(procs) : null

  const rows: string[][] = [['measure', 'figure', 'target', '']]
  if (dial) {
    const seconds = dial.wallMs / 1000
    const cps = dial.completed / seconds
    const p = (a: Float64Array, q: number) => percentile(a, q).toFixed(0)
    rows.push([`dialing: ${fmt(dial.leads)} leads, ${dial.campaigns} campaigns x ${dial.lines} lines, sim speed ${speed}`,
      `${fmt(dial.completed)} calls in ${fmt(seconds, 1)} s`, '', ''])
    rows.push(['  calls completed per second', `${fmt(cps)}/s`, '>= 2,000/s', verdict(cps >= 2000 && dial.problems.length === 0)])
    rows.push(['  event rows per second', `${fmt(dial.eventRows / seconds)}/s (${fmt(dial.eventRows)} rows)`, '(reference)', ''])
    rows.push(['  scheduling delay, due -> dialed (dialer delays)', `p50 ${p(dial.delays, 0.5)} ms, p99 ${p(dial.delays, 0.99)} ms, max ${p(dial.delays, 1)} ms (${fmt(dial.delays.length)})`,
      'p99 < 50 ms', verdict(percentile(dial.delays, 0.99) < 50)])
    rows.push(['  same from the end-of-call timer being due', `p50 ${p(dial.endToDial, 0.5)} ms, p99 ${p(dial.endToDial, 0.99)} ms, max ${p(dial.endToDial, 1)} ms`, '(reference)', ''])
    rows.push(['  end-of-call timer lag (event loop)', `p50 ${p(dial.timerLag, 0.5)} ms, p99 ${p(dial.timerLag, 0.99)} ms`, '(reference)', ''])
    rows.push(['  CPU time of this process over the run', `${fmt(dial.cpuSeconds, 1)} s (${fmt((dial.cpuSeconds / seconds) * 100)}% of one core)`, '(reference)', ''])
    rows.push(['  RSS: after boot / peak (VmHWM)', `${fmt(dial.rssBefore)} MB / ${fmt(dial.hwm)} MB`, '(reference)', ''])
    rows.push(['  boot with the leads queued (queues rebuilt)', `${fmt(dial.bootMs)} ms`, '(reference)', ''])
  }
  if (list) {
    rows.push([`GET /calls: ${fmt(list.calls)} calls stored, ${list.orgs} orgs, ${list.campaigns} campaigns, c${connections}`, `database ${fmt(list.dbMb)} MB`, '', ''])
    for (const r of list.results) {
      const bad = list.rounds.flat().filter((x) => x.name === r.name).reduce((sum, x) => sum + x.bad, 0)
      rows.push([`  ${r.name}`, `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${fmt(r.rps)} req/s, bad ${bad}`, 'p99 < 10 ms', verdict(r.p99 < 10 && bad === 0)])
    }
    rows.push([`  boot with ${fmt(list.calls)} calls stored`, `${fmt(list.bootMs)} ms to /healthz`, '(reference)', ''])
    rows.push(['  service RSS after the runs / peak', list.memory ? `${fmt(list.memory.rss)} MB / ${fmt(list.memory.hwm)} MB` : '?', '(reference)', ''])
  }
  log('')
  printTable(rows)
  log(
    '\nnotes: each lead is called once (retry_minutes 60 on the real clock, callbacks booked hours ahead, so no retry re-enters the run);' +
      ' "due -> dialed" is what the dialer records (lead next with a free line -> call started; the carrier is asked once that commits);' +
      ' the reference row adds the wait between a call\'s end timer being due and it running, which grows when the process is CPU-bound.' +
      (list ? ` GET /calls figures are the median round by p99 of ${rounds}; "bad" counts non-200 replies, pages without 50 calls and has_more, and socket errors.` : ''),
  )
  if (dial && dial.problems.length > 0) exitCode = 1
} catch (error) {
  console.error(error)
  exitCode = 1
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  if (values.keep) log(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}
