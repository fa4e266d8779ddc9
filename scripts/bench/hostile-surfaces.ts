/**
 * The hostile-bodies benchmark's cases beyond the external API (scripts/bench/hostile-bodies.ts):
 * lead CSV imports, Twilio carrier callbacks and console lead search, each sent the way an
 * attacker would. The world they need (an organization whose carrier is the Twilio emulator with
 * one call up, an owner signed in to the console, leads to search) is made here, through the
 * service's own APIs.
 */
import { TwilioEmulator } from '../../test/emulators/twilio/emulator'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'

export interface SurfaceKind {
  name: string
  method: string
  path: string
  headers: Record<string, string>
  /** A fresh body each round (a stream can be read once). */
  body: () => string | ReadableStream<Uint8Array> | null
  /** Bytes sent, for the table. */
  bytes: number
  /** Must the service answer it within the 50 ms budget itself (a refusal it can make early)? */
  fast: boolean
}

const SID = `AC${'c4'.repeat(16)}`
const TOKEN = '7d'.repeat(16)
const CALLER = '+12125550100'
const MB = 1024 * 1024

/** Bodies a chunk at a time, with no Content-Length: the service cannot refuse them by the header. */
function chunked(total: number, piece: string): () => ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(piece)
  return () => {
    let sent = 0
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= total) return controller.close()
        controller.enqueue(bytes)
        sent += bytes.length
      },
    })
  }
}

async function json(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const r = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
  return r.headers.get('set-cookie') && method === 'POST' && path.endsWith('/session') ? { reply: await r.json(), cookie: r.headers.get('set-cookie')! } : ((await r.json()) as { data: any }).data
}

/** Makes the world and returns the cases, and a stop for the emulator. */
export async function surfaceKinds(base: string, adminToken: string, options: { searchLeads: number }): Promise<{ kinds: SurfaceKind[]; stop: () => Promise<void> }> {
  const admin = { authorization: `Bearer ${adminToken}` }
  const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 0.001 })
  const org = await json(base, 'POST', '/api/v1/admin/orgs', admin, {
    name: 'Hostile surfaces', plan_requests_per_minute: 100_000,
    carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: emulator.url, machine_detection: false },
  })
  const campaign = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/campaigns`, admin, {
    name: 'Hostile surfaces', status: 'active', lines: 5, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }],
  })
  const importsInto = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/campaigns`, admin, { name: 'Imports', status: 'paused', sdrs: [{ name: 'Alex Rivera' }] })
  const key = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/keys`, admin, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000 })
  const auth = { authorization: `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}` }

  // One call up at the emulator (speed 0.001: it stays ringing), so callbacks name a real call.
  await json(base, 'POST', '/api/v1/external/leads', auth, { campaign_id: campaign.id, phone: '+12125553001', call_now: true })
  const deadline = performance.now() + 30_000
  while (emulator.calls.size < 1) {
    if (performance.now() > deadline) throw new Error('no call reached the Twilio emulator (calling hours? the bench sets a New York morning)')
    await Bun.sleep(20)
  }
  const created = emulator.received.find((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.status === 201)!
  const statusUrl = new URL(String(created.params.StatusCallback))
  const callSid = [...emulator.calls.values()][0]!.sid
  const form = (fields: number, valueBytes: number) => {
    const params: Record<string, string> = { AccountSid: SID, CallSid: callSid, CallStatus: 'ringing' }
    for (let i = 0; params && Object.keys(params).length < fields; i++) params[`F${i}`] = 'v'.repeat(valueBytes)
    return params
  }
  const big = form(2_000, 450)
  const wide = form(201, 10)
  const signedWide = signTwilioRequest(TOKEN, statusUrl.href, wide)
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' }

  // Leads to search: a CSV import into the paused campaign (its own rows, not the cases below).
  const rows = ['phone,name,email,external_id']
  for (let i = 0; i < options.searchLeads; i++) rows.push(`+1312${String(2_000_000 + i).padStart(7, '0')},Lead Person ${i},lead${i}@example.com,crm-${i}`)
  await fetch(`${base}/api/v1/admin/orgs/${org.id}/leads/import?campaign_id=${importsInto.id}`, { method: 'POST', headers: { ...admin, 'content-type': 'text/csv' }, body: rows.join('\n') })
    .then(async (r) => { if (!r.ok) throw new Error(`seeding search leads: ${r.status} ${await r.text()}`) })
  await fetch(`${base}/__bench/search-index`)
  const owner = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/users`, admin, { email: 'owner@hostile.example', name: 'Owner', role: 'owner', password: 'a-long-bench-password-1' })
  void owner
  const signIn = await json(base, 'POST', '/console/api/session', {}, { email: 'owner@hostile.example', password: 'a-long-bench-password-1' })
  const cookie = String(signIn.cookie).split(';')[0]!
  const consoleHeaders = { cookie }

  const importPath = `/api/v1/admin/orgs/${org.id}/leads/import?campaign_id=${importsInto.id}&dry_run=true`
  const csv = { ...admin, 'content-type': 'text/csv' }
  const oneCharLines = 'x\n'.repeat(10 * MB)
  const tooManyRows = `phone\n${'+13125550150\n'.repeat(200_001)}`
  const kinds: SurfaceKind[] = [
    { name: 'import: 20 MB of one-character lines (10 M rows)', method: 'POST', path: importPath, headers: csv, body: () => oneCharLines, bytes: oneCharLines.length, fast: false },
    { name: 'import: 200,001 rows of one phone', method: 'POST', path: importPath, headers: csv, body: () => tooManyRows, bytes: tooManyRows.length, fast: false },
    { name: 'import: 25 MB declared (Content-Length)', method: 'POST', path: importPath, headers: csv, body: () => 'y'.repeat(25 * MB), bytes: 25 * MB, fast: true },
    { name: 'import: 25 MB chunked, no Content-Length', method: 'POST', path: importPath, headers: csv, body: chunked(25 * MB, 'z'.repeat(64 * 1024)), bytes: 25 * MB, fast: false },
    { name: 'callback: 0.9 MB form, real call, forged', method: 'POST', path: statusUrl.pathname, headers: { ...formHeaders, 'x-twilio-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }, body: () => new URLSearchParams(big).toString(), bytes: new URLSearchParams(big).toString().length, fast: true },
    { name: 'callback: 0.9 MB chunked, real call, forged', method: 'POST', path: statusUrl.pathname, headers: { ...formHeaders, 'x-twilio-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }, body: chunked(0.9 * MB, `F=${'v'.repeat(8_190)}&`), bytes: 0.9 * MB, fast: true },
    { name: 'callback: 201 fields, signed', method: 'POST', path: statusUrl.pathname, headers: { ...formHeaders, 'x-twilio-signature': signedWide }, body: () => new URLSearchParams(wide).toString(), bytes: new URLSearchParams(wide).toString().length, fast: true },
    { name: `search: name substring, ${options.searchLeads.toLocaleString('en-US')} leads`, method: 'GET', path: `/console/api/orgs/${org.id}/leads?q=Person%2019`, headers: consoleHeaders, body: () => null, bytes: 0, fast: true },
    { name: 'search: a term no lead has', method: 'GET', path: `/console/api/orgs/${org.id}/leads?q=zzqqxx-nothing`, headers: consoleHeaders, body: () => null, bytes: 0, fast: true },
    { name: 'search: email substring', method: 'GET', path: `/console/api/orgs/${org.id}/leads?q=ead777%40exam`, headers: consoleHeaders, body: () => null, bytes: 0, fast: true },
  ]
  return { kinds, stop: () => emulator.stop() }
}
