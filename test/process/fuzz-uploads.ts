/**
 * The fuzz test's upload families (test/process/fuzz.test.ts): lead CSV imports (the admin
 * route, the console's, and the import records where the app has them) with generated CSV
 * files, and the Twilio callbacks with form bodies and signatures, right and wrong.
 */
import fc from 'fast-check'
import { CALLBACK_STEPS } from '../../src/telephony/twilio/call-plan'
import { formParams, signTwilioRequest } from '../../src/telephony/twilio/signature'
import {
  ADMIN_TOKEN, describeCase, enc, headerSafe, hostileString, queryFor, targetSafe,
  type AuthKind, type FuzzCase, type QueryPart, type Route, type World,
} from './fuzz-kit'
import { consoleCredentials, consoleRefusals, queryRefusals } from './fuzz-console'
import { CONSOLE_API, type AppRoute, type SurfaceWorld } from './fuzz-surfaces'

const MB = 1024 * 1024

/** Import routes: the CSV uploads and, where the app has them, the import records. */
export function importRoutes(all: AppRoute[]): AppRoute[] {
  return all.filter((r) => r.method !== 'HEAD' && /\/imports?(\/|$)/.test(r.template) && (r.template.startsWith('/api/v1/admin/') || r.template.startsWith(`${CONSOLE_API}/`)))
}

// ---------------------------------------------------------------------------------------------
// CSV files

const AREAS = ['212', '646', '718', '917', '415', '312', '213', '305', '617', '206']
const HEADERS = ['phone', 'name', 'email', 'external_id', 'address', 'fields.source', 'Mobile', 'Phone Number', 'Full Name', 'E-mail', 'crm_id', 'notes', '', ' phone ', '__proto__', 'constructor', 'fields.', 'fields.a b', 'PHONE']
const freshPhone = fc.tuple(fc.constantFrom(...AREAS), fc.integer({ min: 0, max: 9999 })).map(([a, n]) => `+1${a}555${String(n).padStart(4, '0')}`)

function cell(w: World): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: freshPhone },
    { weight: 2, arbitrary: fc.constantFrom(...w.phones) },
    { weight: 2, arbitrary: fc.string({ maxLength: 15 }) },
    { weight: 1, arbitrary: fc.constantFrom('Ann, "A"', 'multi\nline', 'tab\there', '"', '""', '=1+1', '@SUM(A1)', 'é', '\u{1f600}', ' ', '\ufeff', 'ext-1', 'ext-1') },
    { weight: 1, arbitrary: fc.emailAddress() },
    { weight: 2, arbitrary: hostileString },
  )
}

const quoted = (v: string) => `"${v.replace(/"/g, '""')}"`
function line(cells: string[], style: string, n: number): string {
  return cells.map((v, i) => {
    if (style === 'always') return quoted(v)
    if (style === 'never') return v
    if (style === 'broken' && i === n % Math.max(1, cells.length)) return `"${v}`
    return /[",\r\n]/.test(v) || v !== v.trim() ? quoted(v) : v
  }).join(',')
}

interface Csv {
  bytes: Uint8Array
  label: string
}

const csvOf = (text: string | Buffer, label: string): Csv => ({ bytes: typeof text === 'string' ? Buffer.from(text, 'utf8') : text, label })

/** A generated CSV file: rows of plausible and hostile cells, every quoting and line ending, byte damage, odd shapes, and a few of 1-5 MB. */
function csvBody(w: World): fc.Arbitrary<Csv> {
  const table = fc.record({
    header: fc.array(fc.constantFrom(...HEADERS), { minLength: 1, maxLength: 6 }),
    rows: fc.array(fc.array(cell(w), { maxLength: 8 }), { maxLength: 25 }),
    style: fc.constantFrom('minimal', 'minimal', 'always', 'never', 'broken'),
    eol: fc.constantFrom('\n', '\r\n', '\r', 'mixed'),
    bom: fc.boolean(),
    damage: fc.constantFrom('none', 'none', 'none', 'none', 'nul', 'utf8', 'cut'),
    n: fc.nat(),
  }).map((g) => {
    const eols = ['\n', '\r\n', '\r']
    const lines = [g.header, ...g.rows].map((cells, i) => line(cells, g.style, g.n + i))
    let text = lines.map((l, i) => l + (g.eol === 'mixed' ? eols[(g.n + i) % 3] : g.eol)).join('')
    if (g.bom) text = `\ufeff${text}`
    let bytes = Buffer.from(text, 'utf8')
    const at = bytes.byteLength ? g.n % bytes.byteLength : 0
    if (g.damage === 'nul') bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0]), bytes.subarray(at)])
    if (g.damage === 'utf8') bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xc3, 0x28]), bytes.subarray(at)])
    if (g.damage === 'cut') bytes = bytes.subarray(0, at)
    const shown = text.length > 200 ? `${JSON.stringify(text.slice(0, 160))}... (${bytes.byteLength} bytes)` : JSON.stringify(text)
    return csvOf(bytes, `${shown}${g.damage === 'none' ? '' : ` with damage: ${g.damage} at byte ${at}`}`)
  })
  const odd = fc.oneof(
    fc.constantFrom('', '\n', '\r\n\r\n', '\ufeff', 'phone', 'phone\n', 'phone,name\r\n', '"phone', '\u0000', ',,,,\n,,,\n', 'phone\n"+12125550150\n').map((t) => csvOf(t, JSON.stringify(t))),
    fc.integer({ min: 500, max: 20_000 }).map((n) => csvOf(`${Array.from({ length: n }, (_, i) => `c${i}`).join(',')},phone\n${'x,'.repeat(n)}+12125550150\n`, `${n + 1} columns`)),
    fc.constantFrom(60_000, 65_535, 65_537, 200_000).map((n) => csvOf(`phone,name\n+12125550150,${'n'.repeat(n)}\n`, `a name of ${n} characters`)),
    fc.integer({ min: 10_000, max: 200_000 }).map((n) => csvOf(`phone\n${','.repeat(n)}\n`, `a line of ${n} commas`)),
  )
  const big = fc.tuple(fc.integer({ min: 1, max: 5 }), fc.constantFrom('rows', 'rows', 'unclosed', 'bytes', 'one-line'), fc.nat()).map(([n, kind, seed]) => {
    // Rows up to 2 MB (each one is checked, some written: seconds at 5 MB); the others up to 5 MB.
    const mb = kind === 'rows' ? 1 + (n % 2) : n
    const size = mb * MB
    if (kind === 'rows') {
      const parts = ['phone,name,external_id\n']
      let length = parts[0]!.length
      for (let i = 0; length < size; i++) {
        const row = `+1${AREAS[(seed + i) % AREAS.length]}555${String((seed + i * 7) % 10_000).padStart(4, '0')},Lead ${i},x-${seed}-${i}\n`
        parts.push(row)
        length += row.length
      }
      return csvOf(parts.join(''), `${mb} MB of rows (phone,name,external_id)`)
    }
    if (kind === 'unclosed') return csvOf(`phone,name\n+12125550150,"${'q'.repeat(size)}\n`, `${mb} MB in an unclosed quote`)
    if (kind === 'bytes') return csvOf(Buffer.alloc(size, (seed % 251) + 1), `${mb} MB of byte ${(seed % 251) + 1}`)
    return csvOf(`phone${',x'.repeat(size / 2)}\n`, `${mb} MB on one line`)
  })
  return fc.oneof({ weight: 20, arbitrary: table }, { weight: 4, arbitrary: odd }, { weight: 1, arbitrary: big })
}

// ---------------------------------------------------------------------------------------------
// Import cases

type OrgTag = 'A' | 'B' | 'P' | null
const CSV_TYPES = ['text/csv', 'text/csv', 'text/csv', 'text/csv; charset=utf-8', 'text/plain', 'application/csv', 'application/json', 'multipart/form-data; boundary=x', 'application/octet-stream', 'TEXT/CSV']

export function importCase(w: World, sw: SurfaceWorld, routes: AppRoute[], family: string, baseMs: number): fc.Arbitrary<FuzzCase> {
  const orgOf: Record<Exclude<OrgTag, null>, string> = { A: sw.orgs.fuzzed, B: sw.orgs.other, P: sw.orgs.playground }
  const campaigns: Record<Exclude<OrgTag, null>, string[]> = sw.campaigns
  const junkId = fc.oneof(fc.uuid(), hostileString.map(enc), fc.constantFrom('..', '%00', 'x'.repeat(100)))
  const isUpload = (r: Route) => r.method === 'POST' && /\/leads\/import$/.test(r.template)
  // Mostly uploads: the import records are plain reads.
  return fc.oneof(...routes.map((r) => ({ weight: isUpload(r) ? 4 : 1, arbitrary: fc.constant(r) }))).chain((route) => {
    const console = route.template.startsWith(CONSOLE_API)
    const upload = isUpload(route)
    const orgTags: fc.Arbitrary<OrgTag> = console
      ? fc.oneof({ weight: 10, arbitrary: fc.constant<OrgTag>('A') }, { weight: 2, arbitrary: fc.constantFrom<OrgTag>('B', 'P', null) })
      : fc.oneof({ weight: 6, arbitrary: fc.constant<OrgTag>('P') }, { weight: 3, arbitrary: fc.constantFrom<OrgTag>('A', 'B') }, { weight: 1, arbitrary: fc.constant<OrgTag>(null) })
    return fc.record({
      org: orgTags,
      junkOrg: junkId,
      importId: fc.oneof(...(sw.importIds.length ? [fc.constantFrom(...sw.importIds)] : []), junkId),
      campaignOrg: fc.oneof({ weight: 8, arbitrary: fc.constant<'same' | OrgTag>('same') }, { weight: 2, arbitrary: fc.constantFrom<'same' | OrgTag>('A', 'B', 'P', null) }),
      campaignPick: fc.nat(),
      junkCampaign: fc.oneof(fc.uuid(), hostileString),
      dryRun: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: fc.constantFrom('true', 'false') }, { weight: 1, arbitrary: fc.constantFrom('TRUE', '1', '', 'yes', 'true ') }),
      map: fc.oneof(
        { weight: 8, arbitrary: fc.constant(null) },
        { weight: 2, arbitrary: fc.constantFrom({ Mobile: 'phone' }, { 'Phone Number': 'phone', 'Full Name': 'name' }, { phone: '' }, { phone: 'phone', name: 'phone' }, { notes: 'fields.notes' }, { phone: 'nope' }, { x: 'fields.' + 'a'.repeat(120) }).map((m) => JSON.stringify(m)) },
        { weight: 1, arbitrary: fc.constantFrom('{', '[]', '"phone"', '{"phone":1}', 'null', '{"__proto__":{"phone":"phone"}}', `{"a":"${'b'.repeat(10_050)}"}`) },
        { weight: 1, arbitrary: hostileString },
      ),
      query: queryFor(w, route),
      body: upload ? csvBody(w) : fc.constant(null),
      contentType: fc.constantFrom(...CSV_TYPES),
      adminAuth: fc.oneof({ weight: 8, arbitrary: fc.constant<AuthKind>('admin') }, { weight: 1, arbitrary: fc.constantFrom<AuthKind>('admin-wrong', 'none', 'live') }),
      cred: consoleCredentials(w, sw, { owner: 8, sdr: 2, operator: 2, 'other-org': 1, 'no-cookie': 1, 'garbage-cookie': 1 }, 20),
      chunked: fc.option(fc.integer({ min: 2, max: 5 }), { freq: 8 }),
    }).map((g): FuzzCase => {
      const org = g.org ? orgOf[g.org] : g.junkOrg
      const path = route.template.replace('{org}', targetSafe(org)).replace(/\/orgs\/\{id\}/, `/orgs/${targetSafe(org)}`).replace('{id}', targetSafe(g.importId))
      const mustRefuse: string[] = []
      const parts: QueryPart[] = []
      if (upload) {
        const tag = g.campaignOrg === 'same' ? g.org : g.campaignOrg
        const list = tag ? campaigns[tag] : []
        const campaign = list.length ? list[g.campaignPick % list.length]! : g.junkCampaign
        if (g.campaignPick % 11 !== 0) parts.push({ name: 'campaign_id', value: campaign, exact: true, text: `campaign_id=${enc(campaign)}` })
        if (g.dryRun !== null) parts.push({ name: 'dry_run', value: g.dryRun, exact: true, text: `dry_run=${enc(g.dryRun)}` })
        if (g.map !== null) parts.push({ name: 'map', value: g.map, exact: true, text: `map=${enc(g.map)}` })
        if (g.org && tag && tag !== g.org && g.campaignPick % 11 !== 0) mustRefuse.push(`a campaign of organization ${tag} imported into organization ${g.org}`)
      } else {
        parts.push(...g.query)
      }
      if (!g.org && /\{(org|id)\}/.test(route.template.replace(/\/imports\/\{id\}$/, ''))) mustRefuse.push('the organization in the path does not exist')
      mustRefuse.push(...queryRefusals(route, parts))
      const headers: [string, string][] = [['Host', 'localhost']]
      let auth: AuthKind
      if (console) {
        headers.push(...g.cred.headers)
        auth = g.cred.auth as AuthKind
        const orgPiece = { raw: org, owner: g.org === 'A' ? 'A' as const : g.org === 'B' ? 'B' as const : g.org ? 'notA' as const : null }
        mustRefuse.push(...consoleRefusals(route, route.method, g.cred, orgPiece, []))
      } else {
        auth = g.adminAuth
        if (auth === 'admin') headers.push(['Authorization', `Bearer ${ADMIN_TOKEN}`])
        if (auth === 'admin-wrong') headers.push(['Authorization', 'Bearer wrong-token-0123456789'])
        if (auth === 'live') headers.push(['Authorization', `Basic ${Buffer.from(`${w.good.live.id}:${w.good.live.secret}`).toString('base64')}`])
        if (auth !== 'admin') mustRefuse.push(`${auth} credentials do not open the admin door`)
      }
      const body = g.body
      if (body) headers.push(['Content-Type', g.contentType])
      const query = parts.map((q) => q.text).join('&')
      const target = path + (query ? `?${query}` : '')
      const size = body ? body.bytes.byteLength : 0
      const request = { method: route.method, target, headers, body: body ? body.bytes : null, chunked: body && g.chunked && size < MB ? g.chunked : undefined }
      const headBytes = Buffer.byteLength(`${route.method} ${target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}`, 'latin1')
      // A large file takes longer: a second a megabyte on top of the usual limit.
      const maxMs = size > 256 * 1024 ? baseMs + Math.ceil((1000 * size) / MB) : undefined
      const c: FuzzCase = { family, route, request, auth, door: 'open', mustRefuse, cleanPath: false, headBytes, bodyLabel: body ? body.label : null, maxMs }
      return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })
    })
  })
}

// ---------------------------------------------------------------------------------------------
// Twilio callbacks

const FIELDS = [
  'CallSid', 'AccountSid', 'CallStatus', 'AnsweredBy', 'ParentCallSid', 'CallDuration', 'Duration', 'RecordingUrl', 'RecordingSid', 'RecordingStatus',
  'RecordingDuration', 'TranscriptionData', 'TranscriptionEvent', 'TranscriptionSid', 'Track', 'DialCallStatus', 'DialCallSid', 'Digits',
  'ErrorCode', 'Timestamp', 'SequenceNumber', 'Direction', 'From', 'To', 'MachineDetectionDuration', 'StatusCallbackEvent', 'x', '__proto__',
]
const STATUSES = ['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'canceled', 'failed', 'answered', '']

function fieldValue(sw: SurfaceWorld, name: string): fc.Arbitrary<string> {
  const hex = fc.stringMatching(/^[0-9a-f]{32}$/)
  const byName: Record<string, fc.Arbitrary<string>> = {
    CallSid: fc.oneof(fc.constantFrom(...sw.twilio.sids), hex.map((h) => `CA${h}`)),
    ParentCallSid: fc.oneof(fc.constantFrom(...sw.twilio.sids), hex.map((h) => `CA${h}`)),
    AccountSid: fc.constantFrom(sw.twilio.accountSid, `AC${'0'.repeat(32)}`, ''),
    CallStatus: fc.constantFrom(...STATUSES),
    DialCallStatus: fc.constantFrom(...STATUSES),
    AnsweredBy: fc.constantFrom('human', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax', 'unknown', ''),
    CallDuration: fc.constantFrom('0', '12', '-1', '1e9', '99999999999999999999', 'x'),
    RecordingUrl: fc.constantFrom('http://127.0.0.1:1/rec', 'http://169.254.169.254/latest', 'https://api.twilio.com/x', 'not a url'),
    TranscriptionData: fc.constantFrom('{"transcript":"hello","confidence":0.9}', '{"transcript":1}', '{', 'null', '[]', `{"transcript":"${'w'.repeat(5000)}"}`),
    TranscriptionEvent: fc.constantFrom('transcription-started', 'transcription-content', 'transcription-stopped', 'transcription-error', 'x'),
    Track: fc.constantFrom('inbound_track', 'outbound_track', 'both_tracks', ''),
  }
  return fc.oneof({ weight: 3, arbitrary: Object.hasOwn(byName, name) ? byName[name]! : hostileString }, { weight: 1, arbitrary: hostileString })
}

type Signature = 'none' | 'random' | 'hostile' | 'wrong-token' | 'other-url' | 'no-params' | 'valid' | 'valid-and-junk'

/** Callbacks to real calls (Twilio ones and simulator ones) and junk ids, with every kind of signature and body. */
export function callbackCase(w: World, sw: SurfaceWorld, routes: AppRoute[], family: string, base: () => string): fc.Arbitrary<FuzzCase> {
  const route = routes.find((r) => r.template.startsWith('/twilio/') && r.method === 'POST')
  if (!route) throw new Error('no Twilio callback route in the app')
  const pair = fc.constantFrom(...FIELDS).chain((k) => fieldValue(sw, k).map((v) => [k, v] as [string, string]))
  const form = fc.array(pair, { maxLength: 12 }).map((pairs) => ({ text: pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&'), label: null as string | null }))
  const body = fc.oneof(
    { weight: 12, arbitrary: form },
    { weight: 2, arbitrary: fc.tuple(form, fc.integer({ min: 150, max: 900 })).map(([f, n]) => ({ text: `${f.text}${Array.from({ length: n }, (_, i) => `&f${i}=${i}`).join('')}`, label: `${f.text.slice(0, 100)} and ${n} fields f0..f${n - 1}` })) },
    { weight: 2, arbitrary: fc.tuple(form, fc.constantFrom(60_000, 65_537, 100_000, 300_000, 990_000, 1_100_000)).map(([f, n]) => ({ text: `${f.text}&pad=${'x'.repeat(n)}`, label: `${f.text.slice(0, 100)}&pad=x... (${n} characters)` })) },
    { weight: 2, arbitrary: fc.constantFrom('', '&&&', '=', 'CallSid', 'a=%zz', '%', 'CallSid=CA1&CallSid=CA2', '{"CallSid":"CA1"}', '<xml/>', '--x\r\nContent-Disposition: form-data; name="CallSid"\r\n\r\nCA1\r\n--x--').map((text) => ({ text, label: null })) },
  )
  const idPick = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...sw.twilio.calls).map((id) => ({ id, twilio: true })) },
    { weight: 2, arbitrary: fc.constantFrom(...w.ids.call.mine, ...w.ids.call.other).map((id) => ({ id, twilio: false })) },
    { weight: 2, arbitrary: fc.oneof(fc.uuid(), hostileString.map(enc), fc.constantFrom('..', '%2e%2e', 'x'.repeat(65))).map((id) => ({ id, twilio: false })) },
  )
  return fc.record({
    call: idPick,
    step: fc.oneof({ weight: 8, arbitrary: fc.constantFrom<string>(...CALLBACK_STEPS) }, { weight: 1, arbitrary: fc.constantFrom('nope', 'STATUS', 'status/', '%2e%2e', 'x'.repeat(40)) }),
    leg: fc.option(fc.oneof(fc.constantFrom('0', '1', '2', '3'), fc.constantFrom('-1', '1000', 'x', '', '01', '1&leg=2')), { freq: 3 }),
    method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS') }),
    body,
    badBytes: fc.option(fc.constantFrom([0xff], [0xc3, 0x28], [0]), { freq: 10 }),
    signature: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom<Signature>('none', 'random', 'hostile') },
      { weight: 3, arbitrary: fc.constantFrom<Signature>('wrong-token', 'other-url', 'no-params', 'valid-and-junk') },
      { weight: 3, arbitrary: fc.constant<Signature>('valid') },
    ),
    junkSig: fc.oneof(fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b).toString('base64')), hostileString.map(headerSafe)),
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/x-www-form-urlencoded') }, { weight: 1, arbitrary: fc.constantFrom('application/x-www-form-urlencoded; charset=utf-8', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', '') }),
  }).map((g): FuzzCase => {
    const query = g.leg === null ? '' : `?leg=${g.leg}`
    const target = `/twilio/calls/${targetSafe(g.call.id)}/${targetSafe(g.step)}${query}`
    let bytes = Buffer.from(g.body.text, 'utf8')
    if (g.badBytes) bytes = Buffer.concat([bytes, Buffer.from('&bad='), Buffer.from(g.badBytes)])
    const text = new TextDecoder().decode(bytes)
    const fields = text === '' ? 0 : text.split('&').length
    // Validly signed ones stay small: what a size or field limit answers is left to the tests of that limit.
    const sig: Signature = g.signature === 'valid' && (bytes.byteLength > 60_000 || fields > 190) ? 'random' : g.signature
    const url = `${base()}${target}`
    const otherUrl = url.replace(/\/([^/?]+)(\?|$)/, '/bridge$2')
    // The service reads the form as formParams does; a body it cannot read that way (a field named
    // like an Object member) has no valid signature to give.
    let params: Record<string, string | string[]> | null = null
    try {
      params = formParams(text)
    } catch {
      params = null
    }
    const signature =
      sig === 'none' ? null
        : sig === 'random' || sig === 'hostile' || params === null ? g.junkSig
          : sig === 'wrong-token' ? signTwilioRequest('0'.repeat(32), url, params)
            : sig === 'other-url' ? signTwilioRequest(sw.twilio.authToken, otherUrl, params)
              : sig === 'no-params' ? signTwilioRequest(sw.twilio.authToken, url, {})
                : signTwilioRequest(sw.twilio.authToken, url, params)
    const headers: [string, string][] = [['Host', 'localhost']]
    if (g.contentType) headers.push(['Content-Type', g.contentType])
    if (signature !== null) headers.push(['X-Twilio-Signature', signature])
    if (sig === 'valid-and-junk') headers.push(['X-Twilio-Signature', g.junkSig])
    const mustRefuse: string[] = []
    const signedRight = params !== null && (sig === 'valid' || (sig === 'other-url' && otherUrl === url) || (sig === 'no-params' && Object.keys(params).length === 0))
    if (!signedRight) mustRefuse.push(`a callback without a valid X-Twilio-Signature (${sig})`)
    if (!g.call.twilio) mustRefuse.push('a callback for a call that is not on Twilio')
    if (g.method !== 'POST') mustRefuse.push(`no callback route answers ${g.method}`)
    // A trailing slash names the same route.
    if (!(CALLBACK_STEPS as readonly string[]).includes(g.step.replace(/\/$/, ''))) mustRefuse.push(`no callback step ${g.step}`)
    const request = { method: g.method, target, headers, body: g.method === 'GET' || g.method === 'HEAD' ? null : bytes }
    const headBytes = Buffer.byteLength(`${g.method} ${target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}`, 'latin1')
    const shown = g.body.label ?? (text.length > 300 ? `${text.slice(0, 200)}... (${bytes.byteLength} bytes)` : text)
    const c: FuzzCase = { family, route, request, auth: signedRight ? 'signed' : 'unsigned', door: 'open', mustRefuse, cleanPath: false, headBytes, bodyLabel: request.body ? shown : null }
    return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })
  })
}
