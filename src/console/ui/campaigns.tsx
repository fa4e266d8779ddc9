import { useEffect, useState } from 'preact/hooks'
import type { AbandonmentList, CampaignAbandonment } from '../floor-model'
import type { BoardCampaign, BoardReply, CampaignStatusReply } from '../model'
import { api, errorText } from './api'
import { Alert, Loaded } from './parts'
import { onLinkClick } from './router'
import { CampaignSeats } from './seats'
import { useApi } from './use-api'

/** Campaigns: what each is doing now, live (server-sent events), with pause and activate. */
export function Campaigns(props: { orgId: string; canWrite: boolean }) {
  const rows = useApi<BoardCampaign[]>(`/orgs/${props.orgId}/campaigns`)
  const [error, setError] = useState<string | null>(null)
  const [live, setLive] = useState(false)
  const abandonment = useApi<AbandonmentList['data']>(`/orgs/${props.orgId}/abandonment`)
  const rateOf = new Map((abandonment.data ?? []).map((a) => [a.campaign_id, a]))
  const [seatsOf, setSeatsOf] = useState<BoardCampaign | null>(null)

  useEffect(() => {
    const source = new EventSource(`/console/api/orgs/${props.orgId}/campaigns/stream`)
    source.addEventListener('campaigns', (event) => {
      rows.set((JSON.parse((event as MessageEvent).data) as BoardReply).data)
      setLive(true)
    })
    source.onerror = () => setLive(false)
    return () => source.close()
  }, [props.orgId])

  async function change(row: BoardCampaign, action: 'pause' | 'activate') {
    setError(null)
    try {
      const reply = await api<CampaignStatusReply>('POST', `/orgs/${props.orgId}/campaigns/${row.id}/${action}`)
      rows.update((current) => current.map((r) => (r.id === row.id ? { ...r, status: reply.data.status } : r)))
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="campaigns-title">
      <h1 id="campaigns-title">Campaigns</h1>
      <p class="live" aria-live="polite">{live ? 'Live: updates every 2 seconds' : 'Connecting for live updates…'}</p>
      <Alert text={error ?? rows.error ?? abandonment.error} />
      <Loaded state={rows}>{(list) => list.length === 0 ? (
        <p class="empty">No campaigns yet. An operator creates them: <code>dialer admin campaign create --org {props.orgId} --name "…"</code>.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Campaigns with their lines, queue and today's calls</caption>
          <thead>
            <tr>
              <th scope="col">Campaign</th><th scope="col">Status</th><th scope="col">Lines in use</th><th scope="col">Call now</th>
              <th scope="col">Other queued</th><th scope="col">Late</th><th scope="col">Calls today</th><th scope="col">Connects today</th>
              <th scope="col">Abandoned, 30 days</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {list.map((row) => (
              <tr key={row.id} data-campaign={row.id}>
                <th scope="row">{props.canWrite ? <a href={`/console/campaigns/${row.id}?org=${props.orgId}`} onClick={onLinkClick} aria-label={`${row.name} settings`}>{row.name}</a> : row.name}</th>
                <td><span class={`status status-${row.status}`}>{row.status}</span>{row.automated_voice && <div class="muted">automated voice</div>}</td>
                <td>{row.lines_in_use} / {row.lines}</td>
                <td>{row.queued_call_now}</td>
                <td>{row.queued_other}</td>
                <td>{row.late}</td>
                <td>{row.calls_today}</td>
                <td>{row.connects_today}</td>
                <td><AbandonRate rate={rateOf.get(row.id)} /></td>
                <td>
                  {props.canWrite && row.status === 'active' && <button type="button" onClick={() => change(row, 'pause')} aria-label={`Pause ${row.name}`}>Pause</button>}
                  {props.canWrite && (row.status === 'paused' || row.status === 'draft') && <button type="button" onClick={() => change(row, 'activate')} aria-label={`Activate ${row.name}`}>Activate</button>}
                  {props.canWrite && <button type="button" class="secondary" aria-expanded={seatsOf?.id === row.id} onClick={() => setSeatsOf(seatsOf?.id === row.id ? null : row)} aria-label={`Seats of ${row.name}`}>Seats</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
      {props.canWrite && seatsOf && <CampaignSeats key={seatsOf.id} orgId={props.orgId} campaignId={seatsOf.id} campaignName={seatsOf.name} />}
    </section>
  )
}

/** A campaign's 30-day abandonment rate; above the rule's 3 % it says so in words, not only colour. */
function AbandonRate(props: { rate: CampaignAbandonment | undefined }) {
  const a = props.rate
  if (!a) return <span class="muted">—</span>
  const percent = `${(a.rate * 100).toFixed(1)} %`
  const detail = `${a.abandoned} of ${a.answered_by_person} answered by a person`
  if (!a.warning) return <span title={detail}>{percent}</span>
  return <strong class="error warning" title={detail}>{percent} · above 3 %</strong>
}
