/**
 * The pieces the reply shapes are built from (TypeBox, no HTTP). The Lead and Call models live
 * in src/domain/leads/lead-shape.ts and src/domain/calls/call-shape.ts: the domain's reply types
 * are their `Static`, and the API validates and documents replies with the same models.
 */
import { FormatRegistry, Type, type SchemaOptions, type TNull, type TSchema, type TUnion } from '@sinclair/typebox'
import { isCalendarDate } from './calendar-date'

// `format: 'date'` is a calendar date (YYYY-MM-DD, a day that exists). Elysia registers a looser
// one (whatever Date can read: 2026-02-31, date-times, 03/02/2026); this replaces it, whichever
// of the two modules loads first.
FormatRegistry.Set('date', isCalendarDate)

/** `schema` or null, written exactly as Elysia's `t.Nullable` writes it (the OpenAPI document depends on it). */
export const Nullable = <T extends TSchema>(schema: T, options?: SchemaOptions): TUnion<[T, TNull]> =>
  Type.Union([schema, Type.Null()], { ...options, nullable: true })

export const DateTime = Type.String({ format: 'date-time' })
export const Uuid = Type.String({ format: 'uuid' })

/** An SDR or closer as a lead's or call's owner. */
export const Person = Type.Object({ id: Type.String(), name: Type.String() })
