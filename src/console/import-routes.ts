import { Elysia, t } from 'elysia'
import { parseMapping } from '../domain/leads/lead-import'
import { bodyReader, readChunks } from '../http/body-reader'
import { CSV_FILE } from '../http/csv-upload'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { ImportReply } from './model'

/** The console's Import page: a dry run for the preview, then the import; owners (leads:write). */
export const consoleImportRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .use(bodyReader())
    .onTransform(markRoute)
    .post('/orgs/:org/leads/import', async ({ request, query, who }) => {
      const options = { dryRun: query.dry_run === 'true', mapping: parseMapping(query.map) }
      return { data: await s.leads.importCsv(who, query.campaign_id, readChunks(request, CSV_FILE), options) }
    }, {
      reads: CSV_FILE,
      params: t.Object({ org: t.String({ format: 'uuid' }) }),
      query: t.Object({
        campaign_id: t.String({ format: 'uuid' }),
        dry_run: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
        map: t.Optional(t.String({ maxLength: 10_000 })),
      }),
      console: 'leads:write',
      response: { 200: ImportReply },
      detail: { hide: true },
    })
}
