import { useState } from 'preact/hooks'
import type { NumberHealth, NumbersPage } from '../numbers-model'
import { api, errorText } from './api'
import { Alert, Loaded, Time } from './parts'
import { useApi } from './use-api'

const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x * 1000) / 10}%`)

/** What the evidence says, in one line: the rule, the campaign and when. */
function Evidence(props: { n: NumberHealth; zone: string }) {
  const e = props.n.evidence
  if (!e) return props.n.far_below ? <span>Far below its baseline now: {props.n.far_below.detail}</span> : <span>–</span>
  return (
    <details>
      <summary>{e.detail}</summary>
      <p>Rested <Time at={e.rested_at} zone={props.zone} /> for {e.rest_days} days, campaign <code>{e.campaign_id}</code>.</p>
      <p>This number: {e.number.calls} calls, answered {pct(e.number.answer_rate)}, declined within 3 s {pct(e.number.decline_rate)}.
        Other numbers: {e.baseline.calls} calls, answered {pct(e.baseline.answer_rate)}, declined within 3 s {pct(e.baseline.decline_rate)}.</p>
    </details>
  )
}

/** Numbers (owners): the organization's carriers and each caller ID's health, with putting a rested number back in use. */
export function Numbers(props: { orgId: string; zone: string }) {
  const page = useApi<NumbersPage>(`/orgs/${props.orgId}/numbers`)
  const [error, setError] = useState<string | null>(null)

  async function putBack(n: NumberHealth) {
    if (!confirm(`Put ${n.caller_id} back in use now? Its calls count afresh from now.`)) return
    setError(null)
    try {
      await api('POST', `/orgs/${props.orgId}/numbers/${encodeURIComponent(n.caller_id)}/put-back`)
      await page.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="numbers-title">
      <h1 id="numbers-title">Numbers</h1>
      <p>
        Number health: a caller ID that people decline or rarely answer, far below its campaign's other numbers, is rested and not
        shown to leads for a while. This is not rotation to get past carrier spam labels: rest a number to find out why it is declined
        (register it, check its attestation and its campaigns), not to replace it with a fresh one.
      </p>
      <Alert text={error ?? page.error} />
      <Loaded state={page}>{(data) => (
        <>
          <h2>Carriers</h2>
          {data.carriers.length === 0 ? <p class="empty">No carrier of your own: test calls and live calls go through the simulator, which shows no caller ID.</p> : (
            <table>
              <caption class="visually-hidden">Carriers</caption>
              <thead><tr><th scope="col">Carrier</th><th scope="col">Weight</th><th scope="col">Caller IDs</th><th scope="col">Settings</th><th scope="col">Secrets set</th></tr></thead>
              <tbody>
                {data.carriers.map((c) => (
                  <tr key={c.kind} data-carrier={c.kind}>
                    <td>{c.kind}</td>
                    <td>{c.weight ?? 'only carrier'}</td>
                    <td>{c.caller_ids.join(', ') || '–'}</td>
                    <td>{Object.entries(c.settings).map(([k, v]) => `${k}: ${String(v)}`).join('; ') || '–'}</td>
                    <td>{c.secrets_set.join(', ') || 'none'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Caller IDs</h2>
          <p>
            Figures over each number's newest 200 calls within 30 days (or since it came back into use). A number is rested for
            {' '}{data.rest_days === 0 ? 'no days: this organization only shows the figures' : `${data.rest_days} days`} when, with at least 30 calls on it and
            30 on the campaign's other numbers, its answer rate is under half of theirs or it is declined within 3 s over 3 times as often (and on at least 20% of its calls).
          </p>
          {data.numbers.length === 0 ? <p class="empty">No caller IDs yet.</p> : (
            <table>
              <caption class="visually-hidden">Caller IDs</caption>
              <thead><tr>
                <th scope="col">Caller ID</th><th scope="col">Calls</th><th scope="col">Answered</th><th scope="col">A person answered</th>
                <th scope="col">Median talk</th><th scope="col">Declined within 3 s</th><th scope="col">Attestation (A/B/C/not reported)</th>
                <th scope="col">Status</th><th scope="col">Evidence</th><th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr></thead>
              <tbody>
                {data.numbers.map((n) => (
                  <tr key={n.caller_id} data-number={n.caller_id}>
                    <td><code>{n.caller_id}</code></td>
                    <td>{n.figures.calls}</td>
                    <td>{pct(n.figures.answer_rate)}</td>
                    <td>{pct(n.figures.person_answer_rate)}</td>
                    <td>{n.figures.median_talk_seconds === null ? '–' : `${Math.round(n.figures.median_talk_seconds)} s`}</td>
                    <td>{pct(n.figures.decline_rate)}</td>
                    <td>{n.figures.attestation.A}/{n.figures.attestation.B}/{n.figures.attestation.C}/{n.figures.attestation.not_reported}</td>
                    <td>{n.status === 'rested' ? <>rested until <Time at={n.rested_until!} zone={props.zone} /></> : 'in use'}</td>
                    <td><Evidence n={n} zone={props.zone} /></td>
                    <td>{n.status === 'rested' && <button type="button" onClick={() => putBack(n)} aria-label={`Put back in use: ${n.caller_id}`}>Put back in use</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}</Loaded>
    </section>
  )
}
