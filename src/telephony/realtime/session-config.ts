import { OUTCOMES } from '../../domain/outcomes'
import type { RealtimeSeatAgent } from '../media-stream/contract'

/**
 * The Realtime session the built-in agent asks for (GA interface): `session.update` with
 * `session.type: "realtime"`, μ-law both ways (`audio/pcmu`, the telephone's own audio, so nothing
 * is resampled), server VAD, input transcription, the rendered instructions, the voice and four tools.
 * https://platform.openai.com/docs/api-reference/realtime-client-events/session/update
 * https://platform.openai.com/docs/guides/realtime-conversations (function calling)
 */

/** The model that transcribes the lead's side (the Realtime model itself hears the audio). */
export const TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe'

export const TOOL_NAMES = ['mark_interested', 'book_callback', 'opt_out', 'end_call'] as const
export type ToolName = (typeof TOOL_NAMES)[number]

const tools = [
  {
    type: 'function',
    name: 'mark_interested',
    description: 'The person is interested: a colleague takes the call next. Say a short goodbye after calling it.',
    parameters: {
      type: 'object',
      properties: {
        excerpt: { type: 'string', description: 'What the person said that shows interest, word for word.' },
        confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure you are (0 to 1).' },
        summary: { type: 'string', description: 'A short briefing for the colleague who takes the call.' },
      },
      required: ['excerpt', 'confidence', 'summary'],
    },
  },
  {
    type: 'function',
    name: 'book_callback',
    description: 'The person asked to be called back at a given time. Say goodbye after calling it.',
    parameters: {
      type: 'object',
      properties: { at: { type: 'string', description: 'When, as an RFC 3339 date-time with its offset, e.g. 2026-05-04T15:00:00-04:00.' } },
      required: ['at'],
    },
  },
  {
    type: 'function',
    name: 'opt_out',
    description: 'The person does not want to be called again. Confirm briefly and say goodbye after calling it.',
    parameters: { type: 'object', properties: {} },
  },
  {
    type: 'function',
    name: 'end_call',
    description: 'End the call with an outcome. Say goodbye after calling it.',
    parameters: {
      type: 'object',
      properties: {
        outcome: { type: 'string', enum: [...OUTCOMES] },
        note: { type: 'string', description: 'A short note for the call record.' },
      },
      required: ['outcome'],
    },
  },
] as const

/** The `session.update` client event sent when the socket opens. */
export function sessionUpdate(agent: RealtimeSeatAgent): Record<string, unknown> {
  return {
    type: 'session.update',
    session: {
      type: 'realtime',
      output_modalities: ['audio'],
      instructions: agent.instructions,
      audio: {
        input: {
          format: { type: 'audio/pcmu' },
          transcription: { model: TRANSCRIPTION_MODEL },
          turn_detection: { type: 'server_vad' },
        },
        output: { format: { type: 'audio/pcmu' }, voice: agent.voice },
      },
      tools,
      tool_choice: 'auto',
    },
  }
}

/** The Realtime endpoint for the agent's model (`?model=` added to the configured base URL). */
export function realtimeUrl(agent: RealtimeSeatAgent): string {
  const url = new URL(agent.baseUrl)
  url.searchParams.set('model', agent.model)
  return url.toString()
}
