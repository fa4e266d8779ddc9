import { Elysia, t } from 'elysia'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { UsageReply } from './model'

/** Usage in the console: a month by day, by campaign and by key, as GET /usage; with the campaigns' spend caps. */
export const consoleUsageRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/usage', ({ query, who }) => {
      const period = query.period ?? 'current'
      return {
        data: {
          by_day: s.usage.read(who, period, 'day'),
          by_campaign: s.usage.read(who, period, 'campaign'),
          by_key: s.usage.read(who, period, 'key'),
          spend_caps: s.campaigns.listForOrg(who.orgId, 200).map((c) => ({ campaign_id: c.id, name: c.name, spend_cap_usd: c.spendCapUsd })),
        },
      }
    }, {
      params: t.Object({ org: t.String({ format: 'uuid' }) }),
      query: t.Object({ period: t.Optional(t.String({ maxLength: 20 })) }),
      console: 'usage:read',
      response: { 200: UsageReply },
      detail: { hide: true },
    })
}
