import type { RealtimeAgentDeps } from '../realtime/realtime-agent'
import type { CarrierPorts } from '../ports'
import type { RestClientOptions, TwilioAccount } from './rest-client'

/** The carrier ports (ports.ts) the call engine uses; the organization's account is the wire's (wire.ts). */
export interface EngineDeps extends Omit<CarrierPorts, 'settingsOf' | 'simSpeed'> {
  /** Tests and the benchmark reach the Realtime emulator with their own socket or timers. */
  realtime?: RealtimeAgentDeps
}

/** The engine's ports with the organization's Twilio account in place of the generic settings. */
export interface TwilioCarrierDeps extends EngineDeps {
  /** The organization's Twilio account with its token opened; null when it has none or it cannot be opened. */
  account: (orgId: string) => TwilioAccount | null
  /** Tests and the benchmark reach the emulator with their own fetch or timeout. */
  rest?: RestClientOptions
}

export interface CallbackInput {
  callId: string
  step: string
  leg: number | null
  /** The URL Twilio requested: DIALER_PUBLIC_URL, the path and the query. */
  url: string
  body: string
  signature: string | null
  /** Telnyx's telnyx-timestamp header (Twilio signs no time). */
  timestamp?: string | null
}

export type CallbackReply = { status: 200; twiml: string | null } | { status: 403 | 404; twiml: null }
