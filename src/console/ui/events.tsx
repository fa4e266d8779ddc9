import { useState } from 'preact/hooks'
import { EVENT_TYPES } from '../../domain/events/event-types'
import type { Event } from '../model'
import { Alert, Loaded, Time } from './parts'
import { navigate } from './router'
import { useApi } from './use-api'


/** The id of the object an event is about (its shape depends on the type). */
function objectIdOf(event: Event): string {
  const object: { id?: unknown } = event.data.object
  return typeof object.id === 'string' ? object.id : ''
}

/** Events: newest first, by type and object; each one's JSON as it was sent. */
export function Events(props: { orgId: string; zone: string }) {
  const params = new URLSearchParams(location.search)
  const type = params.get('type') ?? ''
  const objectId = params.get('object_id') ?? ''
  const query = new URLSearchParams({ limit: '50' })
  if (type) query.set('type', type)
  if (objectId) query.set('object_id', objectId)
  const rows = useApi<Event[]>(`/orgs/${props.orgId}/events?${query}`)
  const [open, setOpen] = useState<string | null>(null)

  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <form class="filters" role="search" aria-label="Filter events" onSubmit={(e) => {
        e.preventDefault()
        const form = new FormData(e.currentTarget as HTMLFormElement)
        const next = new URLSearchParams({ org: props.orgId })
        for (const name of ['type', 'object_id']) if (form.get(name)) next.set(name, String(form.get(name)))
        navigate(`/console/events?${next}`)
      }}>
        <label>Type
          <select name="type">
            <option value="">Any type</option>
            {EVENT_TYPES.map((t) => <option value={t} selected={t === type}>{t}</option>)}
          </select>
        </label>
        <label>Object id <input name="object_id" defaultValue={objectId} maxLength={64} /></label>
        <button type="submit">Filter</button>
      </form>
      <Alert text={rows.error} />
      <Loaded state={rows}>{(list) => list.length === 0 ? <p class="empty">No events match. Events appear as leads come in and calls happen (kept 30 days).</p> : (
        <table>
          <caption class="visually-hidden">Events, newest first</caption>
          <thead><tr><th scope="col">Type</th><th scope="col">Object</th><th scope="col">When</th><th scope="col"><span class="visually-hidden">JSON</span></th></tr></thead>
          <tbody>
            {list.map((e) => (
              <>
                <tr key={e.id} data-event={e.id}>
                  <td><code>{e.type}</code></td>
                  <td>{objectIdOf(e)}</td>
                  <td><Time at={e.created} zone={props.zone} /></td>
                  <td><button type="button" class="link" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>{open === e.id ? 'Hide JSON' : 'Show JSON'}<span class="visually-hidden"> of {e.type} {e.id}</span></button></td>
                </tr>
                {open === e.id && <tr><td colSpan={4}><pre class="json" tabIndex={0} aria-label={`JSON of ${e.id}`}>{JSON.stringify(e, null, 2)}</pre></td></tr>}
              </>
            ))}
          </tbody>
        </table>
      )}</Loaded>
    </section>
  )
}
