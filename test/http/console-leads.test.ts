import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

// Issue 19: the console's leads API (search, one lead with why it waits, call now).

let h: Harness
let orgId = ''
let campaignId = ''
let live: TestKey
const leads: Record<string, string> = {}

async function call(method: string, path: string, session?: { cookie: string; csrf: string }) {
  const headers: Record<string, string> = {}
  if (session) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf })
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, { method, headers }))
  await h.services.database.pendingCommit()
  const body = (await r.json()) as any
  // A search's lease is given back once its reply is out (after this turn): as a browser's next request would.
  await Bun.sleep(1)
  return { status: r.status, body }
}
async function signIn(email: string, password: string) {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) }))
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await r.json()) as any).data.csrf_token as string }
}

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'sdr@acme.example', password: 'sdr password 12345', role: 'sdr' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  for (const [name, phone, email, external] of [['Ann Lee', '+12125552001', 'ann@example.com', 'crm-1'], ['Bob 100% Real', '+12125552002', 'bob@example.com', 'crm-2']]) {
    leads[name!] = (await h.api('POST', '/leads', { key: live, body: { campaign_id: campaignId, phone, name, email, external_id: external } })).body.data.id
  }
})
afterEach(() => h.close())

describe('console leads', () => {
  test.each([
    ['(212) 555-2001', ['Ann Lee']],
    ['+1 212 555 2002', ['Bob 100% Real']],
    ['ann', ['Ann Lee']],
    ['EXAMPLE.COM', ['Bob 100% Real', 'Ann Lee']],
    ['crm-2', ['Bob 100% Real']],
    ['100%', ['Bob 100% Real']],
    // Under three characters: an external id, exactly (a trigram index needs three).
    ['%', []],
    ['_', []],
    ['cr', []],
    ['nobody', []],
  ])('search %p finds %p', async (q, names) => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const r = await call('GET', `/console/api/orgs/${orgId}/leads?q=${encodeURIComponent(q)}`, sdr)
    expect(r.body.data.map((l: any) => l.name)).toEqual(names)
  })

  test('one lead: its contactability, calls and events; call now goes through POST /calls’ rules', async () => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const r = await call('GET', `/console/api/orgs/${orgId}/leads/${leads['Ann Lee']}`, sdr)
    expect(r.body.data.lead).toMatchObject({ name: 'Ann Lee', status: 'held' })
    expect(r.body.data.contactability).toMatchObject({ lead_id: leads['Ann Lee'], zones: ['America/New_York'] })
    expect(r.body.data.events.map((e: any) => e.type)).toEqual(['lead.queued', 'lead.created'])
    // The campaign is paused: POST /calls' rule answers, not a new one.
    const paused = await call('POST', `/console/api/orgs/${orgId}/leads/${leads['Ann Lee']}/call_now`, sdr)
    expect(paused.status).toBe(200)
    expect(paused.body.data).toMatchObject({ lead_id: leads['Ann Lee'] })
  })

  test('another organization’s lead is not there', async () => {
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    await h.admin('POST', `/orgs/${other}/users`, { email: 'them@other.example', password: 'their password 1', role: 'owner' })
    const them = await signIn('them@other.example', 'their password 1')
    expect((await call('GET', `/console/api/orgs/${other}/leads/${leads['Ann Lee']}`, them)).status).toBe(404)
    expect((await call('POST', `/console/api/orgs/${other}/leads/${leads['Ann Lee']}/call_now`, them)).status).toBe(404)
    expect((await call('GET', `/console/api/orgs/${other}/leads?q=ann`, them)).body.data).toEqual([])
  })

  test('a term under three characters finds an external id exactly', async () => {
    await h.api('POST', '/leads', { key: live, body: { campaign_id: campaignId, phone: '+12125552003', name: 'Cy Short', external_id: 'A7' } })
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    expect((await call('GET', `/console/api/orgs/${orgId}/leads?q=A7`, sdr)).body.data.map((l: any) => l.name)).toEqual(['Cy Short'])
    const one = await call('GET', `/console/api/orgs/${orgId}/leads?q=A`, sdr)
    expect(one.body).toEqual({ data: [], has_more: false })
  })
})

describe('search reaches every lead of the organization (the trigram index)', () => {
  let phones = 0
  const insertLeads = (rows: { name: string; email: string; external: string }[]) => {
    const db = h.services.database.sqlite
    const insert = db.prepare(
      `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, name, email, external_id, fields, lead_source, status, call_now, queued_at, late, attempts, last_posted_at, created, updated)
       VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, '{}', 'import', 'done', 0, 1, 0, 0, 1, 1, 1)`,
    )
    const ids: string[] = []
    h.services.database.transaction(() => {
      for (const row of rows) {
        const id = Bun.randomUUIDv7()
        ids.push(id)
        insert.run(id, orgId, campaignId, `+1646${String(2_000_000 + phones++).padStart(7, '0')}`, row.name, row.email, row.external)
      }
    })
    return ids
  }

  test('the oldest of 60,000 leads by any part of name, email or external id; one not yet indexed too; renamed ones by their new name', async () => {
    const [oldest] = insertLeads([{ name: 'Quentin Marlowe', email: 'qmarlowe@oldmail.example', external: 'legacy-00042' }])
    insertLeads(Array.from({ length: 60_000 }, (_, i) => ({ name: `Filler ${i}`, email: `filler${i}@example.com`, external: `fill-${i}` })))
    expect(h.services.searchIndex.catchUp()).toBeGreaterThanOrEqual(60_001)
    const [fresh] = insertLeads([{ name: 'Quentin Fresh', email: 'fresh@newmail.example', external: 'new-77' }])
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const ids = async (q: string) => (await call('GET', `/console/api/orgs/${orgId}/leads?q=${encodeURIComponent(q)}`, sdr)).body.data.map((l: any) => l.id)
    expect(await ids('ntin marl')).toEqual([oldest])
    expect(await ids('OLDMAIL.EX')).toEqual([oldest])
    expect(await ids('acy-000')).toEqual([oldest])
    // Newest first: the one past the index's mark, then the indexed one.
    expect(await ids('quentin')).toEqual([fresh, oldest])
    h.services.database.sqlite.run("UPDATE leads SET name = 'Zora Quill' WHERE id = ?", [oldest!])
    expect(await ids('zora q')).toEqual([oldest])
    expect(await ids('ntin marl')).toEqual([])
    expect(await ids('filler 5999')).toHaveLength(11)
  })
})

describe('console limits per session', () => {
  test('600 requests a minute with a burst of 100: the 101st at once is 429 with Retry-After; another session is not affected', async () => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    for (let i = 0; i < 100; i++) expect((await call('GET', '/console/api/session', sdr)).status).toBe(200)
    const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { headers: { cookie: sdr.cookie } }))
    expect(r.status).toBe(429)
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(((await r.json()) as any).error).toMatchObject({ code: 'rate_limited', reason: 'console_session' })
    const other = await signIn('sdr@acme.example', 'sdr password 12345')
    expect((await call('GET', '/console/api/session', other)).status).toBe(200)
    // The bucket refills at 10 a second.
    await h.advance(1)
    expect((await call('GET', '/console/api/session', sdr)).status).toBe(200)
  })

  test('one search at a time per session: a second one while the first is answering is 429; after it, searching works again', async () => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const search = () => h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${orgId}/leads?q=example`, { headers: { cookie: sdr.cookie } }))
    const replies = await Promise.all([search(), search()])
    expect(replies.map((r) => r.status)).toEqual([200, 429])
    expect(replies[1]!.headers.get('retry-after')).toBe('1')
    expect(((await replies[1]!.json()) as any).error.reason).toBe('console_search')
    await Bun.sleep(10)
    expect((await search()).status).toBe(200)
    // Another session searches meanwhile.
    const other = await signIn('sdr@acme.example', 'sdr password 12345')
    const both = await Promise.all([search(), h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${orgId}/leads?q=example`, { headers: { cookie: other.cookie } }))])
    expect(both.map((r) => r.status)).toEqual([200, 200])
  })
})
