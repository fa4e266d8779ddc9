import { useState } from 'preact/hooks'
import type { CallNowResult, Lead, LeadDetail } from '../model'
import { api, errorText } from './api'
import { formatPhone } from './format'
import { Alert, Loaded, Time } from './parts'
import { navigate, onLinkClick } from './router'
import { useApi } from './use-api'

const reasonText = (reason: unknown) => String(reason).replace(/_/g, ' ')

/** Leads: search by name, phone, email or external id. */
export function Leads(props: { orgId: string; zone: string }) {
  const q = new URLSearchParams(location.search).get('q') ?? ''
  const rows = useApi<Lead[]>(`/orgs/${props.orgId}/leads?limit=50${q ? `&q=${encodeURIComponent(q)}` : ''}`)

  return (
    <section aria-labelledby="leads-title">
      <h1 id="leads-title">Leads</h1>
      <form class="filters" role="search" aria-label="Search leads" onSubmit={(e) => {
        e.preventDefault()
        const value = String(new FormData(e.currentTarget as HTMLFormElement).get('q') ?? '')
        navigate(`/console/leads?org=${props.orgId}${value ? `&q=${encodeURIComponent(value)}` : ''}`)
      }}>
        <label>Name, phone, email or external id <input type="search" name="q" defaultValue={q} maxLength={200} /></label>
        <button type="submit">Search</button>
      </form>
      <Alert text={rows.error} />
      <Loaded state={rows}>{(list) => list.length === 0 ? (
        <p class="empty">{q ? `No lead matches "${q}".` : 'No leads yet. Send them with POST /api/v1/external/leads, or import a CSV.'}</p>
      ) : (
        <table>
          <caption class="visually-hidden">Leads, newest first</caption>
          <thead><tr><th scope="col">Lead</th><th scope="col">Phone</th><th scope="col">Email</th><th scope="col">Status</th><th scope="col">Added</th></tr></thead>
          <tbody>
            {list.map((lead) => (
              <tr key={lead.id} data-lead={lead.id}>
                <td><a href={`/console/leads/${lead.id}?org=${props.orgId}`} onClick={onLinkClick}>{lead.name ?? 'Unnamed lead'}</a></td>
                <td>{formatPhone(lead.phone)}</td>
                <td>{lead.email ?? ''}</td>
                <td>{lead.status.replace(/_/g, ' ')}</td>
                <td><Time at={lead.created} zone={props.zone} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
    </section>
  )
}

/** One lead: its fields, why it waits, its calls and events, and "call now". */
export function LeadPage(props: { orgId: string; leadId: string; zone: string; canCall: boolean }) {
  const read = useApi<LeadDetail>(`/orgs/${props.orgId}/leads/${props.leadId}`)
  const [error, setError] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)

  async function callNow() {
    setError(null)
    setNotice(null)
    try {
      const reply = await api<{ data: CallNowResult }>('POST', `/orgs/${props.orgId}/leads/${props.leadId}/call_now`)
      setNotice(`Call requested: the lead is ${String(reply.data.status ?? 'queued').replace(/_/g, ' ')}${reply.data.place_in_line ? `, number ${reply.data.place_in_line} in line` : ''}.`)
      await read.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  const detail = read.data
  if (!detail) return read.error ? <Alert text={read.error} /> : <p>Loading…</p>
  const { lead, contactability: c } = detail
  return (
    <section aria-labelledby="lead-title">
      <p><a href={`/console/leads?org=${props.orgId}`} onClick={onLinkClick}>← All leads</a></p>
      <h1 id="lead-title">{lead.name ?? 'Unnamed lead'}</h1>
      <dl class="facts">
        <dt>Phone</dt><dd>{formatPhone(lead.phone)}</dd>
        <dt>Email</dt><dd>{lead.email ?? '—'}</dd>
        <dt>Address</dt><dd>{lead.address ?? '—'}</dd>
        <dt>External id</dt><dd>{lead.external_id ?? '—'}</dd>
        <dt>Status</dt><dd>{lead.status.replace(/_/g, ' ')}</dd>
        <dt>Consent</dt><dd>{lead.consent ? 'recorded' : 'none recorded'}</dd>
        <dt>Added</dt><dd><Time at={lead.created} zone={props.zone} /></dd>
        {Object.entries(lead.fields).map(([k, v]) => <><dt>{k}</dt><dd>{v}</dd></>)}
      </dl>
      <h2>Can it be called now?</h2>
      <p role="status" class={c.allowed_now ? 'ok' : 'error'}>
        {c.allowed_now ? 'Yes: every calling rule allows a call now.' : c.next_allowed_at ? <>Not now. Next allowed: <Time at={c.next_allowed_at} zone={props.zone} />.</> : 'Not within the next 14 days.'}
      </p>
      {c.blocked_by.length > 0 && (
        <ul class="reasons">{c.blocked_by.map((b) => <li><code>{b.rule_id}</code>: {reasonText(b.reason)}{b.until ? <> (until <Time at={b.until} zone={props.zone} />)</> : null}</li>)}</ul>
      )}
      <p class="muted">States {c.states.join(', ') || '—'}; zones {c.zones.join(', ')}; {c.calls_last_24h} calls in the last 24 hours.{c.notes.length ? ` Notes: ${c.notes.join(', ')}.` : ''}</p>
      {props.canCall && <button type="button" onClick={callNow}>Call now</button>}
      {notice && <p role="status">{notice}</p>}
      <Alert text={error ?? read.error} />
      <h2>Calls</h2>
      {detail.calls.length === 0 ? <p class="empty">No calls yet.</p> : (
        <ul>{detail.calls.map((call) => <li><a href={`/console/calls/${call.id}?org=${props.orgId}`} onClick={onLinkClick}><Time at={call.started} zone={props.zone} /></a> — {call.status.replace('_', ' ')}{call.outcome_label ? `, ${call.outcome_label}` : ''}</li>)}</ul>
      )}
      <h2>Events</h2>
      {detail.events.length === 0 ? <p class="empty">No events for this lead.</p> : (
        <ul>{detail.events.map((e) => <li><code>{e.type}</code> <Time at={e.created} zone={props.zone} /></li>)}</ul>
      )}
    </section>
  )
}
