import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import type { Server } from 'bun'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client'
import { formParams } from '../../src/telephony/twilio/signature'

setDefaultTimeout(60_000)

// The emulator's Call Recordings create (issue 27, item 3): only a call in progress can be
// recorded (404 for an unknown call, 21220 for one not in progress); the recording starts at that
// moment, and its callback comes at the call's end.

const ACCOUNT = { sid: `AC${'7'.repeat(32)}`, authToken: 'consent-emulator-token' }
const FROM = '+13125550111'
let emulator: TwilioEmulator
let receiver: Server<undefined>
let client: TwilioRestClient
const recordingCallbacks: Record<string, string | string[]>[] = []

beforeAll(() => {
  receiver = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    fetch: async (req) => {
      const path = new URL(req.url).pathname
      if (path === '/recording') recordingCallbacks.push(formParams(await req.text()))
      // The answer: hold the line until the test hangs up.
      if (path === '/answer') return new Response('<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="600"/></Response>', { headers: { 'content-type': 'text/xml' } })
      return new Response('', { status: 200 })
    },
  })
  emulator = TwilioEmulator.start({ accounts: [ACCOUNT], speed: 50 })
  client = new TwilioRestClient({ accountSid: ACCOUNT.sid, authToken: ACCOUNT.authToken, apiBaseUrl: emulator.url })
})
afterAll(async () => {
  await emulator.stop()
  await receiver.stop(true)
})

const until = async (check: () => boolean) => {
  for (let i = 0; i < 400 && !check(); i++) await Bun.sleep(10)
  expect(check()).toBe(true)
}

test('a call not yet answered: 400 21220; an unknown call: 404 20404; a live call: recorded from that moment', async () => {
  const callbackUrl = `http://127.0.0.1:${receiver.port}/recording`
  const created = await client.createCall({
    to: '+12125556100', from: FROM, url: `http://127.0.0.1:${receiver.port}/answer`, statusCallback: `http://127.0.0.1:${receiver.port}/status`,
    machineDetection: false, record: false,
  })
  if (!created.ok) throw new Error(created.error.message)
  const sid = created.value.sid
  const early = await client.startRecording(sid, { statusCallback: callbackUrl, events: ['completed'] })
  expect(early).toMatchObject({ ok: false, error: { kind: 'rejected', status: 400, code: 21220 } })
  const unknown = await client.startRecording(`CA${'9'.repeat(32)}`, { statusCallback: callbackUrl, events: ['completed'] })
  expect(unknown).toMatchObject({ ok: false, error: { status: 404, code: 20404 } })

  const call = emulator.calls.get(sid)!
  await until(() => call.status === 'in-progress')
  const started = await client.startRecording(sid, { statusCallback: callbackUrl, events: ['in-progress', 'completed'] })
  if (!started.ok) throw new Error(started.error.message)
  expect(call.liveRecording).toMatchObject({ sid: started.value.sid })
  // From that moment: at or after the answer (the same emulated millisecond when the request follows it at once).
  expect(call.liveRecording!.startedAt).toBeGreaterThanOrEqual(call.answeredAt!)
  // Not asked for at create: no recording but this one.
  expect(call.record).toBe(false)

  await client.updateCall(sid, { status: 'completed' })
  await emulator.settled(sid)
  const statuses = recordingCallbacks.map((c) => c.RecordingStatus)
  expect(statuses).toEqual(['in-progress', 'completed'])
  expect(recordingCallbacks[1]).toMatchObject({ CallSid: sid, RecordingSid: started.value.sid, RecordingSource: 'StartCallRecordingAPI' })
  // The audio can be fetched like any completed recording.
  expect((await client.downloadRecording(started.value.sid)).ok).toBe(true)
  // After the end the call is no longer in progress.
  expect(await client.startRecording(sid, { statusCallback: callbackUrl, events: ['completed'] })).toMatchObject({ ok: false, error: { code: 21220 } })
})
