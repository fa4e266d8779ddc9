import { Elysia, t } from 'elysia'
import { requireConsolePermission } from '../domain/console/console-access'
import { parseMapping } from '../domain/leads/lead-import'
import { readCsvText } from '../http/csv-upload'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { principalOf } from './context'

/** The console's Import page (issue 19): a dry run for the preview, then the import; owners (leads:write). */
export const consoleImportRoutes = (s: Services) => {
  const principal = principalOf(s)
  return new Elysia()
    .onTransform(markRoute)
    .post('/orgs/:org/leads/import', async ({ request, params, query }) => {
      const who = principal(request, params.org)
      requireConsolePermission(who, 'leads:write')
      const text = await readCsvText(request)
      return { data: await s.leads.importCsv(who, query.campaign_id, text, { dryRun: query.dry_run === 'true', mapping: parseMapping(query.map) }) }
    }, {
      params: t.Object({ org: t.String({ format: 'uuid' }) }),
      query: t.Object({
        campaign_id: t.String({ format: 'uuid' }),
        dry_run: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
        map: t.Optional(t.String({ maxLength: 10_000 })),
      }),
      detail: { hide: true },
    })
}
