import { useEffect, useState } from 'preact/hooks'
import { OUTCOMES } from '../../domain/outcomes'
import { api, ApiFailure } from './api'
import { formatPhone, localTime } from './format'
import { navigate, onLinkClick } from './router'
import type { CampaignBoardRow } from './campaigns'

export interface CallView {
  id: string
  lead: { id: string; name: string | null; phone: string | null } | null
  campaign_id: string | null
  status: 'ringing' | 'in_progress' | 'ended'
  outcome: string | null
  outcome_label: string | null
  note: string | null
  duration_seconds: number | null
  started: string
  answered_by?: string | null
  handled_by: { id: string | null; name: string; role: string }
  recording_available: boolean
  transcript_available: boolean
}

/** A time in the organization's zone, the UTC instant on hover. */
export function Time(props: { at: string; zone: string }) {
  const t = localTime(props.at, props.zone)
  return <time dateTime={t.utc} title={`${t.utc} (UTC)`}>{t.text}</time>
}

/** Calls, newest first, filtered by campaign, outcome and day; each links to its page. */
export function Calls(props: { orgId: string; zone: string }) {
  const params = new URLSearchParams(location.search)
  const [campaigns, setCampaigns] = useState<CampaignBoardRow[]>([])
  const [rows, setRows] = useState<CallView[] | null>(null)
  const [more, setMore] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const filter = { campaign_id: params.get('campaign_id') ?? '', outcome: params.get('outcome') ?? '', from: params.get('from') ?? '', to: params.get('to') ?? '' }
  const key = JSON.stringify(filter)

  useEffect(() => {
    api<{ data: CampaignBoardRow[] }>('GET', `/orgs/${props.orgId}/campaigns`).then((r) => setCampaigns(r.data), () => {})
  }, [props.orgId])

  async function load(after?: string) {
    setError(null)
    const query = new URLSearchParams({ limit: '50' })
    if (filter.campaign_id) query.set('campaign_id', filter.campaign_id)
    if (filter.outcome) query.set('outcome', filter.outcome)
    // Days in the organization's zone: the service turns them into instants.
    if (filter.from) query.set('from', filter.from)
    if (filter.to) query.set('to', filter.to)
    if (after) query.set('starting_after', after)
    try {
      const reply = await api<{ data: CallView[]; has_more: boolean }>('GET', `/orgs/${props.orgId}/calls?${query}`)
      setRows((current) => (after ? [...(current ?? []), ...reply.data] : reply.data))
      setMore(reply.has_more)
    } catch (e) {
      setError(e instanceof ApiFailure ? e.message : String(e))
      setRows([])
    }
  }
  useEffect(() => {
    void load()
  }, [props.orgId, key])

  function applyFilter(event: Event) {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const next = new URLSearchParams({ org: props.orgId })
    for (const name of ['campaign_id', 'outcome', 'from', 'to']) {
      const value = String(form.get(name) ?? '')
      if (value) next.set(name, value)
    }
    navigate(`/console/calls?${next}`)
  }

  return (
    <section aria-labelledby="calls-title">
      <h1 id="calls-title">Calls</h1>
      <form class="filters" onSubmit={applyFilter} role="search" aria-label="Filter calls">
        <label>Campaign
          <select name="campaign_id">
            <option value="">All campaigns</option>
            {campaigns.map((c) => <option value={c.id} selected={c.id === filter.campaign_id}>{c.name}</option>)}
          </select>
        </label>
        <label>Outcome
          <select name="outcome">
            <option value="">Any outcome</option>
            {OUTCOMES.map((o) => <option value={o} selected={o === filter.outcome}>{o.replace(/_/g, ' ')}</option>)}
          </select>
        </label>
        <label>From <input type="date" name="from" defaultValue={filter.from} /></label>
        <label>To <input type="date" name="to" defaultValue={filter.to} /></label>
        <button type="submit">Filter</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {rows === null ? <p>Loading…</p> : rows.length === 0 ? (
        <p class="empty">No calls match. Calls appear here once leads are dialed; widen the filters or add leads with <code>POST /api/v1/external/leads</code>.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Calls, newest first</caption>
          <thead><tr><th scope="col">Started</th><th scope="col">Lead</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Handled by</th><th scope="col">Duration</th></tr></thead>
          <tbody>
            {rows.map((call) => (
              <tr key={call.id} data-call={call.id}>
                <td><a href={`/console/calls/${call.id}?org=${props.orgId}`} onClick={onLinkClick}><Time at={call.started} zone={props.zone} /></a></td>
                <td>{call.lead?.name ?? 'Unnamed lead'} <span class="muted">{call.lead?.phone ? formatPhone(call.lead.phone) : ''}</span></td>
                <td>{call.status.replace('_', ' ')}</td>
                <td>{call.outcome_label ?? (call.status === 'ended' ? 'not filed yet' : '')}</td>
                <td>{call.handled_by.name}</td>
                <td>{call.duration_seconds === null ? '' : `${call.duration_seconds} s`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more && rows && <button type="button" onClick={() => load(rows[rows.length - 1]!.id)}>Load more calls</button>}
    </section>
  )
}

interface CallDetail {
  call: CallView
  transcript: { speaker: string; name: string; text: string; at: string }[]
  recording: { url: string; expires_at: string } | null
}

/** One call: what happened, its recording and transcript, and the outcome form. */
export function CallPage(props: { orgId: string; callId: string; zone: string; canFile: boolean }) {
  const [detail, setDetail] = useState<CallDetail | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [saved, setSaved] = useState<string | null>(null)

  useEffect(() => {
    api<{ data: CallDetail }>('GET', `/orgs/${props.orgId}/calls/${props.callId}`).then((r) => setDetail(r.data), (e) => setError(e.message))
  }, [props.orgId, props.callId])

  async function file(event: Event) {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    setError(null)
    setSaved(null)
    try {
      const note = String(form.get('note') ?? '')
      const reply = await api<{ data: CallView }>('POST', `/orgs/${props.orgId}/calls/${props.callId}/outcome`, { outcome: String(form.get('outcome')), note: note === '' ? null : note })
      setDetail((d) => (d ? { ...d, call: reply.data } : d))
      setSaved(`Outcome filed: ${reply.data.outcome_label ?? reply.data.outcome}.`)
    } catch (e) {
      setError(e instanceof ApiFailure ? e.message : String(e))
    }
  }

  if (!detail) return error ? <p class="error" role="alert">{error}</p> : <p>Loading…</p>
  const { call } = detail
  return (
    <section aria-labelledby="call-title">
      <p><a href={`/console/calls?org=${props.orgId}`} onClick={onLinkClick}>← All calls</a></p>
      <h1 id="call-title">Call with {call.lead?.name ?? 'an unnamed lead'}</h1>
      <dl class="facts">
        <dt>Phone</dt><dd>{call.lead?.phone ? formatPhone(call.lead.phone) : '—'}</dd>
        <dt>Started</dt><dd><Time at={call.started} zone={props.zone} /></dd>
        <dt>Status</dt><dd>{call.status.replace('_', ' ')}</dd>
        <dt>Handled by</dt><dd>{call.handled_by.name} ({call.handled_by.role})</dd>
        <dt>Duration</dt><dd>{call.duration_seconds === null ? '—' : `${call.duration_seconds} s`}</dd>
        <dt>Outcome</dt><dd>{call.outcome_label ?? 'not filed yet'}{call.note ? ` — ${call.note}` : ''}</dd>
      </dl>
      <h2>Recording</h2>
      {detail.recording ? <audio controls preload="none" src={detail.recording.url} aria-label="Call recording" /> : <p class="empty">No recording for this call.</p>}
      <h2>Transcript</h2>
      {detail.transcript.length === 0 ? <p class="empty">No transcript for this call.</p> : (
        <ol class="transcript">
          {detail.transcript.map((line) => <li class={`speaker-${line.speaker}`}><strong>{line.name}:</strong> {line.text}</li>)}
        </ol>
      )}
      {props.canFile && call.status === 'ended' && (
        <form class="outcome" key={`${call.outcome}:${call.note}`} onSubmit={file} aria-labelledby="outcome-title">
          <h2 id="outcome-title">{call.outcome ? 'Correct the outcome' : 'File the outcome'}</h2>
          <label>Outcome
            <select name="outcome" required>
              {OUTCOMES.map((o) => <option value={o} selected={o === (call.outcome ?? 'interested')}>{o.replace(/_/g, ' ')}</option>)}
            </select>
          </label>
          <label>Note <textarea name="note" rows={3} maxLength={5000} defaultValue={call.note ?? ''} /></label>
          <button type="submit">Save outcome</button>
          {saved && <p role="status">{saved}</p>}
        </form>
      )}
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  )
}
