import { Elysia, t } from 'elysia'
import { apiContext, markRoute } from '../../http/pipeline'
import type { Services } from '../../services'
import { DateTime, operation, strict, Uuid } from '../shared'

const TAG = 'Exports'

const Export = t.Object({
  id: Uuid,
  exportType: t.Union([t.Literal('leads'), t.Literal('call_history'), t.Literal('analytics')]),
  status: t.Union([t.Literal('pending'), t.Literal('ready'), t.Literal('failed'), t.Literal('expired')]),
  rowCount: t.Integer(),
  createdAt: DateTime,
  expiresAt: DateTime,
  livemode: t.Boolean(),
})

const date = t.String({ description: 'YYYY-MM-DD, a day in the organization\u2019s zone' })
const CreateBody = t.Object(
  {
    exportType: t.Union([t.Literal('leads'), t.Literal('call_history'), t.Literal('analytics')]),
    filters: t.Optional(t.Object({ campaignId: t.Optional(Uuid), startDate: t.Optional(date), endDate: t.Optional(date) }, strict)),
  },
  strict,
)

export const exportRoutes = (s: Services) =>
  new Elysia()
    .use(apiContext(s))
    .post('/exports', async ({ principal, body }) => ({ data: await s.exports.create(principal, body.exportType, body.filters ?? {}) }), {
      // Both before the body is read: a key without calls:read learns that first.
      permission: ['leads:read', 'calls:read'],
      body: CreateBody,
      response: { 200: t.Object({ data: t.Object({ export: Export, downloadUrl: t.String({ format: 'uri' }), livemode: t.Boolean() }) }) },
      detail: operation(TAG, 'Create an export', 'leads:read',
        'Also needs calls:read, on a key for every campaign. A CSV file with a header line; `downloadUrl` is a signed link served by the service until `expiresAt` (24 h). Answers once the file is ready, or `pending` when it takes longer. A test key gets a sample file. A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `\'` so spreadsheets show it as text; the `phone` column (E.164), numbers, ids and times are written as they are.'),
    })
    .get('/exports', ({ principal }) => ({ data: s.exports.list(principal) }), {
      permission: ['leads:read', 'calls:read'],
      response: { 200: t.Object({ data: t.Array(Export) }) },
      detail: operation(TAG, 'List exports', 'leads:read', 'Also needs calls:read, on a key for every campaign. A test key has none.'),
    })

/** The signed export links (no API key: the signature is the permission). */
export const exportDownloadRoutes = (s: Services) =>
  new Elysia().onTransform(markRoute).get(
    '/exports/:id/download',
    ({ params, query }) => {
      const file = s.exports.file(params.id, query.expires, query.signature)
      return new Response(Bun.file(file.path), {
        headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${file.name}"` },
      })
    },
    {
      params: t.Object({ id: t.String({ maxLength: 100 }) }),
      query: t.Object({ expires: t.Optional(t.String()), signature: t.Optional(t.String()) }),
      detail: { hide: true },
    },
  )

