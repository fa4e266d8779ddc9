import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client'
import { formParams } from '../../src/telephony/twilio/signature'

setDefaultTimeout(60_000)

/**
 * The emulator's calls-per-second queue (docs/telephony.md "The emulator"), as Twilio documents
 * it: calls created faster than the account's rate are accepted and wait in `queued`, ringing
 * later in turn; `Status=canceled` ends a queued or ringing call but not one in progress.
 */

const ACCOUNT = { sid: `AC${'7'.repeat(32)}`, authToken: 'queue-test-token', callsPerSecond: 1 }
const SPEED = 20
/** Callbacks the emulator sent: CallStatus and the real time it arrived. */
const heard: { sid: string; status: string; at: number }[] = []
const emulator = TwilioEmulator.start({
  accounts: [ACCOUNT],
  speed: SPEED,
  fetch: async (_url, init) => {
    const p = formParams(String(init.body)) as Record<string, string>
    if (p.CallStatus) heard.push({ sid: p.CallSid!, status: p.CallStatus, at: Date.now() })
    // The answer's TwiML keeps the line open.
    return new Response('<Response><Pause length="600"/></Response>', { headers: { 'content-type': 'text/xml' } })
  },
})
const client = new TwilioRestClient({ accountSid: ACCOUNT.sid, authToken: ACCOUNT.authToken, apiBaseUrl: emulator.url })
afterAll(() => emulator.stop())

const place = async (nn: string) => {
  const r = await client.createCall({ to: `+1212555${nn.padStart(4, '0')}`, from: '+12125550100', url: 'http://127.0.0.1:9/answer', statusCallback: 'http://127.0.0.1:9/status', machineDetection: false, record: false })
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}
const statuses = (sid: string) => heard.filter((h) => h.sid === sid).map((h) => h.status)
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await Bun.sleep(5)
  }
}

describe('calls per second', () => {
  test('a burst is accepted, queued, and rung one per emulated second', async () => {
    const burst = await Promise.all(['3102', '3202', '3302'].map(place))
    expect(burst.map((c) => c.status)).toEqual(['queued', 'queued', 'queued'])
    await until(() => burst.every((c) => statuses(c.sid).includes('ringing')))
    // Each left the queue one emulated second (50 ms here) after the one before, by the emulator's
    // own clock (when its callbacks arrive also depends on this process's load); allow for timer slack.
    const left = burst.map((c) => emulator.calls.get(c.sid)!.startedAt).sort((a, b) => a - b)
    expect(left[1]! - left[0]!).toBeGreaterThanOrEqual(40)
    expect(left[2]! - left[1]!).toBeGreaterThanOrEqual(40)
    // And they rang in that order.
    const order = (at: (sid: string) => number) => [...burst].sort((a, b) => at(a.sid) - at(b.sid)).map((c) => c.sid)
    expect(order((sid) => heard.find((h) => h.sid === sid && h.status === 'ringing')!.at)).toEqual(order((sid) => emulator.calls.get(sid)!.startedAt))
    for (const c of burst) await client.updateCall(c.sid, { status: 'completed' })
  })

  test('a queued call canceled never rings: its one status callback says canceled', async () => {
    await place('3400')
    const waiting = await place('3500')
    expect(emulator.calls.get(waiting.sid)!.status).toBe('queued')
    const canceled = await client.updateCall(waiting.sid, { status: 'canceled' })
    expect(canceled.ok && canceled.value.status).toBe('canceled')
    await emulator.settled(waiting.sid)
    expect(statuses(waiting.sid)).toEqual(['canceled'])
  })

  test('canceled does not end a call in progress; completed does', async () => {
    const call = await place('3600')
    await until(() => statuses(call.sid).includes('in-progress'))
    const canceled = await client.updateCall(call.sid, { status: 'canceled' })
    expect(canceled.ok && canceled.value.status).toBe('in-progress')
    const completed = await client.updateCall(call.sid, { status: 'completed' })
    expect(completed.ok && completed.value.status).toBe('completed')
    await emulator.settled(call.sid)
    expect(statuses(call.sid).at(-1)).toBe('completed')
  })
})
