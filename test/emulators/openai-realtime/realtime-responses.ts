import { toneDeltas } from './realtime-audio'
import type { ScriptUsage, Turn } from './realtime-scripts'
import { newId, type RealtimeSession } from './realtime-session'

/**
 * A scripted response as the GA server events tell it
 * (https://developers.openai.com/api/reference/resources/realtime/server-events): response.created;
 * per output item response.output_item.added and conversation.item.added; for speech
 * response.content_part.added, response.output_audio.delta (base64 μ-law) with
 * response.output_audio_transcript.delta, then response.output_audio.done,
 * response.output_audio_transcript.done (`transcript`), response.content_part.done; for a function
 * call response.function_call_arguments.delta/.done (`call_id`, `name`, `arguments`); then
 * response.output_item.done and conversation.item.done; last response.done with `status`,
 * `status_details` and `usage` (input_token_details: text/audio/cached tokens,
 * output_token_details: text/audio tokens). Speech detected meanwhile cancels it (status
 * `cancelled`, reason `turn_detected`), as server VAD's interrupt_response does.
 */

export interface OutputItem {
  id: string
  type: 'message' | 'function_call'
  /** Ms of audio sent for a message (less than planned when cancelled). */
  audioMs: number
  /** The full transcript sent for a message. */
  transcript: string
  call_id?: string
  name?: string
  arguments?: string
}

export interface ResponseRecord {
  id: string
  turn: Turn
  status: 'in_progress' | 'completed' | 'cancelled' | 'failed' | 'incomplete'
  items: OutputItem[]
  /** Ms of audio in the response. */
  audioMs: number
  usage: Record<string, unknown> | null
  /** Set to end the response early. */
  cancel: 'turn_detected' | 'client_cancelled' | null
  /** response.create's `response` parameters, if any. */
  params: Record<string, unknown> | null
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function playTurn(session: RealtimeSession, turn: Turn, params: Record<string, unknown> | null): Promise<void> {
  if (turn.close) return session.close(1011, 'session closed')
  if (turn.serverError) return session.error('server_error', null, 'The server had an error while processing your request. Sorry about that!')
  const response: ResponseRecord = { id: newId('resp'), turn, status: 'in_progress', items: [], audioMs: 0, usage: null, cancel: null, params }
  session.responses.push(response)
  session.active = response
  const { options } = session
  if (options.responseDelayMs > 0) await sleep(options.responseDelayMs)
  session.emit({ type: 'response.created', response: shell(response, session) })
  if (!turn.fail) {
    let outputIndex = 0
    if (turn.say !== undefined && !response.cancel) await speak(session, response, turn, outputIndex++)
    for (const call of turn.calls ?? []) {
      if (response.cancel) break
      callFunction(session, response, call, outputIndex++)
    }
  }
  finish(session, response)
}

async function speak(session: RealtimeSession, response: ResponseRecord, turn: Turn, output_index: number): Promise<void> {
  const text = turn.say ?? ''
  const ms = turn.audioMs ?? Math.max(1000, Math.round((text.length / 15) * 1000))
  const item: OutputItem = { id: newId('item'), type: 'message', audioMs: 0, transcript: '' }
  response.items.push(item)
  const ids = { response_id: response.id, item_id: item.id, output_index, content_index: 0 }
  const inProgress = { id: item.id, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] }
  session.emit({ type: 'response.output_item.added', response_id: response.id, output_index, item: inProgress })
  session.emit({ type: 'conversation.item.added', previous_item_id: null, item: inProgress })
  session.emit({ type: 'response.content_part.added', ...ids, part: { type: 'audio', transcript: '' } })
  const deltas = toneDeltas(ms, session.options.deltaMs, session.audioPhase)
  const words = text.split(/(?<= )/)
  let spoken = 0
  for (let n = 0; n < deltas.length; n++) {
    if (response.cancel) break
    const delta = deltas[n]!
    const bytes = (delta.length / 4) * 3 - (delta.endsWith('==') ? 2 : delta.endsWith('=') ? 1 : 0)
    session.audioPhase += bytes
    item.audioMs += bytes / 8
    response.audioMs += bytes / 8
    session.emit({ type: 'response.output_audio.delta', ...ids, delta })
    // The transcript keeps pace with the audio: words in proportion to the deltas sent.
    const upTo = Math.round(((n + 1) / deltas.length) * words.length)
    if (upTo > spoken) {
      const piece = words.slice(spoken, upTo).join('')
      spoken = upTo
      item.transcript += piece
      session.emit({ type: 'response.output_audio_transcript.delta', ...ids, delta: piece })
    }
    if (session.options.pace > 0) await sleep(bytes / 8 / session.options.pace)
  }
  session.emit({ type: 'response.output_audio.done', ...ids })
  session.emit({ type: 'response.output_audio_transcript.done', ...ids, transcript: item.transcript })
  session.emit({ type: 'response.content_part.done', ...ids, part: { type: 'audio', transcript: item.transcript } })
  const done = { id: item.id, object: 'realtime.item', type: 'message', status: response.cancel ? 'incomplete' : 'completed', role: 'assistant', content: [{ type: 'output_audio', transcript: item.transcript }] }
  session.emit({ type: 'response.output_item.done', response_id: response.id, output_index, item: done })
  session.emit({ type: 'conversation.item.done', previous_item_id: null, item: done })
}

function callFunction(session: RealtimeSession, response: ResponseRecord, call: NonNullable<Turn['calls']>[number], output_index: number): void {
  const declared = Array.isArray(session.config.tools) && session.config.tools.some((t: any) => t?.name === call.name)
  if (!declared) session.problems.push(`the script called '${call.name}', a tool the session does not declare`)
  const raw = typeof call.arguments === 'function' ? call.arguments() : call.arguments
  const args = typeof raw === 'string' ? raw : JSON.stringify(raw)
  const item: OutputItem = { id: newId('item'), type: 'function_call', audioMs: 0, transcript: '', call_id: newId('call'), name: call.name, arguments: args }
  response.items.push(item)
  session.calls.set(item.call_id!, { name: call.name, arguments: args, item_id: item.id })
  const base = { id: item.id, object: 'realtime.item', type: 'function_call', name: call.name, call_id: item.call_id }
  session.emit({ type: 'response.output_item.added', response_id: response.id, output_index, item: { ...base, status: 'in_progress', arguments: '' } })
  session.emit({ type: 'conversation.item.added', previous_item_id: null, item: { ...base, status: 'in_progress', arguments: '' } })
  session.emit({ type: 'response.function_call_arguments.delta', response_id: response.id, item_id: item.id, output_index, call_id: item.call_id, delta: args })
  session.emit({ type: 'response.function_call_arguments.done', response_id: response.id, item_id: item.id, output_index, call_id: item.call_id, name: call.name, arguments: args })
  session.emit({ type: 'response.output_item.done', response_id: response.id, output_index, item: { ...base, status: 'completed', arguments: args } })
  session.emit({ type: 'conversation.item.done', previous_item_id: null, item: { ...base, status: 'completed', arguments: args } })
}

function finish(session: RealtimeSession, response: ResponseRecord): void {
  const { turn } = response
  if (turn.fail === 'rate_limit') {
    response.status = 'failed'
  } else {
    response.status = response.cancel ? 'cancelled' : 'completed'
  }
  response.usage = usageOf(session, response)
  session.active = null
  const status_details = response.status === 'failed'
    ? { type: 'failed', error: { type: 'tokens', code: 'rate_limit_exceeded', message: `Rate limit reached for ${session.model} on tokens per min (TPM): Limit 40000, Used 40000, Requested 1200. Please try again in 1.8s.` } }
    : response.status === 'cancelled' ? { type: 'cancelled', reason: response.cancel } : null
  session.emit({ type: 'response.done', response: { ...shell(response, session), status_details, usage: response.usage } })
}

function shell(response: ResponseRecord, session: RealtimeSession): Record<string, unknown> {
  return {
    id: response.id, object: 'realtime.response', status: response.status, status_details: null,
    output: response.items.map((i) => i.type === 'message'
      ? { id: i.id, object: 'realtime.item', type: 'message', role: 'assistant', status: response.status === 'in_progress' ? 'in_progress' : 'completed', content: [{ type: 'output_audio', transcript: i.transcript }] }
      : { id: i.id, object: 'realtime.item', type: 'function_call', status: 'completed', name: i.name, call_id: i.call_id, arguments: i.arguments }),
    conversation_id: session.id, output_modalities: ['audio'], max_output_tokens: 'inf',
    audio: { output: { format: session.config.audio.output.format, voice: session.config.audio.output.voice } }, usage: null, metadata: null,
  }
}

/** Deterministic figures: input audio ~10 tokens a second heard, text ~4 characters a token, output audio ~20 tokens a second. */
function usageOf(session: RealtimeSession, response: ResponseRecord): Record<string, unknown> {
  const instructions = String(session.config.instructions ?? '')
  const tools = Array.isArray(session.config.tools) ? JSON.stringify(session.config.tools).length : 0
  const index = session.responses.indexOf(response)
  const text = Math.ceil((instructions.length + tools) / 4)
  const figures: ScriptUsage = {
    input_text_tokens: text,
    input_audio_tokens: Math.round(session.audioMs / 100),
    input_cached_tokens: index > 0 ? Math.floor(text / 2) : 0,
    output_text_tokens: Math.ceil(response.items.reduce((n, i) => n + i.transcript.length + (i.arguments?.length ?? 0), 0) / 4),
    output_audio_tokens: Math.round(response.audioMs / 50),
    ...response.turn.usage,
  }
  const input = figures.input_text_tokens + figures.input_audio_tokens
  const output = figures.output_text_tokens + figures.output_audio_tokens
  return {
    total_tokens: input + output, input_tokens: input, output_tokens: output,
    input_token_details: {
      text_tokens: figures.input_text_tokens, audio_tokens: figures.input_audio_tokens, image_tokens: 0, cached_tokens: figures.input_cached_tokens,
      cached_tokens_details: { text_tokens: figures.input_cached_tokens, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: { text_tokens: figures.output_text_tokens, audio_tokens: figures.output_audio_tokens },
  }
}
