import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CampaignRow } from '../../src/db/stores/campaign-store'
import { callingRules } from '../../src/domain/calling-rules'
import type { LeadReach } from '../../src/domain/calling-rules/contract'
import type { RulesLead } from '../../src/domain/leads/lead-rules'
import { dialVerdict, hoursBlocks } from '../../src/domain/leads/window-margin'
import type { CallEvents } from '../../src/telephony/carrier'
import { initialCarrierState, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { runStep, type RestAction } from '../../src/telephony/twilio/callback-steps'

setDefaultTimeout(60_000)

// The window-end margin (docs/decisions.md, issue 27 "Window margin"): a dial is asked of the
// carrier only while the lead's window stays open for the margin, and a Twilio call that rings
// after the window closed is cancelled, never connected. Instants are passed in (no clock read).

const LEAD: RulesLead = { phone: '+12125552000', address: null, orgId: 'org-1', livemode: true }
const campaign = (end = '21:00') => ({ callingHoursStart: '08:00', callingHoursEnd: end }) as CampaignRow
/** The engine's verdict as leadRulesOf gives it, for a lead without call history. */
const rules = {
  reachOf: (lead: RulesLead) => callingRules.reachOf(lead.phone, lead.address, 'America/New_York'),
  verdict: (lead: RulesLead, c: Pick<CampaignRow, 'callingHoursStart' | 'callingHoursEnd'>, now: number, opts: { reach?: LeadReach } = {}) =>
    callingRules.evaluate({
      reach: opts.reach ?? callingRules.reachOf(lead.phone, lead.address, 'America/New_York'),
      campaignWindow: { start: c.callingHoursStart, end: c.callingHoursEnd },
      callTimes: [],
      now,
    }),
}
// Tuesday 6 January 2026, New York (EST, UTC-5): 20:58:59 local is 01:58:59Z on the 7th.
const local = (hms: string) => Date.parse(`2026-01-07T${String(Number(hms.slice(0, 2)) - 19).padStart(2, '0')}${hms.slice(2)}Z`)
const NEXT_MORNING = Date.parse('2026-01-07T13:00:00Z')

describe('dialVerdict: the window must stay open for the margin', () => {
  test('20:58:59 local with 60 s: dialed (open until 20:59:59)', () => {
    const verdict = dialVerdict(rules, LEAD, campaign(), local('20:58:59'), 60_000)
    expect(verdict.allowed).toBe(true)
  })

  test('20:59:01 local with 60 s: deferred to 08:00 next morning, naming the rules that close at 21:00', () => {
    const now = local('20:59:01')
    // The rules alone allow it.
    expect(rules.verdict(LEAD, campaign(), now).allowed).toBe(true)
    const verdict = dialVerdict(rules, LEAD, campaign(), now, 60_000)
    expect(verdict.allowed).toBe(false)
    expect(verdict.reason).toBe('outside_calling_hours')
    expect(verdict.nextAllowedAt).toBe(NEXT_MORNING)
    expect(verdict.blockedBy.map((b) => b.rule_id).sort()).toEqual(['US-hours', 'campaign-hours'])
    expect(verdict.blockedBy.every((b) => b.until === NEXT_MORNING)).toBe(true)
  })

  test('the rule named is the one that closes: a campaign ending at 20:00 is deferred by campaign-hours alone', () => {
    const verdict = dialVerdict(rules, LEAD, campaign('20:00'), local('19:59:30'), 60_000)
    expect(verdict.blockedBy.map((b) => b.rule_id)).toEqual(['campaign-hours'])
    expect(verdict.nextAllowedAt).toBe(NEXT_MORNING)
  })

  test('margin 0: dialed up to the last second of the window', () => {
    expect(dialVerdict(rules, LEAD, campaign(), local('20:59:59'), 0).allowed).toBe(true)
    expect(dialVerdict(rules, LEAD, campaign(), local('20:59:59'), 1_000).allowed).toBe(false)
  })

  test('a lead the rules block now keeps the verdict at now (the margin adds nothing)', () => {
    const now = local('21:00:30')
    expect(dialVerdict(rules, LEAD, campaign(), now, 60_000)).toEqual(rules.verdict(LEAD, campaign(), now))
  })

  test('hoursBlocks leaves caps out (this call is one of the calls a cap counts)', () => {
    const blocks = hoursBlocks({ blockedBy: [{ rule_id: 'FL-cap', reason: 'recent_contact_cooldown', until: 1 }, { rule_id: 'FL-hours', reason: 'outside_calling_hours', until: 2 }] })
    expect(blocks.map((b) => b.rule_id)).toEqual(['FL-hours'])
  })
})

const SID = `CA${'b'.repeat(32)}`
const PLAN: CallPlan = {
  to: '+12125552000', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Alex Rivera', machineDetection: true, record: false,
  bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' }], voicemail: { say: 'Hi from Acme Roofing.' },
}

/** Runs callbacks through runStep with a service that answers `open` when asked whether the call may ring. */
function drive(open: boolean | undefined, callbacks: [CallbackStep, Record<string, string>][], plan: CallPlan = PLAN) {
  const told: string[] = []
  const events: CallEvents = {
    answered: (_, by) => void told.push(`answered ${by}`),
    intent: () => {},
    handover: () => void told.push('handover'),
    ended: (_, report) => void told.push(`ended ${report.outcome}`),
    transcribed: () => {},
    recorded: () => {},
    ...(open === undefined ? {} : { ringing: () => (told.push('ringing?'), open) }),
  }
  let state: CarrierState = initialCarrierState(plan)
  const actions: RestAction[] = []
  const twiml: (string | null)[] = []
  for (const [step, params] of callbacks) {
    const result = runStep({ callId: 'call-1', plan, publicUrl: 'https://dialer.example.com', now: 0, events }, state, step, null, { CallSid: SID, ...params })
    state = result.state
    actions.push(...result.actions)
    twiml.push(result.twiml)
  }
  return { told, state, actions, twiml }
}

const status = (CallStatus: string): [CallbackStep, Record<string, string>] => ['status', { CallStatus }]

describe('a Twilio call that rings after the window closed', () => {
  test('ringing: the service is asked once; closed, the call is canceled at Twilio and nothing else is told', () => {
    const run = drive(false, [status('initiated'), status('ringing'), status('ringing'), status('canceled')])
    expect(run.told).toEqual(['ringing?'])
    expect(run.actions).toEqual([{ type: 'cancel' }])
    expect(run.state.windowClosed).toBe(true)
    // The final status closes the carrier's row: reported and ended.
    expect(run.state.reported).toBe(true)
    expect(run.state.life.stage).toBe('ended')
  })

  test('answered before the cancel took: the answer hangs up, AMD and the bridge never run', () => {
    const run = drive(false, [status('ringing'), ['answer', {}], status('in-progress'), ['amd', { AnsweredBy: 'human' }], ['bridge', {}], status('completed')])
    expect(run.told).toEqual(['ringing?'])
    expect(run.actions).toEqual([{ type: 'cancel' }])
    expect(run.twiml[1]).toContain('<Hangup')
    expect(run.twiml[4]).toContain('<Hangup')
    expect(run.twiml.join('')).not.toContain('<Dial')
  })

  test('no ringing came: the in-progress status asks, and an answered call is ended (Status=completed)', () => {
    const run = drive(false, [status('in-progress'), ['answer', {}]])
    expect(run.told).toEqual(['ringing?'])
    expect(run.actions).toEqual([{ type: 'hang-up' }])
    expect(run.twiml[1]).toContain('<Hangup')
  })

  test('the answer fetch first, without detection: it hangs up instead of bridging', () => {
    const run = drive(false, [['answer', {}]], { ...PLAN, machineDetection: false })
    expect(run.told).toEqual(['ringing?'])
    expect(run.twiml[0]).toContain('<Hangup')
    expect(run.twiml[0]).not.toContain('<Dial')
    expect(run.actions).toEqual([])
  })

  test('open: the call goes on as before (asked once), and a service without the question is never asked', () => {
    const open = drive(true, [status('ringing'), status('in-progress'), ['amd', { AnsweredBy: 'human' }]])
    expect(open.told).toEqual(['ringing?', 'answered person'])
    expect(open.actions).toEqual([{ type: 'redirect', step: 'bridge' }])
    const absent = drive(undefined, [status('ringing'), status('in-progress'), ['amd', { AnsweredBy: 'human' }]])
    expect(absent.told).toEqual(['answered person'])
  })
})
