import type { ComponentChildren } from 'preact'
import type { OrgSummary } from '../model'
import type { Capabilities } from './api'
import { CallPage, Calls } from './calls'
import { CampaignSettingsPage } from './campaign-settings'
import { Campaigns } from './campaigns'
import { Dnc } from './dnc'
import { Events } from './events'
import { FloorPage } from './floor'
import { Import } from './import'
import { Keys } from './keys'
import { LeadPage, Leads } from './leads'
import { Numbers } from './numbers'
import { People } from './people'
import { Usage } from './usage'
import { Webhooks } from './webhooks'

/** What a page is drawn with: the organization, what the session may do, and the id in its path. */
export interface PageContext {
  org: OrgSummary
  can: Capabilities
  id: string
}

export interface PageEntry {
  /** The path under /console: a name, or a name and `/:id`. */
  pattern: string
  /** The nav link's text; detail pages have none (their list's link is marked current). */
  nav?: string
  /** The document title (with the organization's name and "Dialer console"). */
  title: string
  /** What the session must be able to do to see the link and open the page. */
  needs?: keyof Capabilities
  render: (page: PageContext) => ComponentChildren
}

/** Every console page, in nav order: the router, the nav and the titles are read from here. */
export const PAGES: readonly PageEntry[] = [
  { pattern: 'campaigns', nav: 'Campaigns', title: 'Campaigns', needs: 'campaigns_read', render: (p) => <Campaigns orgId={p.org.id} canWrite={p.can.campaigns_write} /> },
  { pattern: 'campaigns/:id', title: 'Campaign settings', needs: 'campaigns_write', render: (p) => <CampaignSettingsPage orgId={p.org.id} campaignId={p.id} /> },
  { pattern: 'floor', nav: 'Floor', title: 'Floor', needs: 'calls_read', render: (p) => <FloorPage orgId={p.org.id} zone={p.org.timezone} canSupervise={p.can.campaigns_write} /> },
  { pattern: 'leads', nav: 'Leads', title: 'Leads', needs: 'leads_read', render: (p) => <Leads orgId={p.org.id} zone={p.org.timezone} /> },
  { pattern: 'leads/:id', title: 'Lead', needs: 'leads_read', render: (p) => <LeadPage orgId={p.org.id} leadId={p.id} zone={p.org.timezone} canCall={p.can.calls_write} /> },
  { pattern: 'calls', nav: 'Calls', title: 'Calls', needs: 'calls_read', render: (p) => <Calls orgId={p.org.id} zone={p.org.timezone} outcomes={p.org.outcomes} /> },
  { pattern: 'calls/:id', title: 'Call', needs: 'calls_read', render: (p) => <CallPage orgId={p.org.id} callId={p.id} zone={p.org.timezone} outcomes={p.org.outcomes} canFile={p.can.calls_write} /> },
  { pattern: 'dnc', nav: 'Do Not Call', title: 'Do Not Call', needs: 'dnc_read', render: (p) => <Dnc orgId={p.org.id} zone={p.org.timezone} canWrite={p.can.dnc_write} /> },
  { pattern: 'webhooks', nav: 'Webhooks', title: 'Webhooks', needs: 'events_read', render: (p) => <Webhooks orgId={p.org.id} zone={p.org.timezone} canWrite={p.can.webhooks_write} /> },
  { pattern: 'events', nav: 'Events', title: 'Events', needs: 'events_read', render: (p) => <Events orgId={p.org.id} zone={p.org.timezone} /> },
  { pattern: 'usage', nav: 'Usage', title: 'Usage', needs: 'usage_read', render: (p) => <Usage orgId={p.org.id} /> },
  { pattern: 'keys', nav: 'Keys', title: 'API keys', needs: 'keys', render: (p) => <Keys orgId={p.org.id} zone={p.org.timezone} /> },
  { pattern: 'numbers', nav: 'Numbers', title: 'Numbers', needs: 'numbers', render: (p) => <Numbers orgId={p.org.id} zone={p.org.timezone} /> },
  { pattern: 'people', nav: 'People', title: 'People', needs: 'people', render: (p) => <People orgId={p.org.id} /> },
  { pattern: 'import', nav: 'Import', title: 'Import leads', needs: 'imports', render: (p) => <Import orgId={p.org.id} /> },
]

export const HOME = 'campaigns'

/** The entry a console path names ('' is the home page), with the id its `:id` took; null when none does. */
export function matchPage(page: string): { entry: PageEntry; id: string } | null {
  const [name, id, ...extra] = (page || HOME).split('/')
  if (extra.length > 0) return null
  for (const entry of PAGES) {
    const [entryName, param] = entry.pattern.split('/')
    if (entryName === name && (param === undefined) === (id === undefined) && id !== '') return { entry, id: id ?? '' }
  }
  return null
}

/** Whether the session may see an entry (its link, its page). */
export const allowed = (entry: PageEntry, can: Capabilities): boolean => entry.needs === undefined || can[entry.needs]
