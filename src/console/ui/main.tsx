import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, setCsrf, whenSignedOut, type Me } from './api'
import { allowed, HOME, matchPage, PAGES } from './page-table'
import { navigate, onLinkClick, usePath } from './router'
import { SignIn } from './sign-in'
import './styles.css'

/** The console: one page app under /console, every page a URL (see page-table.tsx). */
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

  const orgs = me?.orgs ?? []
  const orgId = new URLSearchParams(location.search).get('org') ?? orgs[0]?.id ?? null
  const org = orgs.find((o) => o.id === orgId) ?? null
  const page = path.split('?')[0]!.replace(/^\/console\/?/, '') || HOME
  const found = matchPage(page)
  const can = me?.capabilities
  const shown = found && can && allowed(found.entry, can) ? found : null

  useEffect(() => {
    const title = me === undefined ? null : me === null ? 'Sign in' : !org ? 'No organization' : shown ? `${shown.entry.title} · ${org.name}` : found ? 'Not for your role' : 'No such page'
    document.title = title ? `${title} · Dialer console` : 'Dialer console'
  }, [me, org?.name, shown?.entry, found?.entry])

  if (me === undefined) return <p class="loading">Loading…</p>
  if (me === null || !can) return <SignIn notice={notice} onSignedIn={signedIn} />

  const link = (to: string) => `/console/${to}${org ? `?org=${org.id}` : ''}`
  const section = page.split('/')[0]

  return (
    <div class="shell">
      <header>
        <a class="brand" href={link(HOME)} onClick={onLinkClick}>Dialer</a>
        <nav aria-label="Console">
          {PAGES.filter((entry) => entry.nav && allowed(entry, can)).map((entry) => (
            <a href={link(entry.pattern)} onClick={onLinkClick} aria-current={section === entry.pattern ? 'page' : undefined}>{entry.nav}</a>
          ))}
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
      <main key={path}>
        {!org ? (
          <p class="empty">No organization yet. Create one: <code>dialer admin org create --name "…"</code>.</p>
        ) : shown ? (
          shown.entry.render({ org, can, id: shown.id })
        ) : found ? (
          <p class="empty">Your role cannot open this page; ask an owner of the organization. <a href={link(HOME)} onClick={onLinkClick}>Go to campaigns</a>.</p>
        ) : (
          <p class="empty">No such page. <a href={link(HOME)} onClick={onLinkClick}>Go to campaigns</a>.</p>
        )}
      </main>
    </div>
  )
}

render(<App />, document.getElementById('app')!)
