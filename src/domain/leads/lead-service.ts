import { leadCalls } from './lead-calls'
import { leadChanges } from './lead-changes'
import { leadContactability } from './lead-contactability'
import { leadCore, type LeadDeps } from './lead-core'
import { leadHolds } from './lead-holds'
import { leadImport } from './lead-import'
import { leadIntake } from './intake'
import { leadReads } from './lead-reads'
import { leadWriter } from './lead-writer'
import { lateRing } from './late-ring'

export { DEFAULT_HANDLE_SECONDS, LATE_SWEEP_MS, type CallActivity, type HandleTimeSource, type LeadDeps, type SpendCap } from './lead-core'
export { INTAKE_CHECKS, MAX_API_CALLS_PER_DAY, MAX_RUNNING_TEST_CALLS, MAX_WAITING_API_LEADS } from './intake-checks'
export type { IntakeOutcome } from './intake'
export type { BatchResult, CallNowReply, IntakeReply } from './lead-shape'
export type { LeadPatch } from './lead-changes'
export type { DncSource } from '../dnc/dnc-service'

/**
 * Leads, from intake to their last call. Each concern is a module of its own:
 * - lead-core.ts: writing a lead (SQLite first, then the dial queue and the due timer), placing it, its events; the ports
 * - intake-checks.ts: the ordered list of intake checks; intake.ts: POST /leads and the batch;
 *   lead-import.ts: CSV imports; lead-writer.ts: the lead row both write, their differences named
 * - lead-reads.ts: views and reads; lead-changes.ts: PATCH, opt-out, take out of queue, a number on Do Not Call
 * - lead-calls.ts: what the dialer and calls tell a lead, and POST /calls
 * - lead-holds.ts: pause and spend-cap holds, the late sweep, the boot restore
 * Other services' reactions (a campaign's status, a spend cap, a Do Not Call entry) are wired in src/services.ts.
 */
export function leadService(deps: LeadDeps) {
  const core = leadCore(deps)
  const reads = leadReads(core)
  const writer = leadWriter(core)
  const intake = leadIntake(core, writer)
  const imports = leadImport(core, deps.imports, writer)
  const changes = leadChanges(core, reads)
  const calls = leadCalls(core, reads, intake)
  const holds = leadHolds(core)
  const contact = leadContactability(core, reads, core.rules, deps.registry)
  return {
    // POST /leads, POST /leads/batch
    intake: intake.intake,
    intakeBatch: intake.intakeBatch,
    // CSV import (admin API, CLI, console): the intake rules, no events
    importCsv: imports.run,
    // reads
    get: reads.get,
    findByExternalId: reads.findByExternalId,
    list: reads.list,
    listForCampaign: reads.listForCampaign,
    view: reads.view,
    contactability: contact.contactability,
    // changes
    patch: changes.patch,
    optOut: changes.optOut,
    takeOutOfQueue: changes.takeOutOfQueue,
    numberBlocked: changes.numberBlocked,
    // the dialer's and the call service's side (inside their transactions), POST /calls
    beginCall: calls.beginCall,
    replace: calls.replace,
    atDial: calls.atDial,
    callAnswered: calls.callAnswered,
    callEnded: calls.callEnded,
    callRinging: lateRing(core),
    callNow: calls.callNow,
    // holds, sweep, boot
    spendCapChanged: holds.spendCapChanged,
    campaignStatusChanged: holds.campaignStatusChanged,
    markLate: holds.markLate,
    restore: holds.restore,
  }
}

export type LeadService = ReturnType<typeof leadService>

/** What the call service tells a lead as its call goes on. */
export type LeadCallSide = Pick<LeadService, 'beginCall' | 'callAnswered' | 'callEnded' | 'callRinging'>
/** What the dialer tells a lead whose turn came when it may not be called. */
export type LeadRequeue = Pick<LeadService, 'replace' | 'atDial'>
