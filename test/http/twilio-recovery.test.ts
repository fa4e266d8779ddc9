import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, scratchDir, type Harness } from '../harness'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { addLead, CALLER_NY, ny, setup, SID, TOKEN } from './twilio-world'

setDefaultTimeout(60_000)

// Restart safety for Twilio calls (issue 18, item 7): nothing stays dialing or on_call forever.

/**
 * One organization on Twilio (the emulator at `speed`) with a lead to `phone`, in a service that
 * can be stopped and started again on the same data: Twilio's callbacks fail while it is down.
 */
async function restartable(speed: number, phone: string) {
  const dir = scratchDir()
  const env = { DIALER_DATA_DIR: dir.path, DIALER_DATABASE: `${dir.path}/dialer.db` }
  let current: Harness | null = createHarness({ autoDial: true, env })
  const emulator = TwilioEmulator.start({
    accounts: [{ sid: SID, authToken: TOKEN }],
    speed,
    // While the service is down, Twilio's callbacks fail (Twilio does not retry them).
    fetch: (url, init) => (current ? current.app.handle(new Request(url, init)) : Promise.reject(new Error('connection refused'))),
  })
  const cleanup = async () => {
    await emulator.stop()
    current?.close()
    dir.remove()
  }
  const first = current
  try {
    const org = (await first.admin('POST', '/orgs', { name: 'Acme', plan_requests_per_minute: 100000 })).body.data.id
    const carrier = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER_NY], api_base_url: emulator.url }
    expect((await first.admin('PATCH', `/orgs/${org}`, { carrier })).status).toBe(200)
    const campaign = (await first.admin('POST', `/orgs/${org}/campaigns`, { name: 'C', status: 'active', sdrs: [{ name: 'Alex', phone: '+13125550150' }] })).body.data.id
    const live = await first.createKey(org, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
    const lead = (await first.api('POST', '/leads', { key: live, body: { campaign_id: campaign, phone } })).body.data.id
    return {
      first, emulator, lead, cleanup,
      /** The process stops: the harness closed, callbacks refused. */
      stop() {
        current = null
        first.close()
      },
      /** The next boot on the same data; the call once it has ended there. */
      async restartUntilEnded(callId: string) {
        current = createHarness({ autoDial: true, env })
        return { h: current, call: await endedCall(current, callId) }
      },
    }
  } catch (error) {
    await cleanup()
    throw error
  }
}

/** The lead's latest call id once `ready` holds for it (polled every 5 ms, `tries` times); '' when it never does. */
async function callWhen(h: Harness, leadId: string, ready: (callId: string) => boolean, tries: number): Promise<string> {
  for (let i = 0; i < tries; i++) {
    const id = h.services.stores.calls.recentForLead(leadId, 1)[0]?.id
    if (id && ready(id)) return id
    await Bun.sleep(5)
  }
  return ''
}

/** The call as stored once it has ended (polled for 2 s). */
async function endedCall(h: Harness, callId: string) {
  let call = h.services.stores.calls.get(callId)!
  for (let i = 0; i < 200 && call.status !== 'ended'; i++) {
    await Bun.sleep(10)
    call = h.services.stores.calls.get(callId)!
  }
  return call
}

describe('Twilio calls across a restart and lost callbacks', () => {
  test('restart: calls up when the process stopped are looked up at Twilio and closed with their final state', async () => {
    const w = await restartable(50, ny('01'))
    try {
      // Up and answered (scenario 01 lasts 45 s: about a second at speed 50), then the process stops.
      const callId = await callWhen(w.first, w.lead, (id) => w.first.services.stores.calls.get(id)?.status === 'in_progress', 500)
      expect(callId).not.toBe('')
      w.stop()
      const sid = [...w.emulator.calls.keys()][0]!
      await w.emulator.settled(sid)
      // The next boot asks Twilio (GET Calls/{Sid}.json) and applies what it says.
      const { h, call } = await w.restartUntilEnded(callId)
      expect(call.status).toBe('ended')
      expect(call.durationSeconds).toBeGreaterThan(0)
      expect(w.emulator.received.some((r) => r.method === 'GET' && r.path.endsWith(`/Calls/${sid}.json`))).toBe(true)
      expect(h.services.stores.carrierCalls.get(callId)!.open).toBe(false)
    } finally {
      await w.cleanup()
    }
  })

  test('restart: a call Twilio answered while the service was down (its TwiML unreachable) is failed with a note, not hung_up', async () => {
    // Slow enough to stop the service while the call rings (scenario 01 answers at 5 s: 1 s here).
    const w = await restartable(5, ny('01', 31))
    try {
      // Placed at Twilio (it has a sid) and not yet answered: the process stops.
      const callId = await callWhen(w.first, w.lead, (id) => Boolean(w.first.services.stores.carrierCalls.get(id)?.carrierCallId), 400)
      expect(callId).not.toBe('')
      const sid = w.first.services.stores.carrierCalls.get(callId)!.carrierCallId!
      expect(w.emulator.calls.get(sid)!.answeredAt).toBeNull()
      w.stop()
      // Twilio answers, cannot fetch the TwiML, and ends the call: completed, 0 s, no AnsweredBy.
      await w.emulator.settled(sid)
      expect(w.emulator.calls.get(sid)).toMatchObject({ status: 'completed', duration: 0, answeredBy: null })
      const { h, call } = await w.restartUntilEnded(callId)
      expect(call.status).toBe('ended')
      expect(call.outcome).toBe('failed')
      expect(call.note).toContain('Twilio ended the call while the service was unreachable')
      expect(h.services.stores.carrierCalls.get(callId)!.open).toBe(false)
    } finally {
      await w.cleanup()
    }
  })

  test('a call whose final callbacks were lost is looked up by the watchdog after 15 quiet minutes', async () => {
    let drop = false
    const w = await setup({ dropCallback: (url) => drop && (url.endsWith('/status') || url.endsWith('/recording')) })
    const leadId = await addLead(w, ny('01'))
    // Answered, then every later status callback is lost.
    const callId = await callWhen(w.h, leadId, (id) => w.h.services.stores.calls.get(id)?.status === 'in_progress', 500)
    drop = true
    await w.emulator.settled([...w.emulator.calls.keys()][0]!)
    expect(w.h.services.stores.calls.get(callId)!.status).toBe('in_progress')
    await w.h.advance(16 * 60)
    const call = await endedCall(w.h, callId)
    expect(call.status).toBe('ended')
    expect(w.h.services.stores.carrierCalls.get(callId)!.open).toBe(false)
  })
})
