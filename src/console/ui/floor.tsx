import { useEffect, useState } from 'preact/hooks'
import type { Floor, FloorCall, FloorReply, FloorSeat, SuperviseReply } from '../floor-model'
import { api, errorText } from './api'
import { formatPhone } from './format'
import { Alert, Loaded, Time } from './parts'
import { onLinkClick } from './router'
import { useApi } from './use-api'

type Mode = 'listen' | 'whisper' | 'barge'
const MODES: { mode: Mode; label: string; verb: string }[] = [
  { mode: 'listen', label: 'Listen', verb: 'listen to' },
  { mode: 'whisper', label: 'Whisper', verb: 'coach the person on' },
  { mode: 'barge', label: 'Barge', verb: 'join' },
]
const PHONE_KEY = 'dialer.supervisor-phone'

const seatState = (seat: FloorSeat) =>
  seat.state === 'calling' ? 'Ringing' : seat.state === 'waiting' ? 'Seated, waiting' : `On a call with ${seat.lead_name ?? 'a lead'}`
const callState = (call: FloorCall) =>
  call.person_name ? `With ${call.person_name}` : call.waiting ? 'Waiting for a person' : call.status === 'ringing' ? 'Ringing the lead' : 'In progress'
const leadOf = (row: { lead_name: string | null; lead_phone: string }) => row.lead_name ?? formatPhone(row.lead_phone)

/** m:ss (h:mm:ss past an hour). */
function duration(seconds: number): string {
  const s = Math.round(seconds)
  const hh = Math.floor(s / 3600)
  const mm = Math.floor((s % 3600) / 60)
  const ss = String(s % 60).padStart(2, '0')
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`
}

/**
 * The floor: who is seated, ringing or on a call and with which lead, calls waiting for a person,
 * today's callbacks and each person's day, live (server-sent events every 2 s); listen, whisper
 * and barge on a call in a seat's conference for who may change campaigns.
 */
export function FloorPage(props: { orgId: string; zone: string; canSupervise: boolean }) {
  const floor = useApi<Floor>(`/orgs/${props.orgId}/floor`)
  const [live, setLive] = useState(false)
  const [phone, setPhone] = useState(() => localStorage.getItem(PHONE_KEY) ?? '')
  const [error, setError] = useState<string | null>(null)
  const [done, setDone] = useState<string | null>(null)

  useEffect(() => {
    const source = new EventSource(`/console/api/orgs/${props.orgId}/floor/stream`)
    source.addEventListener('floor', (event) => {
      floor.set((JSON.parse((event as MessageEvent).data) as FloorReply).data)
      setLive(true)
    })
    source.onerror = () => setLive(false)
    return () => source.close()
  }, [props.orgId])

  async function supervise(call: FloorCall, mode: Mode) {
    setError(null)
    setDone(null)
    if (!phone.trim()) return setError('Enter your phone number first: the call rings it.')
    localStorage.setItem(PHONE_KEY, phone.trim())
    try {
      await api<SuperviseReply>('POST', `/orgs/${props.orgId}/calls/${call.id}/supervise`, { mode, phone: phone.trim() })
      setDone(`Calling ${formatPhone(phone.trim())} to ${MODES.find((m) => m.mode === mode)!.verb} the call with ${leadOf(call)}.`)
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="floor-title">
      <h1 id="floor-title">Floor</h1>
      <p class="live" aria-live="polite">{live ? 'Live: updates every 2 seconds' : 'Connecting for live updates…'}</p>
      <Alert text={error ?? floor.error} />
      {done && <p class="ok" role="status">{done}</p>}
      <Loaded state={floor}>{(f) => (
        <>
          <p class="summary" data-testid="floor-summary">Calls waiting for a person: {f.calls_waiting} · Leads in line: {f.queued}</p>
          {props.canSupervise && (
            <label class="inline">Your phone (listen, whisper, barge ring it)
              <input type="tel" value={phone} autocomplete="tel" onInput={(e) => setPhone((e.target as HTMLInputElement).value)} placeholder="+1 212 555 0100" />
            </label>
          )}
          <table>
            <caption>Seats</caption>
            <thead><tr><th scope="col">Person</th><th scope="col">Campaign</th><th scope="col">Now</th><th scope="col">Seated since</th></tr></thead>
            <tbody>
              {f.seats.length === 0 && <tr><td colSpan={4} class="empty">Nobody is seated.</td></tr>}
              {f.seats.map((seat) => (
                <tr key={seat.id} data-seat={seat.id}>
                  <th scope="row">{seat.person_name} <span class="muted">{seat.role}</span></th>
                  <td>{seat.campaign_name}</td>
                  <td>{seatState(seat)}</td>
                  <td>{seat.seated_at ? <Time at={seat.seated_at} zone={props.zone} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table>
            <caption>Live calls</caption>
            <thead><tr><th scope="col">Lead</th><th scope="col">Campaign</th><th scope="col">Now</th><th scope="col">Started</th><th scope="col"><span class="visually-hidden">Supervise</span></th></tr></thead>
            <tbody>
              {f.calls.length === 0 && <tr><td colSpan={5} class="empty">No live calls.</td></tr>}
              {f.calls.map((call) => (
                <tr key={call.id} data-call={call.id}>
                  <th scope="row"><a href={`/console/calls/${call.id}?org=${props.orgId}`} onClick={onLinkClick}>{leadOf(call)}</a>{call.direction === 'inbound' && <span class="muted"> (called in)</span>}</th>
                  <td>{call.campaign_name}</td>
                  <td>{call.waiting ? <strong class="error">{callState(call)}</strong> : callState(call)}</td>
                  <td><Time at={call.started} zone={props.zone} /></td>
                  <td class="actions">
                    {props.canSupervise && call.seat_id && MODES.map((m) => (
                      <button key={m.mode} type="button" class="secondary" onClick={() => supervise(call, m.mode)} aria-label={`${m.label}: call with ${leadOf(call)}`}>{m.label}</button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <table>
            <caption>Callbacks due today</caption>
            <thead><tr><th scope="col">Lead</th><th scope="col">Campaign</th><th scope="col">Call back at</th></tr></thead>
            <tbody>
              {f.callbacks.length === 0 && <tr><td colSpan={3} class="empty">No callbacks left today.</td></tr>}
              {f.callbacks.map((b) => (
                <tr key={b.lead_id}>
                  <th scope="row"><a href={`/console/leads/${b.lead_id}?org=${props.orgId}`} onClick={onLinkClick}>{leadOf(b)}</a></th>
                  <td>{b.campaign_name}</td>
                  <td><Time at={b.callback_at} zone={props.zone} /></td>
                </tr>
              ))}
            </tbody>
          </table>
          <table>
            <caption>Today, per person</caption>
            <thead><tr><th scope="col">Person</th><th scope="col">Calls taken</th><th scope="col">Talk time</th><th scope="col">Time to handover (average)</th></tr></thead>
            <tbody>
              {f.people.length === 0 && <tr><td colSpan={4} class="empty">Nobody has taken a call today.</td></tr>}
              {f.people.map((p) => (
                <tr key={`${p.id}:${p.name}`} data-person={p.name}>
                  <th scope="row">{p.name} <span class="muted">{p.role}</span></th>
                  <td>{p.calls_taken}</td>
                  <td>{duration(p.talk_seconds)}</td>
                  <td>{p.handover_seconds === null ? '—' : `${p.handover_seconds.toFixed(1)} s`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}</Loaded>
    </section>
  )
}
