import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, scratchDir, type Harness } from '../harness'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { addLead, CALLER_NY, ny, setup, SID, TOKEN } from './twilio-world'

setDefaultTimeout(60_000)

// Restart safety for Twilio calls (issue 18, item 7): nothing stays dialing or on_call forever.

describe('Twilio calls across a restart and lost callbacks', () => {
  test('restart: calls up when the process stopped are looked up at Twilio and closed with their final state', async () => {
    const dir = scratchDir()
    const env = { DIALER_DATA_DIR: dir.path, DIALER_DATABASE: `${dir.path}/dialer.db` }
    let current: Harness | null = createHarness({ autoDial: true, env })
    const emulator = TwilioEmulator.start({
      accounts: [{ sid: SID, authToken: TOKEN }],
      speed: 50,
      // While the service is down, Twilio's callbacks fail (Twilio does not retry them).
      fetch: (url, init) => (current ? current.app.handle(new Request(url, init)) : Promise.reject(new Error('connection refused'))),
    })
    try {
      const h1 = current
      const org = (await h1.admin('POST', '/orgs', { name: 'Acme', plan_requests_per_minute: 100000 })).body.data.id
      const carrier = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER_NY], api_base_url: emulator.url }
      expect((await h1.admin('PATCH', `/orgs/${org}`, { carrier })).status).toBe(200)
      const campaign = (await h1.admin('POST', `/orgs/${org}/campaigns`, { name: 'C', status: 'active', sdrs: [{ name: 'Alex', phone: '+13125550150' }] })).body.data.id
      const live = await h1.createKey(org, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
      const lead = (await h1.api('POST', '/leads', { key: live, body: { campaign_id: campaign, phone: ny('01') } })).body.data.id
      // Up and answered (scenario 01 lasts 45 s: about a second at speed 50), then the process stops.
      let callId = ''
      for (let i = 0; i < 500 && !callId; i++) {
        const id = h1.services.stores.calls.recentForLead(lead, 1)[0]?.id
        if (id && h1.services.stores.calls.get(id)?.status === 'in_progress') callId = id
        else await Bun.sleep(5)
      }
      expect(callId).not.toBe('')
      current = null
      h1.close()
      const sid = [...emulator.calls.keys()][0]!
      await emulator.settled(sid)
      // The next boot asks Twilio (GET Calls/{Sid}.json) and applies what it says.
      current = createHarness({ autoDial: true, env })
      let call = current.services.stores.calls.get(callId)!
      for (let i = 0; i < 200 && call.status !== 'ended'; i++) {
        await Bun.sleep(10)
        call = current.services.stores.calls.get(callId)!
      }
      expect(call.status).toBe('ended')
      expect(call.durationSeconds).toBeGreaterThan(0)
      expect(emulator.received.some((r) => r.method === 'GET' && r.path.endsWith(`/Calls/${sid}.json`))).toBe(true)
      expect(current.services.stores.carrierCalls.get(callId)!.open).toBe(false)
    } finally {
      await emulator.stop()
      current?.close()
      dir.remove()
    }
  })

  test('restart: a call Twilio answered while the service was down (its TwiML unreachable) is failed with a note, not hung_up', async () => {
    const dir = scratchDir()
    const env = { DIALER_DATA_DIR: dir.path, DIALER_DATABASE: `${dir.path}/dialer.db` }
    let current: Harness | null = createHarness({ autoDial: true, env })
    // Slow enough to stop the service while the call rings (scenario 01 answers at 5 s: 1 s here).
    const emulator = TwilioEmulator.start({
      accounts: [{ sid: SID, authToken: TOKEN }],
      speed: 5,
      fetch: (url, init) => (current ? current.app.handle(new Request(url, init)) : Promise.reject(new Error('connection refused'))),
    })
    try {
      const h1 = current
      const org = (await h1.admin('POST', '/orgs', { name: 'Acme', plan_requests_per_minute: 100000 })).body.data.id
      const carrier = { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER_NY], api_base_url: emulator.url }
      expect((await h1.admin('PATCH', `/orgs/${org}`, { carrier })).status).toBe(200)
      const campaign = (await h1.admin('POST', `/orgs/${org}/campaigns`, { name: 'C', status: 'active', sdrs: [{ name: 'Alex', phone: '+13125550150' }] })).body.data.id
      const live = await h1.createKey(org, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
      const lead = (await h1.api('POST', '/leads', { key: live, body: { campaign_id: campaign, phone: ny('01', 31) } })).body.data.id
      // Placed at Twilio (it has a sid) and not yet answered: the process stops.
      let callId = ''
      for (let i = 0; i < 400 && !callId; i++) {
        const id = h1.services.stores.calls.recentForLead(lead, 1)[0]?.id
        if (id && h1.services.stores.carrierCalls.get(id)?.carrierCallId) callId = id
        else await Bun.sleep(5)
      }
      expect(callId).not.toBe('')
      const sid = h1.services.stores.carrierCalls.get(callId)!.carrierCallId!
      expect(emulator.calls.get(sid)!.answeredAt).toBeNull()
      current = null
      h1.close()
      // Twilio answers, cannot fetch the TwiML, and ends the call: completed, 0 s, no AnsweredBy.
      await emulator.settled(sid)
      expect(emulator.calls.get(sid)).toMatchObject({ status: 'completed', duration: 0, answeredBy: null })
      current = createHarness({ autoDial: true, env })
      let call = current.services.stores.calls.get(callId)!
      for (let i = 0; i < 200 && call.status !== 'ended'; i++) {
        await Bun.sleep(10)
        call = current.services.stores.calls.get(callId)!
      }
      expect(call.status).toBe('ended')
      expect(call.outcome).toBe('failed')
      expect(call.note).toContain('Twilio ended the call while the service was unreachable')
      expect(current.services.stores.carrierCalls.get(callId)!.open).toBe(false)
    } finally {
      await emulator.stop()
      current?.close()
      dir.remove()
    }
  })

  test('a call whose final callbacks were lost is looked up by the watchdog after 15 quiet minutes', async () => {
    let drop = false
    const w = await setup({ dropCallback: (url) => drop && (url.endsWith('/status') || url.endsWith('/recording')) })
    const leadId = await addLead(w, ny('01'))
    // Answered, then every later status callback is lost.
    let callId = ''
    for (let i = 0; i < 500 && !callId; i++) {
      const id = w.h.services.stores.calls.recentForLead(leadId, 1)[0]?.id
      if (id && w.h.services.stores.calls.get(id)?.status === 'in_progress') callId = id
      else await Bun.sleep(5)
    }
    drop = true
    await w.emulator.settled([...w.emulator.calls.keys()][0]!)
    expect(w.h.services.stores.calls.get(callId)!.status).toBe('in_progress')
    await w.h.advance(16 * 60)
    let call = w.h.services.stores.calls.get(callId)!
    for (let i = 0; i < 200 && call.status !== 'ended'; i++) {
      await Bun.sleep(10)
      call = w.h.services.stores.calls.get(callId)!
    }
    expect(call.status).toBe('ended')
    expect(w.h.services.stores.carrierCalls.get(callId)!.open).toBe(false)
  })
})
