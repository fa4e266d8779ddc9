import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

// Issue 19: lead CSV import through the admin API (the console and the CLI send the same request).

let h: Harness
let orgId = ''
let campaignId = ''
let live: TestKey

async function importCsv(csv: string | Uint8Array, query = '', headers: Record<string, string> = {}) {
  const r = await h.app.handle(new Request(`http://127.0.0.1/api/v1/admin/orgs/${orgId}/leads/import?campaign_id=${campaignId}${query}`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv', ...headers }, body: csv,
  }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any }
}

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
  live = await h.createKey(orgId, { name: 'live', mode: 'live' })
})
afterEach(() => h.close())

describe('lead import', () => {
  test('good rows are imported (held in a paused campaign), bad ones listed with their line and intake code; no events', async () => {
    await h.api('POST', '/dnc', { key: live, body: { phone: '+14155552671' } })
    const events = (h.services.database.sqlite.query('SELECT count(*) AS n FROM events').get() as { n: number }).n
    const r = await importCsv([
      'phone,name,email,external_id,fields.roof,ignored',
      '(212) 555-3001,Ann,ann@example.com,crm-1,shingle,x',
      '"212-555-3002","Lee, Bob",,crm-2,,',
      '2125553003,Cid,not-an-email,,,',
      'nope,Dee,,,,',
      '(415) 555-2671,Eve,,,,',
      '212 555 3001,Ann again,,,,',
      '2125553004,Fay,,crm-1,,',
    ].join('\n'))
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ rows: 7, imported: 2, failed: 5, dry_run: false })
    expect(r.body.data.errors.map((e: any) => [e.row, e.code, e.param])).toEqual([
      [4, 'invalid_request', 'email'], [5, 'invalid_phone', 'phone'], [6, 'on_dnc_list', 'phone'], [7, 'duplicate_lead', 'phone'], [8, 'duplicate_lead', 'external_id'],
    ])
    expect(r.body.data.columns.find((c: any) => c.header === 'ignored').target).toBeNull()
    const leads = (await h.api('GET', `/leads?campaign_id=${campaignId}&limit=10`, { key: live })).body.data
    expect(leads.map((l: any) => l.name).sort()).toEqual(['Ann', 'Lee, Bob'])
    expect(leads.find((l: any) => l.name === 'Ann')).toMatchObject({ status: 'held', external_id: 'crm-1', fields: { roof: 'shingle' } })
    expect((h.services.database.sqlite.query('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(events)
    // Importing the same file again adds nothing: they are leads of the campaign now.
    const again = await importCsv('phone\n(212) 555-3001\n')
    expect(again.body.data.errors[0]).toMatchObject({ row: 2, code: 'duplicate_lead' })
  })

  test('a dry run checks without writing; a mapping sends a column where its name does not', async () => {
    const dry = await importCsv('Cell,Who\n2125553001,Ann\n', '&dry_run=true')
    expect(dry.body.data).toMatchObject({ imported: 0, problem: expect.stringContaining('phone') })
    const mapped = await importCsv('Cell,Who\n2125553001,Ann\n', `&dry_run=true&map=${encodeURIComponent(JSON.stringify({ Cell: 'phone', Who: 'name' }))}`)
    expect(mapped.body.data).toMatchObject({ rows: 1, imported: 1, dry_run: true, problem: null })
    expect((await h.api('GET', `/leads?campaign_id=${campaignId}`, { key: live })).body.data).toEqual([])
  })

  test.each([
    ['no phone column (a real import)', 'name\nAnn\n', '', 'map'],
    ['a mapping to no lead field', 'phone\n2125553001\n', `&map=${encodeURIComponent('{"phone":"salary"}')}`, 'map.phone'],
    ['a mapping that is not JSON', 'phone\n2125553001\n', '&map=%7Bnope', 'map'],
    ['two columns to one field', 'phone,tel\n2125553001,2125553002\n', `&map=${encodeURIComponent('{"tel":"phone"}')}`, 'map'],
    ['an empty file', '', '', 'body'],
    ['an unclosed quote', 'phone,name\n"2125553001,Ann\n', '', 'body'],
  ])('%s: 400 naming the parameter, nothing imported', async (_, csv, query, param) => {
    const r = await importCsv(csv, query)
    expect(r.status).toBe(400)
    expect(r.body.error.param).toBe(param)
    expect((await h.api('GET', `/leads?campaign_id=${campaignId}`, { key: live })).body.data).toEqual([])
  })

  test('not CSV (JSON, an image), not UTF-8, or over 20 MB: a clear 400', async () => {
    expect((await importCsv('{"phone":"1"}', '', { 'content-type': 'application/json' })).body.error.param).toBe('Content-Type')
    expect((await importCsv(new Uint8Array([0x70, 0x68, 0x6f, 0x6e, 0x65, 0x0a, 0xff, 0xfe]))).body.error.message).toContain('UTF-8')
    const big = await h.app.handle(new Request(`http://127.0.0.1/api/v1/admin/orgs/${orgId}/leads/import?campaign_id=${campaignId}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv', 'content-length': String(21 * 1024 * 1024) }, body: 'phone\n',
    }))
    expect(big.status).toBe(400)
    expect(((await big.json()) as any).error.message).toContain('20 MB')
  })

  test('another organization’s campaign, or a completed one, refuses the whole file', async () => {
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    const theirs = (await h.admin('POST', `/orgs/${other}/campaigns`, { name: 'Theirs' })).body.data.id
    const r = await h.app.handle(new Request(`http://127.0.0.1/api/v1/admin/orgs/${orgId}/leads/import?campaign_id=${theirs}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body: 'phone\n2125553001\n',
    }))
    expect(r.status).toBe(404)
    await h.admin('PATCH', `/campaigns/${campaignId}`, { status: 'completed' })
    expect((await importCsv('phone\n2125553001\n')).status).toBe(409)
  })

  test('an SDR cannot import through the console; an owner can', async () => {
    await h.admin('POST', `/orgs/${orgId}/users`, { email: 'sdr@acme.example', password: 'sdr password 12345', role: 'sdr' })
    const signIn = await h.app.handle(new Request('http://127.0.0.1/console/api/session', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'sdr@acme.example', password: 'sdr password 12345' }),
    }))
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
    const csrf = ((await signIn.json()) as any).data.csrf_token
    const r = await h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${orgId}/leads/import?campaign_id=${campaignId}`, {
      method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'text/csv' }, body: 'phone\n2125553001\n',
    }))
    expect(r.status).toBe(403)
    expect(((await r.json()) as any).error.missing_permission).toBe('leads:write')
  })
})
