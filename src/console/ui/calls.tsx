import { useState } from 'preact/hooks'
import type { BoardCampaign, Call, CallDetail, ConsoleCall, OutcomeChoice } from '../model'
import { api, errorText } from './api'
import { formatPhone } from './format'
import { Alert, Loaded, Time } from './parts'
import { Recording } from './recording'
import { navigate, onLinkClick } from './router'
import { useApi, usePagedApi } from './use-api'

/** Calls, newest first, filtered by campaign, outcome and day; each links to its page. */
export function Calls(props: { orgId: string; zone: string; outcomes: OutcomeChoice[] }) {
  const params = new URLSearchParams(location.search)
  const filter = { campaign_id: params.get('campaign_id') ?? '', outcome: params.get('outcome') ?? '', from: params.get('from') ?? '', to: params.get('to') ?? '' }
  const query = new URLSearchParams({ limit: '50' })
  if (filter.campaign_id) query.set('campaign_id', filter.campaign_id)
  if (filter.outcome) query.set('outcome', filter.outcome)
  // Days in the organization's zone: the service turns them into instants.
  if (filter.from) query.set('from', filter.from)
  if (filter.to) query.set('to', filter.to)
  const campaigns = useApi<BoardCampaign[]>(`/orgs/${props.orgId}/campaigns`)
  const rows = usePagedApi<ConsoleCall>(`/orgs/${props.orgId}/calls?${query}`)

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
            {(campaigns.data ?? []).map((c) => <option value={c.id} selected={c.id === filter.campaign_id}>{c.name}</option>)}
          </select>
        </label>
        <label>Outcome
          <select name="outcome">
            <option value="">Any outcome</option>
            {props.outcomes.map((o) => <option value={o.outcome} selected={o.outcome === filter.outcome}>{o.label}</option>)}
          </select>
        </label>
        <label>From <input type="date" name="from" defaultValue={filter.from} /></label>
        <label>To <input type="date" name="to" defaultValue={filter.to} /></label>
        <button type="submit">Filter</button>
      </form>
      <Alert text={rows.error} />
      <Loaded state={rows}>{(list) => list.length === 0 ? (
        <p class="empty">No calls match. Calls appear here once leads are dialed; widen the filters or add leads with <code>POST /api/v1/external/leads</code>.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Calls, newest first</caption>
          <thead><tr><th scope="col">Started</th><th scope="col">Lead</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Handled by</th><th scope="col">Duration</th></tr></thead>
          <tbody>
            {list.map((call) => (
              <tr key={call.id} data-call={call.id}>
                <td><a href={`/console/calls/${call.id}?org=${props.orgId}`} onClick={onLinkClick}><Time at={call.started} zone={props.zone} /></a></td>
                <td>{call.lead?.name ?? 'Unnamed lead'} <span class="muted">{call.lead?.phone ? formatPhone(call.lead.phone) : ''}</span></td>
                <td>{call.status.replace('_', ' ')}</td>
                <td>{call.outcome_label ?? (call.status === 'ended' ? 'not filed yet' : '')}</td>
                <td>{handlerText(call.handler, call.status)}</td>
                <td>{call.duration_seconds === null ? '' : `${call.duration_seconds} s`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
      {rows.hasMore && rows.data && <button type="button" onClick={rows.loadMore}>Load more calls</button>}
    </section>
  )
}

/** One call: what happened, its recording and transcript, and the outcome form. */
export function CallPage(props: { orgId: string; callId: string; zone: string; outcomes: OutcomeChoice[]; canFile: boolean }) {
  const read = useApi<CallDetail>(`/orgs/${props.orgId}/calls/${props.callId}`)
  const [error, setError] = useState<string | null>(null)
  const [saved, setSaved] = useState<string | null>(null)

  async function file(event: Event) {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    setError(null)
    setSaved(null)
    try {
      const note = String(form.get('note') ?? '')
      const reply = await api<{ data: Call }>('POST', `/orgs/${props.orgId}/calls/${props.callId}/outcome`, { outcome: String(form.get('outcome')), note: note === '' ? null : note })
      read.update((d) => ({ ...d, call: reply.data }))
      setSaved(`Outcome filed: ${reply.data.outcome_label ?? reply.data.outcome}.`)
    } catch (e) {
      setError(errorText(e))
    }
  }

  const detail = read.data
  if (!detail) return read.error ? <Alert text={read.error} /> : <p>Loading…</p>
  const { call } = detail
  return (
    <section aria-labelledby="call-title">
      <p><a href={`/console/calls?org=${props.orgId}`} onClick={onLinkClick}>← All calls</a></p>
      <h1 id="call-title">Call with {call.lead?.name ?? 'an unnamed lead'}</h1>
      <dl class="facts">
        <dt>Phone</dt><dd>{call.lead?.phone ? formatPhone(call.lead.phone) : '—'}</dd>
        <dt>Started</dt><dd><Time at={call.started} zone={props.zone} /></dd>
        <dt>Status</dt><dd>{call.status.replace('_', ' ')}</dd>
        <dt>Handled by</dt><dd>{detail.handler === null ? handlerText(null, call.status) || '—' : `${detail.handler} (${call.handled_by.role})`}</dd>
        <dt>Duration</dt><dd>{call.duration_seconds === null ? '—' : `${call.duration_seconds} s`}</dd>
        <dt>Outcome</dt><dd>{call.outcome_label ?? 'not filed yet'}{call.note ? ` — ${call.note}` : ''}</dd>
        {detail.ai_seat && (
          <>
            <dt>AI seat</dt>
            <dd>{detail.ai_seat.first_audio_ms === null ? 'the agent sent no audio' : `agent’s first audio after ${detail.ai_seat.first_audio_ms} ms`}</dd>
          </>
        )}
        {detail.recording_consent && (
          <>
            <dt>Recording consent</dt>
            <dd>
              {`All-party consent (${detail.recording_consent.required_by.join(', ')}): `}
              {detail.recording_consent.announced_at
                ? <>notice {detail.recording_consent.method === 'say' ? 'read out' : 'played'}, recorded from <Time at={detail.recording_consent.announced_at} zone={props.zone} /></>
                : 'the notice did not play; not recorded'}
            </dd>
          </>
        )}
      </dl>
      <h2>Recording</h2>
      {detail.recording ? <Recording link={detail.recording} reload={read.reload} /> : <p class="empty">No recording for this call.</p>}
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
              {props.outcomes.map((o) => <option value={o.outcome} selected={o.outcome === (call.outcome ?? 'interested')}>{o.label}</option>)}
            </select>
          </label>
          <label>Note <textarea name="note" rows={3} maxLength={5000} defaultValue={call.note ?? ''} /></label>
          <button type="submit">Save outcome</button>
          {saved && <p role="status">{saved}</p>}
        </form>
      )}
      <Alert text={error} />
    </section>
  )
}

/** Who took a call: the server names them (`handler`); nobody took an ended call it has no name for. */
function handlerText(handler: string | null, status: Call['status']): string {
  if (handler !== null) return handler
  return status === 'ended' ? 'Nobody took the call' : ''
}
