import { Type as T, type Static, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { isOutcome } from '../../domain/outcomes'
import type { SeatControl } from './contract'

/**
 * The agent's `dialer.*` control messages (docs/agents.md), checked before the host sees them.
 * Extra fields (an agent may add `streamSid`) are ignored; a message that does not fit its shape
 * is dropped whole, never half applied.
 */

/** Excerpts, summaries, notes and transcript lines: longer ones are malformed, not clipped. */
export const MAX_CONTROL_TEXT = 2000
const Text = (options: { minLength?: number } = {}) => T.String({ maxLength: MAX_CONTROL_TEXT, ...options })

// RFC 3339 date-time (upper or lower case T/Z, as the RFC allows).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/

const shapes = {
  'dialer.interested': T.Object({ excerpt: Text(), confidence: T.Number({ minimum: 0, maximum: 1 }), summary: T.Optional(Text()) }),
  'dialer.callback': T.Object({ at: T.String({ maxLength: 40 }) }),
  'dialer.opt_out': T.Object({}),
  'dialer.end': T.Object({ outcome: T.String({ maxLength: 40 }), note: T.Optional(T.Union([Text(), T.Null()])) }),
  'dialer.transcript': T.Object({ speaker: T.Union([T.Literal('ai'), T.Literal('lead')]), text: Text({ minLength: 1 }) }),
} satisfies Record<SeatControl['event'], TSchema>

type Shapes = typeof shapes
const checks = Object.fromEntries(Object.entries(shapes).map(([event, shape]) => [event, TypeCompiler.Compile(shape)])) as {
  [E in keyof Shapes]: ReturnType<typeof TypeCompiler.Compile<Shapes[E]>>
}

/** Unix ms of an RFC 3339 date-time; null when it is not one or names a day that does not exist (Date.parse rolls Feb 31 over). */
export function readDateTime(value: string): number | null {
  if (!DATE_TIME.test(value)) return null
  const ms = Date.parse(value)
  if (!Number.isFinite(ms)) return null
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number]
  const day = new Date(Date.UTC(y, m - 1, d))
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d ? ms : null
}

export type ControlReading = { ok: true; control: SeatControl } | { ok: false; reason: 'unknown_event' | 'malformed_control' | 'unknown_outcome' }

const malformed = { ok: false, reason: 'malformed_control' } as const

/** A parsed JSON frame whose `event` starts with `dialer.`: the control it asks for, or why it is dropped. */
export function readControl(frame: Record<string, unknown>): ControlReading {
  const event = frame.event
  switch (event) {
    case 'dialer.interested': {
      if (!checks[event].Check(frame)) return malformed
      const m = frame as Static<Shapes[typeof event]>
      return { ok: true, control: { event, excerpt: m.excerpt, confidence: m.confidence, summary: m.summary ?? '' } }
    }
    case 'dialer.callback': {
      if (!checks[event].Check(frame)) return malformed
      const at = (frame as Static<Shapes[typeof event]>).at
      const ms = readDateTime(at)
      if (ms === null) return malformed
      return { ok: true, control: { event, at: ms } }
    }
    case 'dialer.opt_out':
      return { ok: true, control: { event, via: 'agent' } }
    case 'dialer.end': {
      if (!checks[event].Check(frame)) return malformed
      const m = frame as Static<Shapes[typeof event]>
      if (!isOutcome(m.outcome)) return { ok: false, reason: 'unknown_outcome' }
      return { ok: true, control: { event, outcome: m.outcome, note: m.note ?? null } }
    }
    case 'dialer.transcript': {
      if (!checks[event].Check(frame)) return malformed
      const m = frame as Static<Shapes[typeof event]>
      return { ok: true, control: { event, speaker: m.speaker, text: m.text } }
    }
    default:
      return { ok: false, reason: 'unknown_event' }
  }
}
