import { RealtimeEmulator, type RealtimeEmulatorOptions } from '../emulators/openai-realtime/emulator'
import type { RealtimeSession } from '../emulators/openai-realtime/realtime-session'
import { aiSeatService, DISCLOSURE, until } from './ai-seat-service'
import type { TwilioServiceOptions } from './twilio-service'

/**
 * The built-in OpenAI Realtime agent on the service as shipped: the compiled binary with the
 * Twilio emulator (ai-seat-service.ts) and the Realtime emulator (test/emulators/openai-realtime/)
 * on loopback as the campaigns' `base_url`. Each campaign's instructions carry a `[script:<name>]`
 * marker, so the emulated model plays that script for its calls.
 */
export const API_KEY = 'sk-test-realtime-7f3c9a1e5b2d4c6a8e0f'
export const MODEL = 'gpt-realtime'
export const VOICE = 'marin'
/** The campaign's prompt; every placeholder is rendered per call. */
export const TEMPLATE = 'You are Ava. You call {{lead.name}} ({{lead.phone}}) about {{campaign.name}} for {{org.name}}.'

export function realtimeService(options: TwilioServiceOptions, emulator: Omit<RealtimeEmulatorOptions, 'apiKey'> = {}) {
  const seat = aiSeatService(options)
  let realtime: RealtimeEmulator | null = null
  let campaigns = 0
  const { start, close } = seat
  const extra = {
    get realtime(): RealtimeEmulator {
      if (!realtime) throw new Error('start() first')
      return realtime
    },
    async start(): Promise<void> {
      realtime = await RealtimeEmulator.start({ ...emulator, apiKey: API_KEY })
      await start()
    },
    async close(): Promise<void> {
      await close()
      await realtime?.stop()
    },
    /** An active campaign whose built-in agent plays `script`; `name` picks the campaign's name. */
    async realtimeCampaign(script: string, more: { apiKey?: string; name?: string } = {}): Promise<{ id: string; name: string; body: any }> {
      const name = more.name ?? `Solar quotes ${++campaigns}`
      const created = await seat.service.admin('POST', `/orgs/${seat.orgId}/campaigns`, {
        name, status: 'active', lines: 2, requires_consent: true,
        sdrs: [{ name: 'Ada Accepts', phone: '+13125550811' }],
        ai_agent: {
          kind: 'openai_realtime', model: MODEL, voice: VOICE, instructions: `[script:${script}] ${TEMPLATE}`,
          first_audio_ms: 3000, disclosure: { say: DISCLOSURE }, api_key: more.apiKey ?? API_KEY, base_url: self.realtime.url,
        },
      })
      if (created.status !== 201) throw new Error(`realtime campaign create: ${created.status} ${created.text}`)
      return { id: created.body.data.id, name, body: created.body }
    },
    /** The Realtime session whose rendered instructions name this lead's phone. */
    session(phone: string): Promise<RealtimeSession> {
      return until(`the Realtime session of ${phone}`, () => self.realtime.sessions.find((s) => String(s.config.instructions ?? '').includes(phone)))
    },
    /** The client events of a session of one type, in order. */
    clientEvents(session: RealtimeSession, type: string): any[] {
      return session.received.filter((e) => e.type === type)
    },
    serverEvents(session: RealtimeSession, type: string): any[] {
      return session.sent.filter((e) => e.type === type)
    },
  }
  // The AI seat's helpers with these added (copied as accessors: its getters throw before start()).
  const self = Object.defineProperties(seat, Object.getOwnPropertyDescriptors(extra)) as typeof seat & typeof extra
  return self
}
