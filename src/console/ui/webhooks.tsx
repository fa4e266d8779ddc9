import { useState } from 'preact/hooks'
import type { Delivery, Endpoint } from '../model'
import { api, errorText } from './api'
import { Alert, Loaded, Time } from './parts'
import { useApi } from './use-api'

/** Webhooks: endpoints with their health; each one's delivery log; resend, test, pause, resume, roll the secret. */
export function Webhooks(props: { orgId: string; zone: string; canWrite: boolean }) {
  const endpoints = useApi<Endpoint[]>(`/orgs/${props.orgId}/webhooks`)
  const [open, setOpen] = useState<string | null>(null)
  const deliveries = useApi<Delivery[]>(open ? `/orgs/${props.orgId}/webhooks/${open}/deliveries?limit=50` : null)
  const [notice, setNotice] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  async function act<T = unknown>(label: string, path: string, after?: (data: T) => string) {
    setError(null)
    setNotice(null)
    try {
      const reply = await api<{ data: T }>('POST', `/orgs/${props.orgId}/webhooks/${path}`)
      setNotice(after ? after(reply.data) : label)
      await Promise.all([endpoints.reload(), deliveries.reload()])
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <Alert text={error ?? endpoints.error ?? deliveries.error} />
      {notice && <p role="status" class="notice-box">{notice}</p>}
      <Loaded state={endpoints}>{(list) => list.length === 0 ? (
        <p class="empty">No webhook endpoints. Create one with <code>POST /api/v1/external/webhook_endpoints</code> and its events appear here.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Webhook endpoints</caption>
          <thead><tr><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Failing since</th><th scope="col">Last success</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {list.map((e) => (
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
                    <button type="button" onClick={() => act<Endpoint>('', `${e.id}/roll_secret`, (d) => `New signing secret (shown once; the old one works 24 more hours): ${d.secret}`)} aria-label={`Roll secret of ${e.url}`}>Roll secret</button>
                  </>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
      {open && (
        <section aria-labelledby="deliveries-title">
          <h2 id="deliveries-title">Deliveries to {endpoints.data?.find((e) => e.id === open)?.url}</h2>
          <Loaded state={deliveries}>{(list) => list.length === 0 ? <p class="empty">Nothing delivered yet. Send a test event to try the endpoint.</p> : (
            <table>
              <caption class="visually-hidden">Deliveries, newest first</caption>
              <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Receiver answered</th><th scope="col">Last attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {list.map((d) => (
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
          )}</Loaded>
        </section>
      )}
    </section>
  )
}
