import { useState } from 'preact/hooks'
import type { Seat, SeatList, SeatReply } from '../floor-model'
import type { CampaignSettings } from '../model'
import { api, errorText } from './api'
import { formatPhone } from './format'
import { Alert, Loaded } from './parts'
import { useApi } from './use-api'

const STATE_TEXT: Record<Seat['state'], string> = { calling: 'Ringing their phone', waiting: 'Seated, waiting', on_call: 'On a call', ended: 'Ended' }

/**
 * A campaign's seats, for owners: each seat and its state, a person of the campaign seated by
 * choosing them (their phone rings; they press 1 to sit), and a seat ended.
 */
export function CampaignSeats(props: { orgId: string; campaignId: string; campaignName: string }) {
  const base = `/orgs/${props.orgId}/campaigns/${props.campaignId}`
  const seats = useApi<SeatList['data']>(`${base}/seats`)
  const settings = useApi<CampaignSettings>(base)
  const [chosen, setChosen] = useState('')
  const [error, setError] = useState<string | null>(null)
  const people = settings.data ? [...settings.data.sdrs, ...settings.data.closers].filter((p) => p.phone) : []

  async function seat(event: Event) {
    event.preventDefault()
    const person = people.find((p) => p.phone === chosen)
    if (!person?.phone) return setError('Choose a person to seat.')
    setError(null)
    try {
      const reply = await api<SeatReply>('POST', `${base}/seats`, { name: person.name, phone: person.phone })
      seats.update((list) => [reply.data, ...list])
    } catch (e) {
      setError(errorText(e))
    }
  }

  async function end(row: Seat) {
    setError(null)
    try {
      const reply = await api<SeatReply>('DELETE', `${base}/seats/${row.id}`)
      seats.update((list) => list.map((s) => (s.id === row.id ? reply.data : s)))
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section class="panel seats" aria-label={`Seats of ${props.campaignName}`}>
      <h2>Seats · {props.campaignName}</h2>
      <Alert text={error ?? seats.error ?? settings.error} />
      <form class="person" onSubmit={seat}>
        <label>
          Person to seat
          <select value={chosen} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
            <option value="">Choose…</option>
            {people.map((p) => <option key={p.id} value={p.phone}>{p.name} · {formatPhone(p.phone!)}</option>)}
          </select>
        </label>
        <button type="submit">Seat</button>
      </form>
      {settings.data && people.length === 0 && <p class="muted">No SDR or closer of this campaign has a phone yet: add one in the campaign's settings.</p>}
      <Loaded state={seats}>{(list) => list.length === 0 ? <p class="empty">No seats yet.</p> : (
        <table>
          <caption class="visually-hidden">Seats of {props.campaignName}</caption>
          <thead><tr><th scope="col">Person</th><th scope="col">Phone</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {list.map((row) => (
              <tr key={row.id} data-seat={row.id}>
                <th scope="row">{row.person.name} <span class="muted">{row.person.role}</span></th>
                <td>{formatPhone(row.phone)}</td>
                <td>{STATE_TEXT[row.state]}{row.ended_reason && <span class="muted"> ({row.ended_reason.split('_').join(' ')})</span>}</td>
                <td>{row.state !== 'ended' && <button type="button" onClick={() => end(row)} aria-label={`End ${row.person.name}'s seat`}>End</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
    </section>
  )
}
