import { useState } from 'preact/hooks'
import { PERMISSIONS } from '../../domain/access/permission-names'
import type { ApiKey, BoardCampaign } from '../model'
import { api, errorText } from './api'
import { Alert, Loaded, Time } from './parts'
import { useApi } from './use-api'

/** API keys (owners): create (the secret shown once), permissions, campaign scope, limits, revoke. */
export function Keys(props: { orgId: string; zone: string }) {
  const keys = useApi<ApiKey[]>(`/orgs/${props.orgId}/keys`)
  const campaigns = useApi<BoardCampaign[]>(`/orgs/${props.orgId}/campaigns`).data ?? []
  const [created, setCreated] = useState<ApiKey | null>(null)
  const [error, setError] = useState<string | null>(null)

  async function create(event: Event) {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    setError(null)
    setCreated(null)
    const scope = data.getAll('campaign_ids').map(String)
    try {
      const reply = await api<{ data: ApiKey }>('POST', `/orgs/${props.orgId}/keys`, {
        name: String(data.get('name') ?? ''),
        mode: String(data.get('mode') ?? 'live'),
        permissions: data.getAll('permissions').map(String),
        campaign_ids: scope.length === 0 ? null : scope,
        requests_per_minute: Number(data.get('requests_per_minute') || 120),
        burst: Number(data.get('burst') || 20),
        leads_per_minute: Number(data.get('leads_per_minute') || 60),
        max_concurrent: Number(data.get('max_concurrent') || 20),
      })
      setCreated(reply.data)
      form.reset()
      await keys.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  async function revoke(key: ApiKey) {
    if (!confirm(`Revoke ${key.name}? Requests with it fail from now on.`)) return
    setError(null)
    try {
      await api('POST', `/orgs/${props.orgId}/keys/${key.id}/revoke`)
      await keys.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <Alert text={error ?? keys.error} />
      {created?.secret && (
        <p role="status" class="notice-box">Key {created.id} created. Its secret, shown this once: <code>{created.secret}</code></p>
      )}
      <form class="panel" onSubmit={create} aria-labelledby="new-key-title">
        <h2 id="new-key-title">New key</h2>
        <label>Name <input name="name" required maxLength={200} /></label>
        <label>Mode
          <select name="mode"><option value="live">live</option><option value="test">test</option></select>
        </label>
        <fieldset>
          <legend>Permissions</legend>
          {PERMISSIONS.map((p) => <label class="check"><input type="checkbox" name="permissions" value={p} checked /> {p}</label>)}
        </fieldset>
        {campaigns.length > 0 && (
          <fieldset>
            <legend>Campaigns (none ticked: every campaign)</legend>
            {campaigns.map((c) => <label class="check"><input type="checkbox" name="campaign_ids" value={c.id} /> {c.name}</label>)}
          </fieldset>
        )}
        <div class="limits">
          <label>Requests a minute <input name="requests_per_minute" type="number" min={1} max={100000} defaultValue="120" /></label>
          <label>Burst <input name="burst" type="number" min={1} max={100000} defaultValue="20" /></label>
          <label>New leads a minute <input name="leads_per_minute" type="number" min={1} max={100000} defaultValue="60" /></label>
          <label>Requests at once <input name="max_concurrent" type="number" min={1} max={50} defaultValue="20" /></label>
        </div>
        <button type="submit">Create key</button>
      </form>
      <Loaded state={keys}>{(list) => list.length === 0 ? <p class="empty">No keys yet. Create one above for your CRM or web forms.</p> : (
        <table>
          <caption class="visually-hidden">API keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Key id</th><th scope="col">Mode</th><th scope="col">Permissions</th><th scope="col">Campaigns</th><th scope="col">Limits</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {list.map((k) => (
              <tr key={k.id} data-key={k.id}>
                <td>{k.name}</td>
                <td><code>{k.id}</code></td>
                <td>{k.mode}</td>
                <td>{k.permissions.length === PERMISSIONS.length ? 'all' : k.permissions.join(', ')}</td>
                <td>{k.campaign_ids === null ? 'all' : k.campaign_ids.length}</td>
                <td>{k.requests_per_minute}/min, burst {k.burst}, {k.leads_per_minute} leads/min, {k.max_concurrent} at once</td>
                <td><Time at={k.created} zone={props.zone} /></td>
                <td>{k.revoked_at ? <>revoked <Time at={k.revoked_at} zone={props.zone} /></> : <button type="button" onClick={() => revoke(k)} aria-label={`Revoke ${k.name}`}>Revoke</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
    </section>
  )
}
