import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { Usage as Report, UsageReport } from '../model'
import { Alert } from './parts'
import { useApi } from './use-api'

const usd = (n: number) => n.toLocaleString('en-US', { style: 'currency', currency: 'USD' })
/** No AI prices set: the cost is unknown, said so rather than $0; calls of unpriced models are counted beside it. */
const aiCost = (c: { ai_cost_usd: number | null; ai_unpriced_calls: number }) =>
  (c.ai_cost_usd === null ? 'not priced' : usd(c.ai_cost_usd)) + (c.ai_cost_usd !== null && c.ai_unpriced_calls > 0 ? ` (+${c.ai_unpriced_calls} unpriced calls)` : '')

/** The last months, newest first (YYYY-MM), for the period picker. */
function months(count: number): string[] {
  const now = new Date()
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1))
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`
  })
}

/** Calls and connects a day, drawn by uPlot. */
function DayChart(props: { report: Report }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!box.current) return
    // Every day of the month, zero where nothing was counted: the axis is the month, not the days with calls.
    const [year, month] = props.report.period.split('-').map(Number) as [number, number]
    const count = new Date(Date.UTC(year, month, 0)).getUTCDate()
    const byDay = new Map(props.report.groups.filter((g) => g.day).map((g) => [g.day!, g]))
    const days = Array.from({ length: count }, (_, i) => `${props.report.period}-${String(i + 1).padStart(2, '0')}`)
    const data: uPlot.AlignedData = [
      days.map((d) => Date.parse(`${d}T12:00:00Z`) / 1000),
      days.map((d) => byDay.get(d)?.calls ?? 0),
      days.map((d) => byDay.get(d)?.calls_connected ?? 0),
    ]
    const chart = new uPlot({
      width: Math.min(900, box.current.clientWidth || 900), height: 260, title: 'Calls a day',
      series: [{}, { label: 'Calls', stroke: '#1b4fd8', width: 2 }, { label: 'Connected', stroke: '#12683a', width: 2 }],
      axes: [{}, { label: 'calls' }],
    }, data, box.current)
    return () => chart.destroy()
  }, [props.report])
  return <div ref={box} class="chart" role="img" aria-label={`Calls and connected calls a day in ${props.report.period}`} />
}

/** Usage: this month or a past one, by day (chart), by campaign (with spend caps) and by key. */
export function Usage(props: { orgId: string }) {
  const [period, setPeriod] = useState('current')
  const read = useApi<UsageReport>(`/orgs/${props.orgId}/usage?period=${period}`)
  const usage = read.data

  const t = usage?.by_day.totals
  const caps = new Map(usage?.spend_caps.map((c) => [c.campaign_id, c.spend_cap_usd]) ?? [])
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <label class="inline">Month
        <select value={period} onChange={(e) => setPeriod((e.currentTarget as HTMLSelectElement).value)}>
          <option value="current">This month</option>
          {months(12).slice(1).map((m) => <option value={m}>{m}</option>)}
        </select>
      </label>
      <Alert text={read.error} />
      {!usage || !t ? (read.loading ? <p>Loading…</p> : null) : (
        <>
          <dl class="facts totals">
            <dt>Period</dt><dd>{usage.by_day.period} ({usage.by_day.timezone})</dd>
            <dt>Requests</dt><dd>{t.requests}</dd>
            <dt>Leads added</dt><dd>{t.leads_added}</dd>
            <dt>Calls</dt><dd>{t.calls} ({t.calls_connected} connected)</dd>
            <dt>Minutes</dt><dd>{t.minutes}</dd>
            <dt>Cost</dt><dd>{usd(t.cost_usd)}</dd>
            <dt>AI minutes</dt><dd>{t.ai_minutes}</dd>
            <dt>AI cost</dt><dd>{aiCost(t)}</dd>
          </dl>
          <p class="muted">Counted every 5 minutes{usage.by_day.updated ? `; last at ${usage.by_day.updated}` : ''}.</p>
          {usage.by_day.groups.length === 0 ? <p class="empty">No calls this month yet.</p> : <DayChart report={usage.by_day} />}
          <table>
            <caption>By campaign</caption>
            <thead><tr><th scope="col">Campaign</th><th scope="col">Leads</th><th scope="col">Calls</th><th scope="col">Minutes</th><th scope="col">Cost</th><th scope="col">AI minutes</th><th scope="col">AI cost</th><th scope="col">Spend cap</th></tr></thead>
            <tbody>
              {usage.by_campaign.groups.map((g) => (
                <tr key={g.campaign_id}><td>{g.campaign_name ?? g.campaign_id}</td><td>{g.leads_added}</td><td>{g.calls}</td><td>{g.minutes}</td><td>{usd(g.cost_usd)}</td><td>{g.ai_minutes}</td><td>{aiCost(g)}</td><td>{caps.get(g.campaign_id!) == null ? 'none' : usd(caps.get(g.campaign_id!)!)}</td></tr>
              ))}
            </tbody>
          </table>
          <table>
            <caption>By API key</caption>
            <thead><tr><th scope="col">Key</th><th scope="col">Requests</th><th scope="col">Leads</th><th scope="col">Calls</th></tr></thead>
            <tbody>
              {usage.by_key.groups.map((g) => <tr key={g.key_id}><td>{g.key_name ?? g.key_id}</td><td>{g.requests}</td><td>{g.leads_added}</td><td>{g.calls}</td></tr>)}
            </tbody>
          </table>
        </>
      )}
    </section>
  )
}
