import { expect } from 'bun:test'
import { type ReferenceAgent, startReferenceAgent } from '../../scripts/reference-agent'
import { mintStreamToken, streamTokenKey } from '../../src/telephony/media-stream/stream-token'
import { twilioService, type TwilioServiceOptions } from './twilio-service'

/**
 * The AI seat on the service as shipped (the compiled binary from an empty folder, see
 * twilio-service.ts) with the Twilio emulator running <Connect><Stream> and the reference agent
 * (scripts/reference-agent.ts) as the campaigns' `ai_agent`: each campaign's `parameters` pick
 * the agent's behaviour. The service runs with a known DIALER_SECRET_KEY so a test can mint
 * stream tokens the way the service does (forged streams).
 */
export const ORG_NAME = 'Acme Roofing'
export const DISCLOSURE = 'Hi, this is an automated assistant calling for Acme Roofing about your roof request.'
export const TAKEBACK = `Sorry, ${ORG_NAME} cannot continue this call right now. We will call you back. Goodbye.`
export const OPT_OUT_CONFIRMATION = 'You will not be called again. Goodbye.'
export const SECRET_KEY = '5e'.repeat(32)
export const STREAM_KEY = streamTokenKey(Buffer.from(SECRET_KEY, 'hex'))
const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me about a roof, also with an automated voice.' }
export const HOUR = 3_600_000

export function aiSeatService(options: TwilioServiceOptions) {
  const service = twilioService(options)
  service.env.DIALER_SECRET_KEY = SECRET_KEY
  let agent: ReferenceAgent | null = null
  let orgId = ''
  let campaigns = 0

  const seat = {
    service,
    get agent(): ReferenceAgent {
      if (!agent) throw new Error('start() first')
      return agent
    },
    get orgId() {
      return orgId
    },
    async start(): Promise<void> {
      agent = await startReferenceAgent()
      await service.start()
      // A person campaign (seedOrg's) keeps the key, carrier and organization; AI campaigns come per test.
      orgId = (await service.seedOrg({ name: 'People first', lines: 1, sdrs: [{ name: 'Pat Person', phone: '+13125550911' }] })).orgId
    },
    async close(): Promise<void> {
      await service.close()
      await agent?.stop()
    },
    /**
     * An active AI-seated campaign whose agent does `parameters.behaviour`; people press 1 by
     * their last two digits (11 presses 1). `org`: another organization's; `url`: another agent.
     */
    async aiCampaign(parameters: Record<string, string>, options: { url?: string; org?: string; disclosure?: string; more?: Record<string, unknown> } = {}): Promise<string> {
      const created = await service.admin('POST', `/orgs/${options.org ?? orgId}/campaigns`, {
        name: `Roof quotes ${++campaigns}`, status: 'active', lines: 2, requires_consent: true,
        sdrs: [{ name: 'Ada Accepts', phone: '+13125550811' }],
        ai_agent: { kind: 'stream', url: options.url ?? seat.agent.url, parameters, first_audio_ms: 1000, disclosure: { say: options.disclosure ?? DISCLOSURE } },
        ...options.more,
      })
      if (created.status !== 201) throw new Error(`AI campaign create: ${created.status} ${created.text}`)
      return created.body.data.id
    },
    /** A lead with consent on `campaignId` (dialed at once); its id. */
    async addLead(campaignId: string, phone: string, name = 'Jordan Lee'): Promise<string> {
      const r = await service.api('POST', '/leads', { campaign_id: campaignId, phone, name, consent: CONSENT })
      expect(r.status).toBe(201)
      return r.body.data.id
    },
    /** The events about one call or lead, oldest first. */
    async events(objectId: string, type?: string): Promise<any[]> {
      const r = await service.api('GET', `/events?object_id=${objectId}&limit=100${type ? `&type=${type}` : ''}`)
      return ((r.body?.data ?? []) as any[]).slice().reverse()
    },
    /** GET /api/v1/admin/calls/{id}'s data. */
    async adminCall(callId: string): Promise<any> {
      const r = await service.admin('GET', `/calls/${callId}`)
      expect(r.status).toBe(200)
      return r.body.data
    },
    async transcript(callId: string): Promise<Array<{ speaker: string; name: string; text: string }>> {
      const r = await service.api('GET', `/calls/${callId}/transcript`)
      expect(r.status).toBe(200)
      return r.body.data.lines
    },
    /** The emulator's call to `phone` (the lead's leg). */
    twilioCall(phone: string): any {
      return [...service.emulator.calls.values()].find((c) => c.to === phone && c.role !== 'person')
    },
    /** The TwiML the service answered for this CallSid, in order (the emulator keeps every callback). */
    twimlOf(callSid: string): string[] {
      return service.emulator.sent.filter((s) => s.callSid === callSid && typeof s.body === 'string' && s.body.includes('<Response')).map((s) => s.body)
    },
    /** The emulator's record of the call's latest stream (emulator-stream.ts StreamRecord). */
    emulatorStream(callSid: string) {
      const stream = service.emulator.stream(callSid)
      if (!stream) throw new Error(`no stream on ${callSid}`)
      return stream
    },
    /** The seat's TwiML for this CallSid: the stream URL and its token parameter. */
    streamTwiml(callSid: string): { url: string; token: string } | null {
      for (const twiml of seat.twimlOf(callSid)) {
        const url = /<Stream[^>]*\surl="([^"]+)"/.exec(twiml)?.[1]
        const token = /<Parameter\s+name="dialer_stream_token"\s+value="([^"]+)"/.exec(twiml)?.[1]
        if (url && token) return { url: url.replace(/&amp;/g, '&'), token: token.replace(/&amp;/g, '&') }
      }
      return null
    },
    /** A token signed as the service signs them (its DIALER_SECRET_KEY is the test's). */
    mint: (callId: string, org: string, expiresAt = Date.now() + 5 * 60_000) => mintStreamToken(STREAM_KEY, { callId, orgId: org, expiresAt }),
    /** The service's stream endpoint. */
    streamUrl: () => `${service.base.replace(/^http/, 'ws')}/twilio/streams`,
    /** /metrics as text. */
    async metrics(): Promise<string> {
      return (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${options.adminToken}` } })).text()
    },
  }
  return seat
}

/** Waits for `read` to give a truthy value (polled). */
export async function until<T>(what: string, read: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

/**
 * A hand-made stream to the service as Twilio would open one: `connected`, then `start` with
 * these customParameters. Resolves with what it received and when the service closed it.
 */
export async function openStream(url: string, customParameters: Record<string, string>, callSid = `CA${'0'.repeat(32)}`) {
  const ws = new WebSocket(url)
  const got: string[] = []
  let closedAt: number | null = null
  ws.onmessage = (e) => got.push(String(e.data))
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => {
    closedAt = Date.now()
    resolve(e.code)
  }))
  const opened = await new Promise<boolean>((resolve) => {
    ws.onopen = () => resolve(true)
    ws.onerror = () => resolve(false)
  })
  const streamSid = `MZ${'f'.repeat(32)}`
  const sentAt = Date.now()
  if (opened) {
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }))
    ws.send(JSON.stringify({
      event: 'start', sequenceNumber: '1', streamSid,
      start: { accountSid: `AC${'0'.repeat(32)}`, streamSid, callSid, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters },
    }))
  }
  return { ws, got, opened, closed, sentAt, closedAt: () => closedAt }
}
