import { useEffect, useState } from 'preact/hooks'
import { api, ApiFailure } from './api'
import { Time } from './calls'

interface Endpoint {
  id: string
  url: string
  description: string | null
  events: string[]
  status: 'active' | 'paused'
  failing_since: string | null
  last_success_at: string | null
  secret?: string
}

interface Delivery {
  id: string
  event_type: string
  status: string
  attempts: number
  response_status: number | null
  response_body: string | null
  last_attempt_at: string | null
  created: string
  resent_from: string | null
}

const message = (e: unknown) => (e instanceof ApiFailure ? e.message : String(e))

/** Webhooks: endpoints with their health; each one's delivery log; resend, test, pause, resume, roll the secret. */
export function Webhooks(props: { orgId: string; zone: string; canWrite: boolean }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  const loadEndpoints = () => api<{ data: Endpoint[] }>('GET', `/orgs/${props.orgId}/webhooks`).then((r) => setEndpoints(r.data), (e) => setError(message(e)))
  const loadDeliveries = (id: string) => api<{ data: Delivery[] }>('GET', `/orgs/${props.orgId}/webhooks/${id}/deliveries?limit=50`).then((r) => setDeliveries(r.data), (e) => setError(message(e)))
  useEffect(() => {
    void loadEndpoints()
  }, [props.orgId])
  useEffect(() => {
    setDeliveries(null)
    if (open) void loadDeliveries(open)
  }, [open])

  async function act(label: string, path: string, after?: (data: any) => string) {
    setError(null)
    setNotice(null)
    try {
      const reply = await api<{ data: any }>('POST', `/orgs/${props.orgId}/webhooks/${path}`)
      setNotice(after ? after(reply.data) : label)
      await loadEndpoints()
      if (open) await loadDeliveries(open)
    } catch (e) {
      setError(message(e))
    }
  }

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {notice && <p role="status" class="notice-box">{notice}</p>}
      {endpoints === null ? <p>Loading…</p> : endpoints.length === 0 ? (
        <p class="empty">No webhook endpoints. Create one with <code>POST /api/v1/external/webhook_endpoints</code> and its events appear here.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Webhook endpoints</caption>
          <thead><tr><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Failing since</th><th scope="col">Last success</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {endpoints.map((e) => (
              <tr key={e.id} data-endpoint={e.id}>
                <th scope="row"><button type="button" class="link" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>{e.url}</button>{e.description ? <div class="muted">{e.description}</div> : null}</th>
                <td><span class={`status status-${e.status}`}>{e.status}</span></td>
                <td>{e.failing_since ? <Time at={e.failing_since} zone={props.zone} /> : '—'}</td>
                <td>{e.last_success_at ? <Time at={e.last_success_at} zone={props.zone} /> : 'never'}</td>
                <td class="actions">
                  {props.canWrite && <>
                    <button type="button" onClick={() => act('A test event was queued.', `${e.id}/test`)} aria-label={`Send test to ${e.url}`}>Send test</button>
                    {e.status === 'active'
                      ? <button type="button" onClick={() => act('Paused: events wait until it is resumed.', `${e.id}/pause`)} aria-label={`Pause ${e.url}`}>Pause</button>
                      : <button type="button" onClick={() => act('Resumed.', `${e.id}/resume`)} aria-label={`Resume ${e.url}`}>Resume</button>}
                    <button type="button" onClick={() => act('', `${e.id}/roll_secret`, (d) => `New signing secret (shown once; the old one works 24 more hours): ${d.secret}`)} aria-label={`Roll secret of ${e.url}`}>Roll secret</button>
                  </>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && (
        <section aria-labelledby="deliveries-title">
          <h2 id="deliveries-title">Deliveries to {endpoints?.find((e) => e.id === open)?.url}</h2>
          {deliveries === null ? <p>Loading…</p> : deliveries.length === 0 ? <p class="empty">Nothing delivered yet. Send a test event to try the endpoint.</p> : (
            <table>
              <caption class="visually-hidden">Deliveries, newest first</caption>
              <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Receiver answered</th><th scope="col">Last attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={d.id} data-delivery={d.id}>
                    <td>{d.event_type}{d.resent_from ? <span class="muted"> (resent)</span> : null}</td>
                    <td>{d.status.replace('_', ' ')}</td>
                    <td>{d.attempts}</td>
                    <td>{d.response_status ?? '—'} {d.response_body ? <code class="body">{d.response_body.slice(0, 200)}</code> : null}</td>
                    <td>{d.last_attempt_at ? <Time at={d.last_attempt_at} zone={props.zone} /> : '—'}</td>
                    <td>{props.canWrite && <button type="button" onClick={() => act('Resent: a new delivery was queued.', `${open}/deliveries/${d.id}/resend`)} aria-label={`Resend ${d.event_type} delivery`}>Resend</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </section>
  )
}
