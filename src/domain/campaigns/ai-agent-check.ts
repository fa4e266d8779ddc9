import type { AiAgentSettings, AiDisclosure, RealtimeAgentSettings, StreamAgentSettings } from '../../telephony/call-values'
import { invalid } from '../../errors'
import { isLoopbackHost } from '../orgs/carrier-fields'
import { INSTRUCTIONS_MAX, unknownPlaceholders } from './instructions-template'
import { spokenMessageOf } from './spoken-message'
import type { SecretBox } from '../secrets/secret-box'

/** What an admin create or change may send for `ai_agent` (null turns the seat off). */
export type AiAgentInput = StreamAgentInput | RealtimeAgentInput

export interface StreamAgentInput {
  kind?: 'stream'
  url: string
  parameters?: Record<string, string>
  first_audio_ms?: number
  disclosure: AiDisclosure
}

export interface RealtimeAgentInput {
  kind: 'openai_realtime'
  model: string
  voice: string
  instructions: string
  first_audio_ms?: number
  disclosure: AiDisclosure
  /** Write-only: sealed apart (campaigns.ai_agent_key); absent on a change keeps the stored one. */
  api_key?: string
  base_url?: string
}

/** What becomes of the campaign's sealed agent key: kept, cleared, or replaced by this one (to seal). */
export type AgentKeyChange = { keep: true } | { keep: false; key: string | null }

/** What a campaign's sealed agent key is bound to: it opens for that campaign only. */
export const agentKeyContext = (campaignId: string) => `campaign:${campaignId}:ai_agent_key`

/** campaigns.ai_agent_key's new value for a key change (undefined: unchanged). */
export function sealAgentKey(box: Pick<SecretBox, 'seal'>, campaignId: string, change: AgentKeyChange): string | null | undefined {
  if (change.keep) return undefined
  return change.key === null ? null : box.seal(change.key, agentKeyContext(campaignId))
}

export const REALTIME_BASE_URL = 'wss://api.openai.com/v1/realtime'
const NAME_MAX = 200
const API_KEY_MAX = 1000

export const AI_AGENT_DEFAULTS = { first_audio_ms: 2000 } as const
export const FIRST_AUDIO_MS = { min: 500, max: 5000 } as const
export const MAX_AGENT_PARAMETER_COUNT = 20
const PARAMETER_NAME_MAX = 100
const PARAMETER_VALUE_MAX = 1000
const SAY_MAX = 1000
// Names the service sends itself in the stream's customParameters.
const RESERVED_PREFIX = 'dialer_'

/**
 * The AI seat a create or change leaves, checked as a whole before anything is written (the
 * schema checks shapes at the door; this checks the rules, and the shapes again for callers that
 * are not the HTTP API). An artificial voice needs prior express consent (FCC 24-17), so the seat
 * requires `requires_consent` on the campaign, and consent cannot be turned off while it is set.
 */
export function checkAiAgent(
  current: { aiAgent: AiAgentSettings | null; requiresConsent: boolean },
  input: { ai_agent?: AiAgentInput | null; requires_consent?: boolean },
): AiAgentSettings | null {
  const agent = input.ai_agent === undefined ? current.aiAgent : aiAgentOf(input.ai_agent)
  const consent = input.requires_consent ?? current.requiresConsent
  if (agent !== null && !consent) {
    // One error whichever side changed: the seat is what needs the consent.
    throw invalid(
      'An AI agent is an artificial voice: the campaign needs requires_consent true (prior express consent, FCC 24-17) while ai_agent is set.',
      'ai_agent', 'consent_required',
    )
  }
  return agent
}

/**
 * The seat a create or change leaves (checkAiAgent) and what becomes of its sealed key: an
 * openai_realtime agent needs a key, sent now or stored from before (a change that keeps the
 * kind may leave it out); any other seat, or none, holds no key.
 */
export function checkAiAgentChange(
  current: { aiAgent: AiAgentSettings | null; requiresConsent: boolean; hasKey: boolean },
  input: { ai_agent?: AiAgentInput | null; requires_consent?: boolean },
): { agent: AiAgentSettings | null; key: AgentKeyChange } {
  const agent = checkAiAgent(current, input)
  if (input.ai_agent === undefined) return { agent, key: { keep: true } }
  if (agent?.kind !== 'openai_realtime') return { agent, key: current.hasKey ? { keep: false, key: null } : { keep: true } }
  const sent = apiKeyOf((input.ai_agent as unknown as Record<string, unknown>).api_key)
  if (sent !== undefined) return { agent, key: { keep: false, key: sent } }
  if (current.aiAgent?.kind === 'openai_realtime' && current.hasKey) return { agent, key: { keep: true } }
  throw invalid('ai_agent.api_key is required: the OpenAI API key the service uses for this campaign (write-only).', 'ai_agent.api_key')
}

function apiKeyOf(raw: unknown): string | undefined {
  const param = 'ai_agent.api_key'
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > API_KEY_MAX || /\s/.test(raw)) {
    throw invalid(`${param} must be the API key: 1-${API_KEY_MAX} characters without spaces.`, param)
  }
  return raw
}

const STREAM_FIELDS = ['kind', 'url', 'parameters', 'first_audio_ms', 'disclosure']
const REALTIME_FIELDS = ['kind', 'model', 'voice', 'instructions', 'first_audio_ms', 'disclosure', 'api_key', 'base_url']

function aiAgentOf(raw: unknown): AiAgentSettings | null {
  if (raw === null) return null
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('ai_agent must be an object or null.', 'ai_agent')
  const input = raw as Record<string, unknown>
  if (input.kind !== undefined && input.kind !== 'stream' && input.kind !== 'openai_realtime') {
    throw invalid('ai_agent.kind must be "stream" or "openai_realtime".', 'ai_agent.kind')
  }
  const fields = input.kind === 'openai_realtime' ? REALTIME_FIELDS : STREAM_FIELDS
  for (const key of Object.keys(input)) {
    if (!fields.includes(key)) throw invalid(`ai_agent.${key} is not a field of ai_agent.`, `ai_agent.${key}`)
  }
  return input.kind === 'openai_realtime' ? realtimeOf(input) : streamOf(input)
}

function streamOf(input: Record<string, unknown>): StreamAgentSettings {
  return {
    kind: 'stream',
    url: agentUrl(input.url),
    parameters: parametersOf(input.parameters),
    first_audio_ms: firstAudioMs(input.first_audio_ms),
    disclosure: disclosureOf(input.disclosure),
  }
}

/** The service's own agent: the model and voice are OpenAI's to judge, only not empty; the prompt a known template. */
function realtimeOf(input: Record<string, unknown>): RealtimeAgentSettings {
  const baseUrl = input.base_url === undefined ? REALTIME_BASE_URL : agentUrl(input.base_url, 'ai_agent.base_url')
  if (new URL(baseUrl).search !== '') throw invalid('ai_agent.base_url must not have a query: the model is added as ?model=.', 'ai_agent.base_url')
  return {
    kind: 'openai_realtime',
    model: nameOf(input.model, 'ai_agent.model'),
    voice: nameOf(input.voice, 'ai_agent.voice'),
    instructions: instructionsOf(input.instructions),
    first_audio_ms: firstAudioMs(input.first_audio_ms),
    disclosure: disclosureOf(input.disclosure),
    base_url: baseUrl,
  }
}

function nameOf(raw: unknown, param: string): string {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > NAME_MAX) throw invalid(`${param} is required: a non-empty name of at most ${NAME_MAX} characters.`, param)
  return raw.trim()
}

function instructionsOf(raw: unknown): string {
  const param = 'ai_agent.instructions'
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid(`${param} is required: the prompt the model follows on every call.`, param)
  if (raw.length > INSTRUCTIONS_MAX) throw invalid(`${param} must be at most ${INSTRUCTIONS_MAX} characters.`, param)
  const unknown = unknownPlaceholders(raw)
  if (unknown.length > 0) {
    throw invalid(
      `${param}: unknown placeholder {{${unknown[0]}}}; use {{lead.name}}, {{lead.phone}}, {{lead.email}}, {{lead.fields.<key>}}, {{campaign.name}} or {{org.name}}.`,
      param,
    )
  }
  return raw
}

/** wss://, or ws:// to a loopback address only (as a carrier's api_base_url); no credentials or fragment. */
function agentUrl(raw: unknown, param = 'ai_agent.url'): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalid(`${param} is required: the agent's WebSocket URL (wss://...).`, param)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid(`${param} must be an absolute URL such as wss://agent.example.com/stream.`, param)
  }
  if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && isLoopbackHost(url.hostname))) {
    throw invalid(`${param} must use wss (plain ws only to a loopback address: localhost, 127.0.0.0/8, ::1).`, param)
  }
  if (url.username !== '' || url.password !== '') throw invalid(`${param} must not hold a user name or password.`, param)
  if (url.hash !== '') throw invalid(`${param} must not have a fragment.`, param)
  return url.href
}

function parametersOf(raw: unknown): Record<string, string> {
  const param = 'ai_agent.parameters'
  if (raw === undefined || raw === null) return {}
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`${param} must be an object of name/value strings.`, param)
  const entries = Object.entries(raw as Record<string, unknown>)
  if (entries.length > MAX_AGENT_PARAMETER_COUNT) throw invalid(`${param} holds at most ${MAX_AGENT_PARAMETER_COUNT} names.`, param)
  const out: Record<string, string> = {}
  for (const [name, value] of entries) {
    if (name.length === 0 || name.length > PARAMETER_NAME_MAX) throw invalid(`${param}: a name must be 1-${PARAMETER_NAME_MAX} characters.`, param)
    if (name.toLowerCase().startsWith(RESERVED_PREFIX)) throw invalid(`${param}: names starting with ${RESERVED_PREFIX} are the service's own.`, `${param}.${name}`)
    if (typeof value !== 'string' || value.length > PARAMETER_VALUE_MAX) throw invalid(`${param}.${name} must be a string of at most ${PARAMETER_VALUE_MAX} characters.`, `${param}.${name}`)
    out[name] = value
  }
  return out
}

function firstAudioMs(raw: unknown): number {
  const param = 'ai_agent.first_audio_ms'
  if (raw === undefined) return AI_AGENT_DEFAULTS.first_audio_ms
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < FIRST_AUDIO_MS.min || raw > FIRST_AUDIO_MS.max) {
    throw invalid(`${param} must be a whole number of milliseconds from ${FIRST_AUDIO_MS.min} to ${FIRST_AUDIO_MS.max}.`, param)
  }
  return raw
}

/** Exactly one of a said text (not blank) or an https audio URL, as a voicemail; required. */
function disclosureOf(raw: unknown): AiDisclosure {
  const param = 'ai_agent.disclosure'
  if (raw === undefined || raw === null) throw invalid(`${param} is required: what the lead hears before the agent ({"say": "..."} or {"audio_url": "https://..."}).`, param)
  return spokenMessageOf(raw, param, SAY_MAX)
}
