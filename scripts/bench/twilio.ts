/**
 * Twilio benchmark (issue 18): signed Twilio callbacks a second with their latency, and the
 * dialer's scheduling delay with 200 live calls up on one campaign, each beside a reference
 * measured in the same run. Needs wrk (`apt-get install -y wrk`).
 *
 *   bun run scripts/bench/twilio.ts [--calls 200] [--lines 10] [--seconds 5] [--rounds 3]
 *     [--connections 32] [--dial-lines 200] [--dial-leads 2000] [--speed 50] [--no-callbacks] [--no-dial]
 *
 * Part 1 (twilio-callbacks.ts): the service as a child process, wrk sending signed status and
 * transcription callbacks for `calls` open calls; reference: GET /healthz on the same service.
 * Rounds interleaved; each figure is the median round by throughput.
 * Part 2 (twilio-dial.ts): the service in this process, the emulator in its own; the dialer's
 * delays with `dial-lines` calls up through Twilio; reference: the same campaign on the simulator.
 *
 * Targets (2-core machine): >= 1,000 callbacks/s with p99 < 50 ms; dialer delay p99 < 50 ms
 * with 200 concurrent live calls on a campaign.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { callbackBench } from './twilio-callbacks'
import { dialDelayBench } from './twilio-dial'
import { fmt, log, medianBy, percentile, printTable, requireWrk, verdict, type Child } from './lib'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '200' },
    lines: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'dial-lines': { type: 'string', default: '200' },
    'dial-leads': { type: 'string', default: '2000' },
    speed: { type: 'string', default: '50' },
    'no-callbacks': { type: 'boolean', default: false },
    'no-dial': { type: 'boolean', default: false },
  },
})

const work = mkdtempSync(join(tmpdir(), 'dialer-bench-twilio-'))
const procs: Child[] = []
let exitCode = 0
try {
  log(`Twilio benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs; work dir ${work}`)
  const rows: string[][] = [['measure', 'figure', 'target', '']]
  if (!values['no-callbacks']) {
    requireWrk()
    const cb = await callbackBench({
      work, calls: Number(values.calls), lines: Number(values.lines), seconds: Number(values.seconds),
      rounds: Number(values.rounds), connections: Number(values.connections), procs,
    })
    const callbacks = medianBy(cb.rounds.map((r) => r.callbacks), (r) => r.rps)
    const health = medianBy(cb.rounds.map((r) => r.health), (r) => r.rps)
    const bad = cb.rounds.reduce((sum, r) => sum + r.callbacks.bad, 0)
    const firstBad = cb.rounds.find((r) => r.callbacks.firstBad)?.callbacks.firstBad
    rows.push([`callbacks: ${cb.calls} open calls, ${fmt(cb.requests)} signed callbacks in turn, c${values.connections}`, '', '', ''])
    rows.push(['  signed Twilio callbacks (status, transcription)', `${fmt(callbacks.rps)}/s, p50 ${callbacks.p50.toFixed(2)} ms, p99 ${callbacks.p99.toFixed(2)} ms, bad ${bad}`,
      '>= 1,000/s, p99 < 50 ms', verdict(callbacks.rps >= 1000 && callbacks.p99 < 50 && bad === 0)])
    rows.push(['  GET /healthz, same service (reference)', `${fmt(health.rps)}/s, p50 ${health.p50.toFixed(2)} ms, p99 ${health.p99.toFixed(2)} ms`, '(reference)', ''])
    if (firstBad) log(`first bad callback reply: ${firstBad}`)
    if (bad > 0) exitCode = 1
  }
  if (!values['no-dial']) {
    const figures = await dialDelayBench({ work, lines: Number(values['dial-lines']), leads: Number(values['dial-leads']), speed: Number(values.speed), procs })
    rows.push([`dialer: one campaign, ${values['dial-lines']} lines, ${values['dial-leads']} leads, calls at speed ${values.speed}`, '', '', ''])
    for (const f of figures) {
      const p = (q: number) => percentile(f.delays, q).toFixed(1)
      const twilio = f.name.startsWith('Twilio')
      const reached = f.peakUp >= Number(values['dial-lines'])
      rows.push([`  ${f.name}: due -> dialed`, `p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${p(1)} ms; ${fmt(f.calls)} calls in ${fmt(f.seconds, 1)} s, ${f.peakUp} up at most`,
        twilio ? 'p99 < 50 ms, 200 up' : '(reference)', twilio ? verdict(percentile(f.delays, 0.99) < 50 && reached) : ''])
      if (f.calls < f.leads || f.viaTwilio !== (twilio ? f.calls : 0)) {
        log(`PROBLEM: ${f.name}: ${f.calls} calls for ${f.leads} leads, ${f.viaTwilio} through Twilio`)
        exitCode = 1
      }
    }
  }
  log('')
  printTable(rows)
  log('\nnotes: "bad" counts non-200 replies and socket errors; a callback run with any is a failed run.' +
    ' Callbacks after the first pass are replays (Twilio may send one twice): checked, matched and answered without a change.' +
    ' "due -> dialed" is what the dialer records (a lead next with a free line -> call started; the carrier is asked once that commits).')
} catch (error) {
  console.error(error)
  exitCode = 1
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
