import { Elysia, t } from 'elysia'
import { ApiError } from '../errors'
import { parseCalendarDate } from '../domain/calendar-date'
import { zonedTime } from '../domain/calling-hours/calling-window'
import { handlerOf } from '../domain/calls/call-handler'
import { consentView } from '../domain/calls/call-view'
import { invalid } from '../errors'
import { listReply } from '../http/paging'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { CallDetailReply, CallPage, CallReply } from './model'

const hide = { hide: true }

/** A day picked in the console (YYYY-MM-DD) is the organization's day: `from` is its first instant, `to` its last. */
function dayBound(s: Services, orgId: string, day: string | undefined, param: 'from' | 'to'): number | undefined {
  if (!day) return undefined
  const date = parseCalendarDate(day)
  if (!date) throw invalid(`${param} must be a day such as 2026-03-02.`, param)
  const zone = s.orgs.get(orgId).timezone
  return param === 'from' ? zonedTime(zone, date, '00:00') : zonedTime(zone, { ...date, d: date.d + 1 }, '00:00') - 1
}
const callParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })

/**
 * Calls in the console: the list with its filters, one call with its transcript and
 * recording link, and the outcome form (the SDR's daily work). Same rules as GET /calls and the
 * admin outcome route.
 */
export const consoleCallRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/calls', ({ params, query, who }) => {
      const limit = query.limit ?? 50
      const rows = s.calls.list(who, {
        campaignId: query.campaign_id || undefined,
        outcome: query.outcome || undefined,
        leadId: query.lead_id || undefined,
        createdGte: dayBound(s, params.org, query.from, 'from'),
        createdLte: dayBound(s, params.org, query.to, 'to'),
        startingAfter: query.starting_after || undefined,
      }, limit + 1)
      return listReply(rows, limit, (row) => ({ ...s.calls.listedView(row), handler: handlerOf(row) }))
    }, {
      params: t.Object({ org: t.String({ format: 'uuid' }) }),
      query: t.Object({
        campaign_id: t.Optional(t.String({ maxLength: 64 })),
        outcome: t.Optional(t.String({ maxLength: 50 })),
        lead_id: t.Optional(t.String({ maxLength: 64 })),
        from: t.Optional(t.String({ maxLength: 10 })),
        to: t.Optional(t.String({ maxLength: 10 })),
        starting_after: t.Optional(t.String({ maxLength: 64 })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
      }),
      console: 'calls:read',
      response: { 200: CallPage },
      detail: hide,
    })
    .get('/orgs/:org/calls/:id', ({ params, who }) => {
      const row = s.calls.visible(who, params.id)
      let recording: { url: string; expires_at: string } | null = null
      try {
        recording = s.calls.recordingLink(row)
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'recording_not_available') throw error
      }
      const transcript = s.calls.transcript(row).map((line) => ({ ...line, at: new Date(line.at).toISOString() }))
      const aiSeat = row.aiSeated ? { first_audio_ms: row.aiFirstAudioMs } : null
      return { data: { call: s.calls.view(row), handler: handlerOf(row), transcript, recording, recording_consent: consentView(row), ai_seat: aiSeat } }
    }, { params: callParams, console: 'calls:read', response: { 200: CallDetailReply }, detail: hide })
    .post('/orgs/:org/calls/:id/outcome', ({ params, body, who }) => {
      const row = s.calls.visible(who, params.id)
      return { data: s.calls.view(s.calls.fileOutcome(row.id, body)) }
    }, {
      params: callParams,
      body: t.Object(
        { outcome: t.Optional(t.String({ maxLength: 50 })), outcome_label: t.Optional(t.String({ minLength: 1, maxLength: 100 })), note: t.Optional(t.Nullable(t.String({ maxLength: 5000 }))) },
        { additionalProperties: false },
      ),
      console: 'calls:write',
      response: { 200: CallReply },
      detail: hide,
    })
}
