import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { addLead, callOf, CALLER_NY, eventTypes, ny, setupTelnyx } from './telnyx-world'

setDefaultTimeout(60_000)

// Live calls through Telnyx TeXML, in process against the Telnyx emulator (telnyx-world.ts).

describe('live calls through Telnyx', () => {
  test('a person answers, the SDR presses 1 and takes it; JSON create with Bearer, callbacks under /telnyx/, the recording downloaded', async () => {
    const w = await setupTelnyx()
    const leadId = await addLead(w, ny('00'))
    const call = await callOf(w, leadId, (c) => c.status === 'ended' && c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: 'Alex Rivera', role: 'sdr' })
    const create = w.emulator.received.find((r) => r.method === 'POST' && /\/Calls$/.test(r.path))!
    expect(create.contentType).toContain('application/json')
    expect(create.params.To).toBe(ny('00'))
    expect(create.params.From).toBe(CALLER_NY)
    expect(create.params.MachineDetection).toBe('DetectMessageEnd')
    const publicUrl = w.h.services.config.publicUrl
    for (const name of ['Url', 'StatusCallback', 'AsyncAmdStatusCallback', 'RecordingStatusCallback']) expect(String(create.params[name])).toStartWith(`${publicUrl}/telnyx/calls/${call.id}/`)
    expect(w.emulator.sent.filter((s) => s.status !== 200)).toEqual([])
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'handover.accepted'])
    const done = await callOf(w, leadId, (c) => c.recording_available)
    expect(done.recording_available).toBe(true)
  })

  test('an answering machine gets the voicemail: voicemail.left, outcome voicemail', async () => {
    const w = await setupTelnyx()
    const leadId = await addLead(w, ny('04'))
    const call = await callOf(w, leadId)
    expect(call.outcome).toBe('voicemail')
    expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.answered', 'voicemail.left', 'call.completed'])
  })

  for (const [nn, outcome] of [['02', 'no_answer'], ['03', 'busy'], ['05', 'failed']] as const) {
    test(`scenario ${nn} ends ${outcome}`, async () => {
      const w = await setupTelnyx()
      const leadId = await addLead(w, ny(nn))
      const call = await callOf(w, leadId)
      expect(call.outcome).toBe(outcome)
      expect(eventTypes(w, call.id)).toEqual(['call.started', 'call.completed'])
    })
  }
})
