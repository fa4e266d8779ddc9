import { Elysia, t } from 'elysia'
import { CampaignSettingsBody } from '../admin/model'
import type { CampaignRow } from '../db/stores/campaign-store'
import { markRoute } from '../http/pipeline'
import { iso } from '../jobs/clock'
import type { Services } from '../services'
import { consoleContext } from './context'
import { CampaignSettingsReply, type CampaignSettings } from './model'

const hide = { hide: true }
const campaignParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })

const present = (c: CampaignRow): CampaignSettings => ({
  id: c.id,
  name: c.name,
  status: c.status,
  lines: c.lines,
  sdrs: c.sdrs,
  closers: c.closers,
  calling_hours: { start: c.callingHoursStart, end: c.callingHoursEnd },
  voicemail: c.voicemail,
  recording_notice: c.recordingNotice,
  dial_mode: c.dialMode,
  max_abandon_rate: c.maxAbandonRate,
  abandon_message: c.abandonMessage,
  ai_agent: !c.aiAgent ? null : c.aiAgent.kind === 'stream'
    ? { kind: 'stream', url: c.aiAgent.url, first_audio_ms: c.aiAgent.first_audio_ms, disclosure: c.aiAgent.disclosure, parameter_names: Object.keys(c.aiAgent.parameters), model: null, voice: null }
    : { kind: 'openai_realtime', url: c.aiAgent.base_url, first_audio_ms: c.aiAgent.first_audio_ms, disclosure: c.aiAgent.disclosure, parameter_names: [], model: c.aiAgent.model, voice: c.aiAgent.voice },
  updated: iso(c.updated),
})

/**
 * A campaign's settings in the console, for its owners: lines, SDRs and closers with their
 * phones, calling hours, voicemail and dial mode, under the admin API's rules (the campaign service's
 * update; the same body schema). People's phone numbers are read only by who may change them.
 */
export const consoleCampaignSettingsRoutes = (s: Services) =>
  new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/campaigns/:id', ({ params, who }) => ({ data: present(s.campaigns.visible(who, params.id)) }), {
      params: campaignParams, console: 'campaigns:write', response: { 200: CampaignSettingsReply }, detail: hide,
    })
    .patch('/orgs/:org/campaigns/:id', ({ params, body, who }) => {
      const campaign = s.campaigns.changeSettings(who, params.id, body)
      // More lines may take leads now (as the admin API's change).
      s.dialer.pump(campaign.id, true)
      s.dialer.pump(campaign.id, false)
      return { data: present(campaign) }
    }, {
      params: campaignParams, body: CampaignSettingsBody, console: 'campaigns:write', response: { 200: CampaignSettingsReply }, detail: hide,
    })
