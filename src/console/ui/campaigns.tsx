import { useEffect, useState } from 'preact/hooks'
import { api, ApiFailure } from './api'

export interface CampaignBoardRow {
  id: string
  name: string
  status: 'draft' | 'active' | 'paused' | 'completed'
  lines: number
  lines_in_use: number
  queued: number
  queued_call_now: number
  queued_other: number
  late: number
  calls_today: number
  connects_today: number
}

/** Campaigns: what each is doing now, live (server-sent events), with pause and activate. */
export function Campaigns(props: { orgId: string; canWrite: boolean }) {
  const [rows, setRows] = useState<CampaignBoardRow[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [live, setLive] = useState(false)

  useEffect(() => {
    let closed = false
    api<{ data: CampaignBoardRow[] }>('GET', `/orgs/${props.orgId}/campaigns`).then((r) => !closed && setRows(r.data), (e) => setError(e.message))
    const source = new EventSource(`/console/api/orgs/${props.orgId}/campaigns/stream`)
    source.addEventListener('campaigns', (event) => {
      setRows(JSON.parse((event as MessageEvent).data).data)
      setLive(true)
    })
    source.onerror = () => setLive(false)
    return () => {
      closed = true
      source.close()
    }
  }, [props.orgId])

  async function change(row: CampaignBoardRow, action: 'pause' | 'activate') {
    setError(null)
    try {
      const reply = await api<{ data: { status: CampaignBoardRow['status'] } }>('POST', `/orgs/${props.orgId}/campaigns/${row.id}/${action}`)
      setRows((current) => current?.map((r) => (r.id === row.id ? { ...r, status: reply.data.status } : r)) ?? null)
    } catch (e) {
      setError(e instanceof ApiFailure ? e.message : String(e))
    }
  }

  return (
    <section aria-labelledby="campaigns-title">
      <h1 id="campaigns-title">Campaigns</h1>
      <p class="live" aria-live="polite">{live ? 'Live: updates every 2 seconds' : 'Connecting for live updates…'}</p>
      {error && <p class="error" role="alert">{error}</p>}
      {rows === null ? <p>Loading…</p> : rows.length === 0 ? (
        <p class="empty">No campaigns yet. An operator creates them: <code>dialer admin campaign create --org {props.orgId} --name "…"</code>.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Campaigns with their lines, queue and today's calls</caption>
          <thead>
            <tr>
              <th scope="col">Campaign</th><th scope="col">Status</th><th scope="col">Lines in use</th><th scope="col">Call now</th>
              <th scope="col">Other queued</th><th scope="col">Late</th><th scope="col">Calls today</th><th scope="col">Connects today</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-campaign={row.id}>
                <th scope="row">{row.name}</th>
                <td><span class={`status status-${row.status}`}>{row.status}</span></td>
                <td>{row.lines_in_use} / {row.lines}</td>
                <td>{row.queued_call_now}</td>
                <td>{row.queued_other}</td>
                <td>{row.late}</td>
                <td>{row.calls_today}</td>
                <td>{row.connects_today}</td>
                <td>
                  {props.canWrite && row.status === 'active' && <button type="button" onClick={() => change(row, 'pause')} aria-label={`Pause ${row.name}`}>Pause</button>}
                  {props.canWrite && (row.status === 'paused' || row.status === 'draft') && <button type="button" onClick={() => change(row, 'activate')} aria-label={`Activate ${row.name}`}>Activate</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
