import { MAX_CONTROL_TEXT, readControl } from '../media-stream/control-messages'
import type { ToolName } from './session-config'

/**
 * The model's function calls become the seat's `dialer.*` control messages (docs/agents.md),
 * checked by the relay's own reader so a call the seat would drop gets an error output instead
 * (the model may retry). Outputs go back as `conversation.item.create` with a
 * `function_call_output` item: https://platform.openai.com/docs/api-reference/realtime-client-events/conversation/item/create
 */

/** Function calls answered per call; later ones get an error output (a flood is capped). */
export const MAX_FUNCTION_CALLS = 20

export type CallReading =
  | { ok: true; frame: string; output: string }
  | { ok: false; output: string }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const refuse = (error: string): CallReading => ({ ok: false, output: JSON.stringify({ ok: false, error }) })

const FRAMES: Record<ToolName, (args: Record<string, unknown>) => Record<string, unknown>> = {
  mark_interested: (a) => ({ event: 'dialer.interested', excerpt: a.excerpt, confidence: a.confidence, summary: a.summary ?? '' }),
  book_callback: (a) => ({ event: 'dialer.callback', at: a.at }),
  opt_out: () => ({ event: 'dialer.opt_out' }),
  end_call: (a) => ({ event: 'dialer.end', outcome: a.outcome, note: a.note ?? null }),
}

const DONE: Record<ToolName, string> = {
  mark_interested: 'A colleague takes the call after you: say a short goodbye now.',
  book_callback: 'The callback is noted: say a short goodbye now.',
  opt_out: 'The person will not be called again: confirm it briefly and say goodbye now.',
  end_call: 'The call ends after you: say a short goodbye now.',
}

/** One function call (`name`, JSON `arguments`): the control frame for the relay and the model's output, or an error output. */
export function readFunctionCall(name: string, rawArguments: string, callsSoFar: number): CallReading {
  if (callsSoFar >= MAX_FUNCTION_CALLS) return refuse('too many function calls on this call')
  if (!Object.hasOwn(FRAMES, name)) return refuse(`unknown function ${name}`)
  let args: unknown
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments)
  } catch {
    return refuse('arguments are not JSON')
  }
  if (!isRecord(args)) return refuse('arguments must be an object')
  const tool = name as ToolName
  const frame = FRAMES[tool](args)
  const read = readControl(frame)
  if (!read.ok) return refuse(badArguments(tool, read.reason))
  return { ok: true, frame: JSON.stringify(frame), output: JSON.stringify({ ok: true, next: DONE[tool] }) }
}

function badArguments(tool: ToolName, reason: string): string {
  if (reason === 'unknown_outcome') return 'outcome is not one of the listed values'
  switch (tool) {
    case 'mark_interested':
      return `excerpt and summary must be text of at most ${MAX_CONTROL_TEXT} characters, confidence a number from 0 to 1`
    case 'book_callback':
      return 'at must be an RFC 3339 date-time with an offset, e.g. 2026-05-04T15:00:00-04:00'
    case 'end_call':
      return `note must be text of at most ${MAX_CONTROL_TEXT} characters`
    default:
      return 'bad arguments'
  }
}
