import { useEffect, useState } from 'preact/hooks'
import type { BoardCampaign, ImportResult } from '../model'
import { api, errorText, RawBody } from './api'
import { Alert } from './parts'
import { useApi } from './use-api'

const FIELDS = ['phone', 'name', 'email', 'address', 'external_id']
/** The file limit the service keeps (src/http/csv-upload.ts): said here before a 20 MB upload is tried. */
const MAX_BYTES = 20 * 1024 * 1024

/** Import: a CSV into a campaign. A check first (how many rows pass and why the others do not), then the import. */
export function Import(props: { orgId: string }) {
  const read = useApi<BoardCampaign[]>(`/orgs/${props.orgId}/campaigns`)
  const campaigns = read.data ?? []
  const [chosenCampaign, setCampaignId] = useState('')
  const campaignId = chosenCampaign || campaigns[0]?.id || ''
  const [file, setFile] = useState<{ name: string; text: string } | null>(null)
  const [mapping, setMapping] = useState<Record<string, string>>({})
  const [result, setResult] = useState<ImportResult | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  async function pick(event: Event) {
    const chosen = (event.currentTarget as HTMLInputElement).files?.[0]
    setResult(null)
    setError(null)
    setMapping({})
    setFile(null)
    if (!chosen) return
    if (chosen.size > MAX_BYTES) return setError(`The file is ${(chosen.size / 1024 / 1024).toFixed(1)} MB; at most 20 MB at once. Split it.`)
    if (!/\.(csv|txt)$/i.test(chosen.name) && !/csv|text/.test(chosen.type)) return setError('Choose a CSV file (a spreadsheet saved as "CSV UTF-8").')
    setFile({ name: chosen.name, text: await chosen.text() })
  }

  async function send(dryRun: boolean) {
    if (!file || !campaignId) return
    setBusy(true)
    setError(null)
    try {
      const query = new URLSearchParams({ campaign_id: campaignId, dry_run: String(dryRun) })
      if (Object.keys(mapping).length > 0) query.set('map', JSON.stringify(mapping))
      const reply = await api<{ data: ImportResult }>('POST', `/orgs/${props.orgId}/leads/import?${query}`, new RawBody(file.text, 'text/csv'))
      setResult(reply.data)
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  // A changed mapping or file needs a new check before the import.
  useEffect(() => {
    if (file && campaignId) void send(true)
  }, [file, campaignId, JSON.stringify(mapping)])

  return (
    <section aria-labelledby="import-title">
      <h1 id="import-title">Import leads</h1>
      <p class="muted">A CSV file whose first line names the columns: phone, name, email, address, external_id, or fields.&lt;key&gt; for a custom field. Every row meets the same checks as a lead sent through the API; imported leads send no lead.created.</p>
      {campaigns.length === 0 ? <p class="empty">No campaign to import into. An operator creates one first.</p> : (
        <div class="panel">
          <label>Campaign
            <select value={campaignId} onChange={(e) => setCampaignId((e.currentTarget as HTMLSelectElement).value)}>
              {campaigns.map((c) => <option value={c.id}>{c.name}</option>)}
            </select>
          </label>
          <label>CSV file <input type="file" accept=".csv,text/csv,text/plain" onChange={pick} /></label>
        </div>
      )}
      <Alert text={error ?? read.error} />
      {result && file && (
        <section aria-labelledby="preview-title">
          <h2 id="preview-title">{result.dry_run ? `Check of ${file.name}` : `Imported from ${file.name}`}</h2>
          <p role="status" class="summary">
            {result.problem ? result.problem : result.dry_run
              ? `${result.imported} of ${result.rows} rows pass the checks; ${result.failed} do not.`
              : `Imported ${result.imported} of ${result.rows} rows; ${result.failed} were not imported.`}
          </p>
          {result.dry_run && (
            <table>
              <caption>Columns and where they go</caption>
              <thead><tr><th scope="col">Column in the file</th><th scope="col">Lead field</th></tr></thead>
              <tbody>
                {result.columns.map((c) => (
                  <tr key={c.header}>
                    <td>{c.header}</td>
                    <td>
                      <select aria-label={`Lead field for column ${c.header}`} value={mapping[c.header] ?? c.target ?? ''}
                        onChange={(e) => setMapping({ ...mapping, [c.header]: (e.currentTarget as HTMLSelectElement).value })}>
                        <option value="">(leave out)</option>
                        {FIELDS.map((f) => <option value={f}>{f}</option>)}
                        <option value={`fields.${c.header.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^fields\./, '')}`}>custom field {c.header.replace(/^fields\./, '')}</option>
                      </select>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {result.errors.length > 0 && (
            <table>
              <caption>Rows that {result.dry_run ? 'do not pass' : 'were not imported'}{result.failed > result.errors.length ? ` (the first ${result.errors.length} of ${result.failed})` : ''}</caption>
              <thead><tr><th scope="col">Line</th><th scope="col">Error code</th><th scope="col">Why</th></tr></thead>
              <tbody>
                {result.errors.map((e) => <tr key={e.row} data-row={e.row}><td>{e.row}</td><td><code>{e.code}</code></td><td>{e.message}</td></tr>)}
              </tbody>
            </table>
          )}
          {result.dry_run && result.imported > 0 && (
            <button type="button" disabled={busy} onClick={() => send(false)}>{busy ? 'Importing…' : `Import ${result.imported} leads`}</button>
          )}
        </section>
      )}
    </section>
  )
}
