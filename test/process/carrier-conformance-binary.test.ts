import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PLANS } from '../emulators/twilio/emulator-scenarios'
import { type CarrierDriver, type CarrierKind, carrierDriver, eventsOf } from './carrier-drivers'

setDefaultTimeout(90_000)

/**
 * One scenario table, both carriers: the emulators' lead scenarios (the last two digits of To,
 * test/emulators/twilio/emulator-scenarios.ts) dialed in parallel by the service as shipped
 * (DIALER_TEST_BINARY from an empty folder), its carrier set with `dialer admin org carrier` as an
 * operator would, recording on (the organization's default), every callback held, shuffled and
 * sent twice (seeded) by the emulator. Each scenario must end as its row says on Twilio and on
 * Telnyx alike; where Telnyx documents a difference (docs/telephony.md "Telnyx": transcripts of
 * the lead's side only) the row says so under `telnyx`, and nowhere else.
 */
const ADMIN = 'dat_conformance_bin_0123456789abcdef01'
// Emulated seconds per real second: slow enough that the service's own latency (real time) does
// not decide a race the scenario does not mean (scenario 10's lead hangs up 11 s after its AMD).
const SPEED = 5
const SDR_LINE = 'Hi, I can take it from here.'

interface Row {
  /** What the scenario is. */
  what: string
  outcome: string | null
  handled_by: 'sdr' | 'ai'
  /** The AnsweredBy the emulator's AMD callback told (null: none sent). */
  amd: string | null
  /** `answered_by` on the call.answered event (null: no such event). */
  answered_by: 'person' | 'machine' | null
  /** The events about the call and its lead (but lead.created and lead.queued), sorted: no opt-out or callback is guessed from words. */
  events: string[]
  recording: boolean
  /** The SDR's leg pressed 1 at the briefing (a Gather on their own leg, to this call's keypress step). */
  pressed: boolean
  /** The transcript's lines as `speaker: text`, sorted. */
  transcript: string[]
  /** What Telnyx documents differently for this row. */
  telnyx?: Partial<Omit<Row, 'what' | 'telnyx'>>
}

const lead = (nn: string) => PLANS[nn]!.lines.map(([, text]) => `lead: ${text}`)
const UNANSWERED = ['call.completed', 'call.started']
/** A person answers, the SDR hears the briefing and presses 1: the call is theirs (the outcome is theirs to file). */
const bridged = (nn: string, what: string, amd = 'human'): Row => ({
  what, outcome: null, handled_by: 'sdr', amd, answered_by: 'person', events: ['call.answered', 'call.started', 'handover.accepted'], recording: true, pressed: true,
  transcript: [...lead(nn), `agent: ${SDR_LINE}`].sort(),
  // Telnyx's transcription lines do not name their track: only the lead's side is asked for.
  telnyx: { transcript: lead(nn) },
})
const unanswered = (outcome: string, what: string): Row => ({ what, outcome, handled_by: 'ai', amd: null, answered_by: null, events: UNANSWERED, recording: false, pressed: false, transcript: [] })

const TABLE: Record<string, Row> = {
  '00': bridged('00', 'buying intent, bridged with press 1'),
  '01': bridged('01', 'not interested'),
  '02': unanswered('no_answer', 'no answer'),
  '03': unanswered('busy', 'busy'),
  '04': {
    what: 'a machine: the voicemail drop', outcome: 'voicemail', handled_by: 'ai', amd: 'machine_end_beep', answered_by: 'machine',
    events: ['call.answered', 'call.completed', 'call.started', 'voicemail.left'], recording: true, pressed: false, transcript: [],
  },
  '05': unanswered('failed', 'failed'),
  '06': bridged('06', 'asks for a callback'),
  '07': bridged('07', 'asks to stop calling'),
  '08': bridged('08', 'wrong number'),
  '09': {
    what: 'hangs up before anyone takes the call', outcome: 'hung_up', handled_by: 'ai', amd: 'human', answered_by: 'person',
    events: ['call.answered', 'call.completed', 'call.started'], recording: true, pressed: false, transcript: lead('09'),
  },
  '10': bridged('10', 'AMD unknown: a person', 'unknown'),
  '11': bridged('11', 'another language'),
  '12': bridged('12', 'a renter'),
  '13': bridged('13', 'unsure'),
  '14': bridged('14', 'buying intent, shorter call'),
  '15': bridged('15', 'buying intent, longer call'),
}

const CAMPAIGN = {
  name: 'Spring roofs', lines: 16,
  // Enough SDRs that every answered lead finds one free (their phones answer and press 1).
  sdrs: Array.from({ length: 12 }, (_, i) => ({ name: `SDR ${i + 1}`, phone: `+131255502${20 + i}` })),
  closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
  voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
}
const LEAD_INTAKE = new Set(['lead.created', 'lead.queued'])

for (const kind of ['twilio', 'telnyx'] as CarrierKind[]) {
  describe(`the lead scenarios on ${kind}, callbacks shuffled and sent twice`, () => {
    const driver: CarrierDriver = carrierDriver(kind, { prefix: `dialer-conformance-${kind}-`, adminToken: ADMIN, speed: SPEED, shuffle: { seed: 31, duplicate: 1 } })
    const phone = (nn: string) => `+1212555${kind === 'twilio' ? 60 : 70}${nn}`
    const seen = new Map<string, Promise<{ call: any; leadId: string }>>()

    beforeAll(async () => {
      await driver.start()
      const seeded = await driver.seedOrg(CAMPAIGN)
      expect(seeded.carrierOutput).not.toContain(driver.secret)
      expect(JSON.parse(seeded.carrierOutput).data.carrier).toMatchObject(driver.expectedCarrier)
      // Every lead at once; each row waits for its own call to end.
      for (const nn of Object.keys(TABLE)) {
        seen.set(nn, driver.addLead(phone(nn)).then(async (leadId) => {
          const done = (c: any) => c.status === 'ended' && (c.outcome !== null || c.handled_by?.role === 'sdr')
          await driver.callOf(leadId, done, 80_000)
          // The call's recording is told after its final status (and the doubled callbacks after that).
          const emulated = () => [...driver.emulator.calls.values()].find((c) => c.to === phone(nn))!
          await driver.emulator.settled(emulated().sid)
          return { call: await driver.callOf(leadId, done), leadId }
        }))
      }
    }, 40_000)
    afterAll(() => driver.close())

    for (const [nn, row] of Object.entries(TABLE)) {
      test(`${nn}: ${row.what}`, async () => {
        const want = { ...row, ...(kind === 'telnyx' ? row.telnyx : {}) }
        const { call, leadId } = await seen.get(nn)!
        const emulated = [...driver.emulator.calls.values()].find((c) => c.to === phone(nn))!
        const sent = driver.emulator.callbacksFor(emulated.sid)
        const events = (await eventsOf(driver, [call.id, leadId])).filter((e) => !LEAD_INTAKE.has(e.type))
        const transcript = await driver.api('GET', `/calls/${call.id}/transcript`)
        expect(transcript.status).toBe(200)
        const got = {
          outcome: call.outcome,
          handled_by: call.handled_by?.role,
          amd: sent.find((s) => s.kind === 'amd')?.params.AnsweredBy ?? null,
          answered_by: events.find((e) => e.type === 'call.answered')?.data.object.answered_by ?? null,
          events: [...new Set(events.map((e) => e.type))].sort(),
          recording: call.recording_available,
          pressed: driver.emulator.sent.some((s) => s.kind === 'gather' && s.params.Digits === '1' && s.url.startsWith(`${driver.base()}${driver.callbackPath(call.id)}`)),
          transcript: (transcript.body.data.lines as { speaker: string; text: string }[]).map((l) => `${l.speaker}: ${l.text}`).sort(),
        }
        expect(got).toEqual({ outcome: want.outcome, handled_by: want.handled_by, amd: want.amd, answered_by: want.answered_by, events: want.events, recording: want.recording, pressed: want.pressed, transcript: want.transcript })
        // Each event once, though every callback came twice and out of order.
        expect(events.length).toBe(got.events.length)
        expect(call.duration_seconds > 0).toBe(want.answered_by !== null)
        expect(call.transcript_available).toBe(want.transcript.length > 0)
        // Recording was asked at the dial; every callback reached the service (each twice) and was answered 200.
        expect(emulated.record).toBe(true)
        expect(sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status} ${s.body}`)).toEqual([])
        const final = sent.filter((s) => s.kind === 'status' && s.params.CallStatus === emulated.status)
        expect(final.length).toBe(2)
        expect(final.every((s) => s.url.startsWith(`${driver.base()}${driver.callbackPath(call.id)}`))).toBe(true)
        if (want.recording) {
          const link = await driver.api('GET', `/calls/${call.id}/recording`)
          expect(link.status).toBe(200)
          expect((await fetch(link.body.data.url)).status).toBe(200)
        }
      })
    }
  })
}
