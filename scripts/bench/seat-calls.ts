/**
 * What the AI seat benchmarks (ai-seat-relay.ts, realtime-relay.ts) share: real calls on an
 * AI-seated campaign through the Twilio emulator, each answered with a signed callback so the
 * service serves the seat's TwiML with its real stream token; and the service's CPU time.
 */
import { readFileSync } from 'node:fs'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import type { TwilioEmulator } from '../../test/emulators/twilio/emulator'
import { daytimeStart, setClock } from '../../test/process/daytime-clock'
import { ADMIN_TOKEN, adminClient, basicAuth } from './lib'

/** The Twilio account the benchmarks' organization uses (the emulator is started with it). */
export const SEAT_ACCOUNT = { sid: `AC${'c4'.repeat(16)}`, token: '7d'.repeat(16), caller: '+12125550100' }

/** User + system CPU seconds of a process (Linux /proc; 0 elsewhere). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

async function json(base: string, method: string, path: string, auth: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
  return ((await r.json()) as { data: any }).data
}

export interface SeatedCall {
  callId: string
  callSid: string
  /** The stream token the seat's TwiML carried. */
  token: string
  /** The lead's number. */
  to: string
}

/** `count` live calls of a campaign with this `ai_agent` (detection off), each answered: a seat waits for its stream. */
export async function seatedCalls(options: { base: string; emulator: TwilioEmulator; name: string; count: number; aiAgent: Record<string, unknown>; phoneOf: (index: number) => string }): Promise<SeatedCall[]> {
  const { base, emulator, count } = options
  const { sid, token: authToken, caller } = SEAT_ACCOUNT
  const admin = adminClient(base)
  await setClock(base, ADMIN_TOKEN, daytimeStart(Date.now(), ['America/New_York']))
  const org = await admin('/orgs', {
    name: options.name, plan_requests_per_minute: 100_000,
    carrier: { kind: 'twilio', account_sid: sid, auth_token: authToken, caller_ids: [caller], api_base_url: emulator.url, machine_detection: false },
  })
  const campaign = await admin(`/orgs/${org.id}/campaigns`, {
    name: options.name, status: 'active', lines: count, requires_consent: true, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }], ai_agent: options.aiAgent,
  })
  const key = await admin(`/orgs/${org.id}/keys`, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000 })
  const auth = basicAuth(key.id, key.secret)
  const consent = { source: 'web_form', agreed_at: '2026-01-01T00:00:00Z', text: 'I agree to be called, including by an AI voice.' }
  for (let i = 0; i < count; i += 50) {
    const leads = Array.from({ length: Math.min(50, count - i) }, (_, j) => ({ campaign_id: campaign.id, phone: options.phoneOf(i + j), consent, call_now: true }))
    await json(base, 'POST', '/api/v1/external/leads/batch', auth, { leads })
  }
  const deadline = performance.now() + 30_000
  while (emulator.calls.size < count) {
    if (performance.now() > deadline) throw new Error(`only ${emulator.calls.size} of ${count} calls reached the emulator`)
    await Bun.sleep(50)
  }
  const creates = emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.status === 201)
  return Promise.all(creates.map(async (request) => {
    const answerUrl = String(request.params.Url)
    const to = String(request.params.To)
    const call = [...emulator.calls.values()].find((c) => c.statusCallback === String(request.params.StatusCallback))
    if (!call) throw new Error(`no emulated call for ${answerUrl}`)
    const params = { AccountSid: sid, CallSid: call.sid, From: caller, To: to, CallStatus: 'in-progress', Direction: 'outbound-api', ApiVersion: '2010-04-01' }
    const r = await fetch(answerUrl.replace(/^https?:\/\/[^/]+/, base), {
      method: 'POST', body: new URLSearchParams(params).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest(authToken, answerUrl, params) },
    })
    const twiml = await r.text()
    const token = /<Parameter name="dialer_stream_token" value="([^"]+)"/.exec(twiml)?.[1]
    if (!r.ok || !token) throw new Error(`answer ${answerUrl}: ${r.status} ${twiml.slice(0, 300)}`)
    return { callId: token.split('.')[0]!, callSid: call.sid, token, to }
  }))
}
