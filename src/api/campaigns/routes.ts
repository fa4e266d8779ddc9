import { Elysia, t } from 'elysia'
import { listReply } from '../../http/paging'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, idParams, listOf, NoBody, operation, pageLimit, strict } from '../shared'
import { Campaign, CampaignAction, presentCampaign } from './model'

const TAG = 'Campaigns'

export const campaignRoutes = (s: Services) =>
  new Elysia({ prefix: '/campaigns' })
    .use(apiContext(s))
    .get(
      '',
      ({ principal, query }) => {
        const limit = query.limit ?? 50
        const rows = s.campaigns.listVisible(principal, limit + 1, query.cursor)
        return listReply(rows, limit, (row) => presentCampaign(row, principal.livemode))
      },
      {
        permission: 'campaigns:read',
        query: t.Object({ cursor: t.Optional(t.String({ format: 'uuid', 'x-param': 'cursor' })), limit: pageLimit(50) }, strict),
        response: { 200: listOf(Campaign) },
        detail: { operationId: 'listCampaigns', ...operation(TAG, 'List campaigns', 'campaigns:read', 'The campaigns the key can use, newest first.') },
      },
    )
    .get('/:id', ({ principal, params }) => ({ data: presentCampaign(s.campaigns.visible(principal, params.id), principal.livemode) }), {
      permission: 'campaigns:read',
      params: idParams,
      response: { 200: dataOf(Campaign) },
      detail: { operationId: 'getCampaign', ...operation(TAG, 'Get a campaign', 'campaigns:read') },
    })
    .post(
      '/:id/activate',
      ({ principal, params }) => ({
        data: { id: params.id, status: s.campaigns.activate(principal, params.id), livemode: principal.livemode },
      }),
      {
        permission: 'campaigns:write',
        params: idParams,
        body: NoBody,
        response: { 200: dataOf(CampaignAction) },
        detail: { operationId: 'activateCampaign', ...operation(TAG, 'Start dialing', 'campaigns:write',
          'A draft or paused campaign with an SDR becomes active (409 campaign_not_ready without one, 409 campaign_closed when completed). A test key changes nothing and is told the status it would have.',
          { errors: ['campaign_not_ready', 'campaign_closed'] }) },
      },
    )
    .post(
      '/:id/pause',
      ({ principal, params }) => ({
        data: { id: params.id, status: s.campaigns.pause(principal, params.id), livemode: principal.livemode },
      }),
      {
        permission: 'campaigns:write',
        params: idParams,
        body: NoBody,
        response: { 200: dataOf(CampaignAction) },
        detail: { operationId: 'pauseCampaign', ...operation(TAG, 'Pause dialing', 'campaigns:write', 'No new calls; calls already up carry on; leads added meanwhile are held. 409 campaign_closed when completed.',
          { errors: ['campaign_closed'] }) },
      },
    )
