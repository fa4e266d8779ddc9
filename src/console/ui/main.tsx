import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, setCsrf, whenSignedOut, type Me } from './api'
import { CallPage, Calls } from './calls'
import { Campaigns } from './campaigns'
import { Dnc } from './dnc'
import { Events } from './events'
import { Import } from './import'
import { Keys } from './keys'
import { People } from './people'
import { Usage } from './usage'
import { LeadPage, Leads } from './leads'
import { Webhooks } from './webhooks'
import { navigate, onLinkClick, usePath } from './router'
import { SignIn } from './sign-in'
import './styles.css'

/** The console (issue 19): one page app under /console, every page a URL. */
function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined)
  const [notice, setNotice] = useState<string | null>(null)
  const path = usePath()

  useEffect(() => {
    whenSignedOut((message) => {
      setMe(null)
      setNotice(message)
    })
    api<{ data: Me }>('GET', '/session').then((r) => signedIn(r.data), () => setMe(null))
  }, [])

  function signedIn(next: Me) {
    setCsrf(next.csrf_token)
    setNotice(null)
    setMe(next)
  }

  async function signOut() {
    await api('DELETE', '/session').catch(() => {})
    setMe(null)
    setNotice('You are signed out.')
  }

  if (me === undefined) return <p class="loading">Loading…</p>
  if (me === null) return <SignIn notice={notice} onSignedIn={signedIn} />

  const orgs = me.orgs
  const params = new URLSearchParams(location.search)
  const orgId = params.get('org') ?? orgs[0]?.id ?? null
  const org = orgs.find((o) => o.id === orgId) ?? null
  const canWrite = me.kind === 'operator' || me.user?.role === 'owner'
  const page = path.split('?')[0]!.replace(/^\/console\/?/, '') || 'campaigns'
  const link = (to: string) => `/console/${to}${org ? `?org=${org.id}` : ''}`

  return (
    <div class="shell">
      <header>
        <a class="brand" href={link('campaigns')} onClick={onLinkClick}>Dialer</a>
        <nav aria-label="Console">
          <a href={link('campaigns')} onClick={onLinkClick} aria-current={page === 'campaigns' ? 'page' : undefined}>Campaigns</a>
          <a href={link('leads')} onClick={onLinkClick} aria-current={page.startsWith('leads') ? 'page' : undefined}>Leads</a>
          <a href={link('calls')} onClick={onLinkClick} aria-current={page.startsWith('calls') ? 'page' : undefined}>Calls</a>
          <a href={link('dnc')} onClick={onLinkClick} aria-current={page === 'dnc' ? 'page' : undefined}>Do Not Call</a>
          <a href={link('webhooks')} onClick={onLinkClick} aria-current={page === 'webhooks' ? 'page' : undefined}>Webhooks</a>
          <a href={link('events')} onClick={onLinkClick} aria-current={page === 'events' ? 'page' : undefined}>Events</a>
          <a href={link('usage')} onClick={onLinkClick} aria-current={page === 'usage' ? 'page' : undefined}>Usage</a>
          {canWrite && <a href={link('keys')} onClick={onLinkClick} aria-current={page === 'keys' ? 'page' : undefined}>Keys</a>}
          {me.kind === 'operator' && <a href={link('people')} onClick={onLinkClick} aria-current={page === 'people' ? 'page' : undefined}>People</a>}
          {canWrite && <a href={link('import')} onClick={onLinkClick} aria-current={page === 'import' ? 'page' : undefined}>Import</a>}
        </nav>
        {me.kind === 'operator' && orgs.length > 0 && (
          <label class="org-picker">
            Organization
            <select value={org?.id} onChange={(e) => navigate(`/console/${page}?org=${(e.currentTarget as HTMLSelectElement).value}`)}>
              {orgs.map((o) => <option value={o.id}>{o.name}</option>)}
            </select>
          </label>
        )}
        <span class="who">{me.kind === 'operator' ? 'Operator' : `${me.user!.name} (${me.user!.role})`}</span>
        <button type="button" onClick={signOut}>Sign out</button>
      </header>
      <main>
        {!org ? (
          <p class="empty">No organization yet. Create one: <code>dialer admin org create --name "…"</code>.</p>
        ) : page === 'campaigns' ? (
          <Campaigns orgId={org.id} canWrite={canWrite} />
        ) : page === 'calls' ? (
          <Calls key={path} orgId={org.id} zone={org.timezone} />
        ) : page === 'leads' ? (
          <Leads key={path} orgId={org.id} zone={org.timezone} />
        ) : page.startsWith('leads/') ? (
          <LeadPage orgId={org.id} leadId={page.slice('leads/'.length)} zone={org.timezone} canCall />
        ) : page === 'events' ? (
          <Events key={path} orgId={org.id} zone={org.timezone} />
        ) : page === 'usage' ? (
          <Usage orgId={org.id} />
        ) : page === 'people' ? (
          <People orgId={org.id} />
        ) : page === 'keys' ? (
          <Keys orgId={org.id} zone={org.timezone} />
        ) : page === 'import' ? (
          <Import orgId={org.id} />
        ) : page === 'webhooks' ? (
          <Webhooks orgId={org.id} zone={org.timezone} canWrite={canWrite} />
        ) : page === 'dnc' ? (
          <Dnc orgId={org.id} zone={org.timezone} canWrite={canWrite} />
        ) : page.startsWith('calls/') ? (
          <CallPage orgId={org.id} callId={page.slice('calls/'.length)} zone={org.timezone} canFile />
        ) : (
          <p class="empty">No such page. <a href={link('campaigns')} onClick={onLinkClick}>Go to campaigns</a>.</p>
        )}
      </main>
    </div>
  )
}

render(<App />, document.getElementById('app')!)
