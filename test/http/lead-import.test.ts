import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IMPORT_CHUNK_ROWS } from '../../src/domain/leads/lead-import'
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

async function setUp(env: Record<string, string> = {}) {
  h = createHarness({ env })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
  live = await h.createKey(orgId, { name: 'live', mode: 'live' })
}
beforeEach(() => setUp())
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
    // The import's own source: not an API lead (no waiting-lead count), never called now.
    expect(leads.find((l: any) => l.name === 'Ann')).toMatchObject({ status: 'held', external_id: 'crm-1', fields: { roof: 'shingle' }, lead_source: 'import', call_now: false, consent: null })
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

  test('not CSV (JSON, an image) or not UTF-8: a clear 400', async () => {
    expect((await importCsv('{"phone":"1"}', '', { 'content-type': 'application/json' })).body.error.param).toBe('Content-Type')
    expect((await importCsv(new Uint8Array([0x70, 0x68, 0x6f, 0x6e, 0x65, 0x0a, 0xff, 0xfe]))).body.error.message).toContain('UTF-8')
  })

  test('over 20 MB: 413 from the declared size before anything is read, and as soon as a chunked body passes it', async () => {
    const started = performance.now()
    let pulled = 0
    const declared = await importCsv(new ReadableStream({ pull: (c) => { pulled++; c.enqueue(new TextEncoder().encode('phone\n')) } }) as any, '', { 'content-length': String(25 * 1024 * 1024) })
    expect(declared.status).toBe(413)
    expect(declared.body.error).toMatchObject({ code: 'payload_too_large', param: 'body', message: expect.stringContaining('20 MB') })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(pulled).toBeLessThan(2)
    // Sent without a length: 1 MB pieces until the reader stops at the 21st.
    const piece = new TextEncoder().encode(`phone\n${'2125553001\n'.repeat(95_000)}`.slice(0, 1024 * 1024))
    let sent = 0
    const chunked = await importCsv(new ReadableStream({ pull: (c) => { sent++; c.enqueue(piece) } }) as any)
    expect(chunked.status).toBe(413)
    expect(sent).toBeLessThan(25)
    expect(h.services.imports.list(orgId, 10)).toEqual([])
  })

  test('200,001 rows: 400 naming the 200,000 limit (not masked), nothing imported, no record; 200,000 pass the limit in a dry run', async () => {
    const rows = (n: number) => `phone\n${'x\n'.repeat(n)}`
    for (const query of ['', '&dry_run=true']) {
      const r = await importCsv(rows(200_001), query)
      expect(r.status).toBe(400)
      expect(r.body.error).toMatchObject({ code: 'invalid_request', param: 'body' })
      expect(r.body.error.message).toContain('200,000 rows')
    }
    expect(h.services.imports.list(orgId, 10)).toEqual([])
    expect((await importCsv(rows(200_000), '&dry_run=true')).body.data).toMatchObject({ rows: 200_000, imported: 0, failed: 200_000, import_id: null })
  })

  test('one import at a time per organization: a second one while the first reads its file is 409 import_in_progress', async () => {
    let open!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({ start: (c) => { open = c } })
    open.enqueue(new TextEncoder().encode('phone\n2125553001\n'))
    const first = importCsv(body as any)
    await Bun.sleep(50)
    const second = await importCsv('phone\n2125553002\n')
    expect(second.status).toBe(409)
    expect(second.body.error.code).toBe('import_in_progress')
    // Another organization is not held up.
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    const theirs = (await h.admin('POST', `/orgs/${other}/campaigns`, { name: 'Theirs', status: 'paused', sdrs: [{ name: 'Al' }] })).body.data.id
    const elsewhere = await h.app.handle(new Request(`http://127.0.0.1/api/v1/admin/orgs/${other}/leads/import?campaign_id=${theirs}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body: 'phone\n2125553003\n',
    }))
    expect(elsewhere.status).toBe(200)
    open.close()
    expect((await first).body.data).toMatchObject({ imported: 1 })
    // The slot is given back, also after a refused file.
    expect((await importCsv('name\nAnn\n')).status).toBe(400)
    expect((await importCsv('phone\n2125553002\n')).body.data).toMatchObject({ imported: 1 })
  })

  test('every import has a record: import_id in the reply, GET /imports/{id}, the organization\'s list newest first with paging', async () => {
    const first = (await importCsv('phone\n2125553001\nnope\n')).body.data
    const second = (await importCsv('phone\n2125553002\n')).body.data
    expect(first.import_id).toMatch(/^[0-9a-f-]{36}$/)
    const got = await h.admin('GET', `/imports/${first.import_id}`)
    expect(got.status).toBe(200)
    expect(got.body.data).toEqual({
      id: first.import_id, org_id: orgId, campaign_id: campaignId, state: 'done', rows_total: 2, rows_done: 2, rows_imported: 1, rows_failed: 1,
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), updated: expect.stringMatching(/Z$/),
    })
    const page1 = await h.admin('GET', `/orgs/${orgId}/imports?limit=1`)
    expect(page1.body.data.map((i: any) => i.id)).toEqual([second.import_id])
    expect(page1.body.meta).toEqual({ has_more: true, next_cursor: second.import_id })
    const page2 = await h.admin('GET', `/orgs/${orgId}/imports?limit=1&starting_after=${second.import_id}`)
    expect(page2.body.data.map((i: any) => i.id)).toEqual([first.import_id])
    expect(page2.body.meta.has_more).toBe(false)
    expect((await h.admin('GET', '/imports/00000000-0000-4000-8000-000000000000')).body.error.code).toBe('not_found')
    expect((await h.admin('GET', '/orgs/00000000-0000-4000-8000-000000000000/imports')).status).toBe(404)
    // A dry run keeps no record.
    expect((await importCsv('phone\n2125553009\n', '&dry_run=true')).body.data.import_id).toBeNull()
    expect((await h.admin('GET', `/orgs/${orgId}/imports`)).body.data).toHaveLength(2)
  })

  test('another organization’s campaign, or a completed one, refuses the whole file', async () => {
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    const theirs = (await h.admin('POST', `/orgs/${other}/campaigns`, { name: 'Theirs' })).body.data.id
    const r = await h.app.handle(new Request(`http://127.0.0.1/api/v1/admin/orgs/${orgId}/leads/import?campaign_id=${theirs}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body: 'phone\n2125553001\n',
    }))
    expect(r.status).toBe(404)
    // A dry run too, even of a file with no rows (the fuzz test found it answering 200).
    for (const body of ['phone\n', 'name\nAnn\n']) {
      const dry = await h.app.handle(new Request(`http://127.0.0.1/api/v1/admin/orgs/${orgId}/leads/import?campaign_id=${theirs}&dry_run=true`, {
        method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body,
      }))
      expect(dry.status).toBe(404)
    }
    await h.admin('PATCH', `/campaigns/${campaignId}`, { status: 'completed' })
    expect((await importCsv('phone\n2125553001\n')).status).toBe(409)
  })

  test('columns named like Object members (__proto__, constructor, toString) are plain columns, in the header and in map', async () => {
    const csv = 'Full Name,constructor,__proto__,toString,PHONE\nAnn Lee,a,b,c,2125553001\n'
    const r = await importCsv(csv, '&dry_run=true')
    expect(r.status).toBe(200)
    expect(r.body.data.columns.map((c: any) => c.target)).toEqual(['name', null, null, null, 'phone'])
    const mapped = await importCsv(csv, `&dry_run=true&map=${encodeURIComponent(JSON.stringify({ constructor: 'fields.c' }))}`)
    expect(mapped.status).toBe(200)
    expect(mapped.body.data.columns.map((c: any) => c.target)).toEqual(['name', 'fields.c', null, null, 'phone'])
    expect((await importCsv(csv)).body.data.imported).toBe(1)
    // A custom field named __proto__ is stored as a field like any other.
    const proto = await importCsv('phone,fields.__proto__\n2125553002,x\n')
    expect(proto.body.data.imported).toBe(1)
    const lead = (await h.api('GET', '/leads?limit=1', { key: live })).body.data[0]
    expect(Object.getOwnPropertyDescriptor(lead.fields, '__proto__')?.value).toBe('x')
  })

  test('a line of more than 1,000 columns is a 400, even of empty cells', async () => {
    const r = await importCsv(`phone\n2125553001${','.repeat(200_000)}\n`, '&dry_run=true')
    expect(r.status).toBe(400)
    expect(r.body.error.message).toContain('1,000 columns')
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

  test('a stop mid-import leaves the record interrupted at boot; the same file resumes it: same import_id, done, no duplicates', async () => {
    h.close()
    const dir = mkdtempSync(join(tmpdir(), 'dialer-import-resume-'))
    try {
      await setUp({ DIALER_DATABASE: join(dir, 'dialer.db') })
      const rows = IMPORT_CHUNK_ROWS * 2.5
      const csv = `phone,name\n${Array.from({ length: rows }, (_, i) => `+1212${200 + Math.floor(i / 1000)}${String(i % 1000).padStart(4, '0')},Lead ${i}`).join('\n')}\n`
      // The process dies while the second chunk is written: its rows and counters never commit.
      const insert = h.services.stores.leads.insert
      let inserts = 0
      h.services.stores.leads.insert = (row) => {
        if (++inserts > IMPORT_CHUNK_ROWS * 1.5) throw new Error('killed')
        return insert(row)
      }
      expect((await importCsv(csv)).status).toBe(500)
      const id = (await h.admin('GET', `/orgs/${orgId}/imports`)).body.data[0].id
      // As a kill -9 leaves it: still running.
      h.services.database.sqlite.run("UPDATE lead_imports SET state = 'running'")
      h.close()
      h = createHarness({ env: { DIALER_DATABASE: join(dir, 'dialer.db') } })
      const cut = (await h.admin('GET', `/imports/${id}`)).body.data
      // The second chunk rolled back: the record counts the first, whose leads are stored.
      expect(cut).toMatchObject({ state: 'interrupted', rows_total: rows, rows_done: IMPORT_CHUNK_ROWS, rows_imported: IMPORT_CHUNK_ROWS, rows_failed: 0 })
      expect((h.services.database.sqlite.query('SELECT count(*) AS n FROM leads').get() as { n: number }).n).toBe(IMPORT_CHUNK_ROWS)
      const again = await importCsv(csv)
      expect(again.body.data).toMatchObject({ import_id: id, resumed_rows: IMPORT_CHUNK_ROWS, rows, imported: rows, failed: 0, errors: [] })
      expect((await h.admin('GET', `/imports/${id}`)).body.data).toMatchObject({ state: 'done', rows_done: rows, rows_imported: rows, rows_failed: 0 })
      expect((h.services.database.sqlite.query('SELECT count(*) AS n FROM leads').get() as { n: number }).n).toBe(rows)
    } finally {
      h.close()
      h = createHarness()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
