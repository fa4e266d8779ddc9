import { Elysia, t } from 'elysia'
import { apiContext, markRoute } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, operation, strict, Uuid } from '../shared'
import { Export, ExportDownload, ExportType } from './model'

const TAG = 'Exports'

const date = t.String({ description: 'YYYY-MM-DD, a day in the organization\u2019s zone' })
const CreateBody = t.Object(
  {
    exportType: ExportType,
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
      response: { 200: dataOf(ExportDownload) },
      detail: { operationId: 'createExport', ...operation(TAG, 'Create an export', 'leads:read',
        'Also needs calls:read, on a key for every campaign. A CSV file with a header line; `downloadUrl` is a signed link served by the service until `expiresAt` (24 h). Answers once the file is ready, or `pending` when it takes longer. A test key gets a sample file. A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `\'` so spreadsheets show it as text; the `phone` column (E.164), numbers, ids and times are written as they are.') },
    })
    .get('/exports', ({ principal }) => ({ data: s.exports.list(principal) }), {
      permission: ['leads:read', 'calls:read'],
      response: { 200: t.Object({ data: t.Array(Export) }) },
      detail: { operationId: 'listExports', ...operation(TAG, 'List exports', 'leads:read', 'Also needs calls:read, on a key for every campaign. A test key has none.') },
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

