import type { AiUsage } from '../call-values'

/**
 * Reading the Realtime server events the agent uses (GA names,
 * https://platform.openai.com/docs/api-reference/realtime-server-events). Fields are checked
 * as they are read: a malformed event is ignored, never trusted.
 */

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export const text = (v: unknown): string => (typeof v === 'string' ? v : '')

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0)

/** `response.done`'s `response.usage` (input/output tokens with their text, audio and cached details); null when absent. */
export function readUsage(usage: unknown): AiUsage | null {
  if (!isRecord(usage)) return null
  const input = isRecord(usage.input_token_details) ? usage.input_token_details : {}
  const output = isRecord(usage.output_token_details) ? usage.output_token_details : {}
  return {
    input_tokens: count(usage.input_tokens),
    output_tokens: count(usage.output_tokens),
    input_text_tokens: count(input.text_tokens),
    input_audio_tokens: count(input.audio_tokens),
    input_cached_tokens: count(input.cached_tokens),
    output_text_tokens: count(output.text_tokens),
    output_audio_tokens: count(output.audio_tokens),
  }
}

/** Why a response failed (`response.status_details.error`), for the log. */
export function failureOf(response: Record<string, unknown>): string {
  const details = isRecord(response.status_details) ? response.status_details : {}
  const error = isRecord(details.error) ? details.error : {}
  return [text(error.type), text(error.code)].filter((s) => s !== '').join('/') || 'unknown'
}

/** A message safe to log: the key never appears, whatever the server echoed. */
export function redact(message: string, secret: string): string {
  return secret === '' ? message : message.split(secret).join('[key]')
}
