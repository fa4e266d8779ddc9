import { useState } from 'preact/hooks'
import type { DncAdded, DncCheck, DncEntry } from '../model'
import { api, errorText } from './api'
import { formatPhone } from './format'
import { Alert, Loaded, Time } from './parts'
import { useApi } from './use-api'


/** Do Not Call: check a number, add one or a pasted list, search the list, remove a number. */
export function Dnc(props: { orgId: string; zone: string; canWrite: boolean }) {
  const [search, setSearch] = useState('')
  // The term searched for: the list is read again when a search is sent, not at each key.
  const [term, setTerm] = useState('')
  const rows = useApi<DncEntry[]>(`/orgs/${props.orgId}/dnc?limit=100${term ? `&search=${encodeURIComponent(term)}` : ''}`)
  const [checked, setChecked] = useState<string | null>(null)
  const [added, setAdded] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  async function check(event: Event) {
    event.preventDefault()
    const phone = String(new FormData(event.currentTarget as HTMLFormElement).get('phone') ?? '')
    setChecked(null)
    setError(null)
    try {
      const r = await api<{ data: DncCheck }>('GET', `/orgs/${props.orgId}/dnc/check?phone=${encodeURIComponent(phone)}`)
      setChecked(`${r.data.normalizedPhone ? formatPhone(r.data.normalizedPhone) : phone} is ${r.data.onDncList ? '' : 'not '}on the Do Not Call list.`)
    } catch (e) {
      setError(errorText(e))
    }
  }

  async function add(event: Event) {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    setAdded(null)
    setError(null)
    try {
      const r = await api<{ data: DncAdded }>('POST', `/orgs/${props.orgId}/dnc`, { phones: String(new FormData(form).get('phones') ?? '') })
      setAdded(`Added ${r.data.succeeded}.${r.data.failed ? ` Not added (not a valid number, or listed already): ${r.data.errors.join(', ')}.` : ''}`)
      form.reset()
      await rows.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  async function remove(entry: DncEntry) {
    setError(null)
    try {
      await api('DELETE', `/orgs/${props.orgId}/dnc/${entry.id}`)
      rows.update((current) => current.filter((r) => r.id !== entry.id))
      setAdded(`Removed ${formatPhone(entry.phone)}.`)
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="dnc-title">
      <h1 id="dnc-title">Do Not Call</h1>
      <Alert text={error ?? rows.error} />
      <div class="panels">
        <form onSubmit={check} aria-labelledby="dnc-check-title" class="panel">
          <h2 id="dnc-check-title">Check a number</h2>
          <label>Phone number to check <input name="phone" type="tel" required maxLength={32} /></label>
          <button type="submit">Check</button>
          {checked && <p role="status">{checked}</p>}
        </form>
        {props.canWrite && (
          <form onSubmit={add} aria-labelledby="dnc-add-title" class="panel">
            <h2 id="dnc-add-title">Add numbers</h2>
            <label>Numbers to add, one a line <textarea name="phones" rows={4} required /></label>
            <button type="submit">Add to the list</button>
            {added && <p role="status">{added}</p>}
          </form>
        )}
      </div>
      <form class="filters" role="search" aria-label="Search the list" onSubmit={(e) => { e.preventDefault(); if (search === term) void rows.reload(); else setTerm(search) }}>
        <label>Search by number <input type="search" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} /></label>
        <button type="submit">Search</button>
      </form>
      <Loaded state={rows}>{(list) => list.length === 0 ? (
        <p class="empty">{search ? 'No listed number matches.' : 'The list is empty. Add numbers above, or let leads opt out on their calls.'}</p>
      ) : (
        <table>
          <caption class="visually-hidden">Numbers on the Do Not Call list</caption>
          <thead><tr><th scope="col">Number</th><th scope="col">Source</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {list.map((entry) => (
              <tr key={entry.id} data-dnc={entry.phone}>
                <td>{formatPhone(entry.phone)}</td>
                <td>{entry.source}</td>
                <td><Time at={entry.created} zone={props.zone} /></td>
                <td>{props.canWrite && <button type="button" onClick={() => remove(entry)} aria-label={`Remove ${formatPhone(entry.phone)}`}>Remove</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
    </section>
  )
}
