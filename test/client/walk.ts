/**
 * A client program written the way an API user would write one: openapi-fetch plus the
 * `paths` type that openapi-typescript generates from the published OpenAPI document
 * (bun test/client/generate.ts). It walks every resource of the external API, branches on
 * error codes through the typed `error`, and reads the documented headers.
 *
 *   BASE=http://127.0.0.1:8080 KEY=dk_live_... SECRET=dks_... CAMPAIGN=<uuid> bun test/client/walk.ts
 *
 * The key needs every permission and the campaign must be active with an SDR and calling
 * hours that include now. Exits 0 when every step got what it expected; otherwise prints
 * the step that failed and exits 1. test/process/generated-client.test.ts type-checks this
 * file (tsc --strict, no casts) and runs it against the service.
 */
import createClient from 'openapi-fetch'
import type { components, operations, paths } from './api.generated'

// The document's named schemas and operations: the names a developer's own code uses.
type Lead = components['schemas']['Lead']
type Call = components['schemas']['Call']
type ApiError = components['schemas']['Error']
type NewLead = operations['createLead']['requestBody']['content']['application/json']

function env(name: string): string {
  const value = process.env[name]
  if (!value) {
    console.error(`walk: ${name} is not set`)
    process.exit(2)
  }
  return value
}

const BASE = env('BASE')
const KEY = env('KEY')
const SECRET = env('SECRET')
const CAMPAIGN = env('CAMPAIGN')

const authorization = `Basic ${btoa(`${KEY}:${SECRET}`)}`
const client = createClient<paths>({ baseUrl: BASE, headers: { Authorization: authorization } })
const stranger = createClient<paths>({ baseUrl: BASE, headers: { Authorization: `Basic ${btoa(`${KEY}:wrong-secret`)}` } })

class StepFailed extends Error {}
let currentStep = 'start'

function fail(message: string): never {
  throw new StepFailed(message)
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) fail(message)
}

/** An error reply as one line: its code (branch on it) and message. */
const describeError = (reply: ApiError): string => `${reply.error.code}: ${reply.error.message}`

/** For messages: what came back. */
function show(value: unknown): string {
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 400 ? `${text.slice(0, 400)}...` : text
}

async function step(name: string, run: () => Promise<void>): Promise<void> {
  currentStep = name
  const started = performance.now()
  await run()
  console.log(`ok   ${name} (${Math.round(performance.now() - started)} ms)`)
}

/** Every reply carries Request-Id and the RateLimit-* headers. */
function checkCommonHeaders(response: Response): void {
  const requestId = response.headers.get('Request-Id')
  check(requestId !== null && requestId.startsWith('req_'), `Request-Id header: ${requestId}`)
  for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
    const value = response.headers.get(name)
    check(value !== null && /^\d+$/.test(value), `${name} header: ${value}`)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
/** Last two digits 09: the simulated person answers and hangs up (docs/simulator.md). */
const leadPhone = `+1312555${String(2000 + Math.floor(Math.random() * 80) * 100 + 9).padStart(4, '0')}`
const dncPhone = `+1415555${String(3000 + Math.floor(Math.random() * 6000)).padStart(4, '0')}`
const externalId = `walk-${unique}`

let leadId = ''
let callId = ''
let eventId = ''
let endpointId = ''

async function main(): Promise<void> {
  await step('GET /campaigns lists the campaign; Request-Id and RateLimit-* headers', async () => {
    const { data, error, response } = await client.GET('/api/v1/external/campaigns', { params: { query: { limit: 100 } } })
    if (error) fail(`${response.status} ${error.error.code}: ${error.error.message}`)
    checkCommonHeaders(response)
    const limit = Number(response.headers.get('RateLimit-Limit'))
    const remaining = Number(response.headers.get('RateLimit-Remaining'))
    check(remaining < limit, `RateLimit-Remaining ${remaining} is below RateLimit-Limit ${limit}`)
    const campaign = data.data.find((c) => c.id === CAMPAIGN)
    check(campaign !== undefined, `campaign ${CAMPAIGN} not in ${show(data.data)}`)
    check(campaign.status === 'active', `campaign status ${campaign.status}`)
    check(typeof data.meta.has_more === 'boolean', 'meta.has_more')
  })

  await step('GET /campaigns/{id}, POST /campaigns/{id}/activate (already active)', async () => {
    const one = await client.GET('/api/v1/external/campaigns/{id}', { params: { path: { id: CAMPAIGN } } })
    if (one.error) fail(`get: ${one.error.error.code}`)
    check(one.data.data.name.length > 0 && one.data.data.livemode, `campaign ${show(one.data)}`)
    const activated = await client.POST('/api/v1/external/campaigns/{id}/activate', { params: { path: { id: CAMPAIGN } } })
    if (activated.error) fail(`activate: ${activated.error.error.code}`)
    check(activated.data.data.status === 'active', `activate: ${show(activated.data)}`)
  })

  await step('a wrong secret is 401 authentication_failed', async () => {
    const { error, response } = await stranger.GET('/api/v1/external/campaigns')
    check(error !== undefined, 'a wrong secret was accepted')
    check(response.status === 401, `status ${response.status}`)
    switch (error.error.code) {
      case 'authentication_failed':
        check(error.error.request_id === response.headers.get('Request-Id'), 'request_id matches the Request-Id header')
        break
      default:
        fail(`code ${error.error.code}`)
    }
  })

  await step('POST /leads with an Idempotency-Key, then the same again is replayed', async () => {
    const idempotencyKey = `walk-lead-${unique}`
    const body: NewLead = { campaign_id: CAMPAIGN, phone: leadPhone, external_id: externalId, name: 'Walk Client', fields: { source: 'walk' } }
    const first = await client.POST('/api/v1/external/leads', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body })
    if (first.error) fail(`${first.response.status} ${first.error.error.code}: ${first.error.error.message}`)
    check(first.response.status === 201, `status ${first.response.status}`)
    checkCommonHeaders(first.response)
    const id = first.data.data.id
    check(id !== null, 'a stored lead has an id')
    leadId = id
    check(first.data.data.external_id === externalId, `external_id ${first.data.data.external_id}`)
    check(first.data.data.livemode, 'livemode')
    check(first.response.headers.get('Idempotent-Replayed') === null, 'a first request is not a replay')

    const again = await client.POST('/api/v1/external/leads', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body })
    if (again.error) fail(`replay: ${again.response.status} ${again.error.error.code}`)
    check(again.response.status === 201, `replay status ${again.response.status}`)
    check(again.response.headers.get('Idempotent-Replayed') === 'true', `Idempotent-Replayed: ${again.response.headers.get('Idempotent-Replayed')}`)
    check(again.data.data.id === leadId, 'the replay answers the same lead')

    const changed = await client.POST('/api/v1/external/leads', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: { ...body, name: 'Someone Else' } })
    check(changed.error !== undefined, 'the same key with another body was accepted')
    switch (changed.error.error.code) {
      case 'idempotency_mismatch':
        check(changed.response.status === 409, `status ${changed.response.status}`)
        break
      default:
        fail(`code ${changed.error.error.code}`)
    }
  })

  await step('POST /leads errors: invalid_phone, duplicate_lead (with lead_id), not_found campaign', async () => {
    const bad = await client.POST('/api/v1/external/leads', { body: { campaign_id: CAMPAIGN, phone: '123' } })
    check(bad.error !== undefined, 'phone 123 was accepted')
    switch (bad.error.error.code) {
      case 'invalid_phone':
        check(bad.response.status === 400 && bad.error.error.param === 'phone', `status ${bad.response.status} param ${bad.error.error.param}`)
        break
      default:
        fail(`phone 123: code ${bad.error.error.code}`)
    }

    const duplicate = await client.POST('/api/v1/external/leads', { body: { campaign_id: CAMPAIGN, phone: leadPhone } })
    check(duplicate.error !== undefined, 'a duplicate was accepted')
    switch (duplicate.error.error.code) {
      case 'duplicate_lead':
        check(duplicate.response.status === 409, `status ${duplicate.response.status}`)
        check(duplicate.error.error.lead_id === leadId, `lead_id ${duplicate.error.error.lead_id}`)
        break
      default:
        fail(`duplicate: code ${duplicate.error.error.code}`)
    }

    const nowhere = await client.POST('/api/v1/external/leads', { body: { campaign_id: '01890000-0000-7000-8000-000000000000', phone: '+13125550000' } })
    check(nowhere.error !== undefined, 'an unknown campaign was accepted')
    check(nowhere.error.error.code === 'not_found' && nowhere.response.status === 404, `unknown campaign: ${nowhere.response.status} ${nowhere.error.error.code}`)
  })

  await step('POST /leads/batch: one lead added, one refused with its own code', async () => {
    const { data, error } = await client.POST('/api/v1/external/leads/batch', {
      body: { campaign_id: CAMPAIGN, dry_run: true, leads: [{ phone: `+1646555${leadPhone.slice(-4)}` }, { phone: 'not a phone' }] },
    })
    if (error) fail(`${error.error.code}: ${error.error.message}`)
    check(data.data.succeeded === 1 && data.data.failed === 1 && data.data.dry_run, `batch ${show(data.data)}`)
    for (const result of data.data.results) {
      if (result.ok) check(result.index === 0 && result.lead.dry_run, `result ${show(result)}`)
      else check(result.index === 1 && result.error.code === 'invalid_phone' && result.error.param === 'leads[1].phone', `result ${show(result)}`)
    }
  })

  await step('GET /leads/{id}, GET /leads?external_id=, GET /leads (list), PATCH /leads/{id}', async () => {
    const one = await client.GET('/api/v1/external/leads/{id}', { params: { path: { id: leadId } } })
    if (one.error) fail(`get: ${one.error.error.code}`)
    const lead: Lead = one.data.data
    check(lead.id === leadId && lead.phone === leadPhone && lead.campaign_id === CAMPAIGN, `lead ${show(lead)}`)
    check(lead.fields['source'] === 'walk', `fields ${show(lead.fields)}`)
    check(Array.isArray(lead.calls), 'calls')

    const byExternal = await client.GET('/api/v1/external/leads', { params: { query: { external_id: externalId } } })
    if (byExternal.error) fail(`by external_id: ${byExternal.error.error.code}`)
    const found = byExternal.data.data
    check(!Array.isArray(found), 'external_id answers one lead, not a list')
    check(found.id === leadId, `by external_id: ${show(found)}`)

    const list = await client.GET('/api/v1/external/leads', { params: { query: { campaign_id: CAMPAIGN, limit: 5 } } })
    if (list.error) fail(`list: ${list.error.error.code}`)
    const leads = list.data.data
    check(Array.isArray(leads), 'without external_id: a list')
    check(leads.some((l) => l.id === leadId), 'the new lead is listed')
    check('meta' in list.data && list.data.meta !== undefined && typeof list.data.meta.has_more === 'boolean', 'list meta')

    const patched = await client.PATCH('/api/v1/external/leads/{id}', { params: { path: { id: leadId } }, body: { name: 'Walk Client Renamed', email: null } })
    if (patched.error) fail(`patch: ${describeError(patched.error)}`)
    check(patched.data.data.name === 'Walk Client Renamed' && patched.data.data.email === null, `patched ${show(patched.data.data)}`)

    const older = await client.GET('/api/v1/external/campaigns/{id}/leads', { params: { path: { id: CAMPAIGN }, query: { search: 'Renamed', limit: 10 } } })
    if (older.error) fail(`older list: ${older.error.error.code}`)
    check(older.data.data.some((l) => l.id === leadId && l.externalId === externalId && l.campaignId === CAMPAIGN), `older list ${show(older.data.data)}`)

    const phone = await client.PATCH('/api/v1/external/leads/{id}', { params: { path: { id: leadId } }, body: { phone: '+13125550001' } })
    check(phone.error !== undefined, 'a phone change was accepted')
    check(phone.error.error.code === 'phone_cannot_change' && phone.response.status === 422, `phone change: ${phone.error.error.code}`)
  })

  await step('GET /leads/{id} of an unknown lead is 404 not_found', async () => {
    const { error, response } = await client.GET('/api/v1/external/leads/{id}', { params: { path: { id: '01890000-0000-7000-8000-000000000000' } } })
    check(error !== undefined, 'an unknown lead was found')
    switch (error.error.code) {
      case 'not_found':
        check(response.status === 404, `status ${response.status}`)
        checkCommonHeaders(response)
        break
      default:
        fail(`code ${error.error.code}`)
    }
  })

  await step('Do Not Call: check, add, add again (duplicate_dnc_entry), list, remove', async () => {
    const before = await client.GET('/api/v1/external/dnc/check', { params: { query: { phone: dncPhone } } })
    if (before.error) fail(`check: ${before.error.error.code}`)
    check(!before.data.data.onDncList && before.data.data.normalizedPhone === dncPhone, `check ${show(before.data.data)}`)

    const added = await client.POST('/api/v1/external/dnc', { body: { phone: dncPhone } })
    if (added.error) fail(`add: ${added.error.error.code}`)
    check(added.response.status === 201 && added.data.data.phone === dncPhone, `add ${show(added.data)}`)
    const entryId = added.data.data.id

    const again = await client.POST('/api/v1/external/dnc', { body: { phone: dncPhone } })
    check(again.error !== undefined, 'a number was listed twice')
    check(again.error.error.code === 'duplicate_dnc_entry' && again.response.status === 409, `again: ${again.error.error.code}`)

    const batch = await client.POST('/api/v1/external/dnc/batch', { body: { phones: [dncPhone, 'nope'] } })
    if (batch.error) fail(`batch: ${batch.error.error.code}`)
    check(batch.data.data.succeeded === 0 && batch.data.data.failed === 2, `batch ${show(batch.data.data)}`)

    const after = await client.GET('/api/v1/external/dnc/check', { params: { query: { phone: dncPhone } } })
    if (after.error) fail(`check after: ${after.error.error.code}`)
    check(after.data.data.onDncList, 'listed after POST /dnc')

    const list = await client.GET('/api/v1/external/dnc', { params: { query: { search: dncPhone.slice(-7), limit: 10 } } })
    if (list.error) fail(`list: ${list.error.error.code}`)
    check(list.data.data.some((e) => e.id === entryId), `list ${show(list.data.data)}`)

    const removed = await client.DELETE('/api/v1/external/dnc/{id}', { params: { path: { id: entryId } } })
    if (removed.error) fail(`remove: ${removed.error.error.code}`)
    check(removed.data.data.id === entryId, 'removed entry')
    const gone = await client.DELETE('/api/v1/external/dnc/{id}', { params: { path: { id: entryId } } })
    check(gone.error !== undefined && gone.error.error.code === 'not_found', 'removing twice is not_found')
  })

  await step('GET /calls?lead_id= shows the lead\u2019s call; GET /calls/{id} once it ended', async () => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const { data, error } = await client.GET('/api/v1/external/calls', { params: { query: { lead_id: leadId, limit: 10 } } })
      if (error) fail(`list: ${error.error.code}`)
      const call = data.data.find((c) => c.status === 'ended')
      if (call) {
        callId = call.id
        break
      }
      if (Date.now() > deadline) fail(`no ended call for the lead within 30 s: ${show(data.data)}`)
      await sleep(250)
    }
    const { data, error } = await client.GET('/api/v1/external/calls/{id}', { params: { path: { id: callId } } })
    if (error) fail(`get: ${error.error.code}`)
    const call: Call = data.data
    check(call.lead !== null && call.lead.id === leadId && call.lead.phone === leadPhone && call.campaign_id === CAMPAIGN && call.direction === 'outbound', `call ${show(call)}`)
    check(call.outcome === 'hung_up' && call.answered !== null && call.transcript_available, `call ${show(call)}`)
    check(call.duration_seconds !== null && call.duration_seconds >= 0, 'duration_seconds')
    check(call.started_by.type === 'dialer' || call.started_by.type === 'api', `started_by ${show(call.started_by)}`)

    // The deprecated shape (offset): pagination instead of meta, with Deprecation and Sunset.
    const old = await client.GET('/api/v1/external/calls', { params: { query: { lead_id: leadId, offset: 0, limit: 5 } } })
    if (old.error) fail(`deprecated list: ${old.error.error.code}`)
    check(old.response.headers.get('Deprecation') === 'true' && old.response.headers.get('Sunset') !== null, 'Deprecation and Sunset headers')
    check(old.data.pagination !== undefined && old.data.pagination.offset === 0 && old.data.pagination.total >= 1, `pagination ${show(old.data.pagination)}`)
  })

  await step('GET /calls/{id}/transcript as JSON and as text; GET /calls/{id}/recording', async () => {
    const json = await client.GET('/api/v1/external/calls/{id}/transcript', { params: { path: { id: callId }, query: { format: 'json' } } })
    if (json.error) fail(`json: ${json.error.error.code}`)
    // The operation documents both application/json and text/plain; format=json is the JSON one.
    if (typeof json.data === 'string') fail(`format=json answered text: ${show(json.data)}`)
    check(json.response.headers.get('content-type')?.startsWith('application/json') === true, 'format=json is JSON')
    const transcript = json.data.data
    check(transcript.call_id === callId && transcript.lines.length > 0, `transcript ${show(transcript)}`)
    const speakers = new Set(transcript.lines.map((line) => line.speaker))
    check(speakers.has('ai'), `speakers ${[...speakers].join(',')}`)

    const text = await client.GET('/api/v1/external/calls/{id}/transcript', { params: { path: { id: callId }, query: { format: 'text' } }, parseAs: 'text' })
    if (text.error) fail(`text: ${show(text.error)}`)
    check((text.response.headers.get('content-type') ?? '').startsWith('text/plain'), `content type ${text.response.headers.get('content-type')}`)
    check(text.data.includes('AI assistant: '), `text ${show(text.data)}`)

    const recording = await client.GET('/api/v1/external/calls/{id}/recording', { params: { path: { id: callId } } })
    if (recording.error) fail(`recording: ${recording.error.error.code}`)
    check(recording.data.data.url.startsWith('http') && Date.parse(recording.data.data.expires_at) > Date.now(), `recording ${show(recording.data)}`)
  })

  await step('POST /calls calls the lead again (202), or lead_busy while it is up', async () => {
    const { data, error, response } = await client.POST('/api/v1/external/calls', {
      params: { header: { 'Idempotency-Key': `walk-call-${unique}` } },
      body: { lead_id: leadId },
    })
    if (error) {
      switch (error.error.code) {
        case 'lead_busy':
          check(response.status === 409, `status ${response.status}`)
          return
        case 'call_limit_reached':
          fail(`call_limit_reached, Retry-After ${response.headers.get('Retry-After')}`)
        default:
          fail(`${response.status} ${error.error.code}: ${error.error.message}`)
      }
    }
    check(response.status === 202, `status ${response.status}`)
    check(data.data.lead_id === leadId && data.data.calls_left_today === 2, `call ${show(data.data)}`)
    check(['dialing', 'queued', 'scheduled', 'held'].includes(data.data.status), `status ${data.data.status}`)

    const byExternal = await client.POST('/api/v1/external/calls', { body: { external_id: 'walk-nobody', campaign_id: CAMPAIGN } })
    check(byExternal.error !== undefined && byExternal.error.error.code === 'not_found', 'an unknown external_id is not_found')
  })

  await step('GET /events?object_id= and GET /events/{id}', async () => {
    const { data, error } = await client.GET('/api/v1/external/events', { params: { query: { object_id: leadId, type: ['lead.created', 'lead.queued'], limit: 10 } } })
    if (error) fail(`list: ${error.error.code}`)
    const created = data.data.find((e) => e.type === 'lead.created')
    check(created !== undefined, `events ${show(data.data)}`)
    eventId = created.id
    const one = await client.GET('/api/v1/external/events/{id}', { params: { path: { id: eventId } } })
    if (one.error) fail(`get: ${one.error.error.code}`)
    check(one.data.data.id === eventId && one.data.data.api_version.length > 0 && one.data.data.livemode, `event ${show(one.data)}`)
  })

  await step('webhook endpoints: create, list, get, update, test, deliveries, roll_secret, delete', async () => {
    const created = await client.POST('/api/v1/external/webhook_endpoints', {
      params: { header: { 'Idempotency-Key': `walk-hook-${unique}` } },
      body: { url: 'https://93.184.215.14/hook', events: ['call.completed', 'lead.created'], description: 'walk' },
    })
    if (created.error) fail(`create: ${created.response.status} ${created.error.error.code}: ${created.error.error.message}`)
    const endpoint = created.data.data
    check(created.response.status === 201 && endpoint.object === 'webhook_endpoint' && endpoint.status === 'active', `create ${show(endpoint)}`)
    check(typeof endpoint.secret === 'string' && endpoint.secret.startsWith('whsec_'), 'the secret is shown on create')
    endpointId = endpoint.id

    const alias = await client.POST('/api/v1/external/webhooks', { body: { url: 'https://93.184.215.14/other', events: ['lead.created'] } })
    if (alias.error) fail(`alias: ${alias.error.error.code}: ${alias.error.error.message}`)
    const aliasDeleted = await client.DELETE('/api/v1/external/webhook_endpoints/{id}', { params: { path: { id: alias.data.data.id } } })
    if (aliasDeleted.error) fail(`alias delete: ${aliasDeleted.error.error.code}`)

    const refused = await client.POST('/api/v1/external/webhook_endpoints', { body: { url: 'http://127.0.0.1/hook', events: ['call.completed'] } })
    check(refused.error !== undefined, 'a loopback target was accepted')
    check(refused.error.error.code === 'invalid_request' && refused.error.error.reason === 'private_address', `loopback: ${show(refused.error)}`)

    const list = await client.GET('/api/v1/external/webhook_endpoints', { params: { query: { limit: 100 } } })
    if (list.error) fail(`list: ${list.error.error.code}`)
    check(list.data.data.some((e) => e.id === endpointId && e.secret === undefined), 'listed, without its secret')

    const one = await client.GET('/api/v1/external/webhook_endpoints/{id}', { params: { path: { id: endpointId } } })
    if (one.error) fail(`get: ${one.error.error.code}`)
    check(one.data.data.url === 'https://93.184.215.14/hook', `get ${show(one.data)}`)

    const updated = await client.PATCH('/api/v1/external/webhook_endpoints/{id}', { params: { path: { id: endpointId } }, body: { description: 'walk, renamed', events: ['call.completed'] } })
    if (updated.error) fail(`update: ${updated.error.error.code}: ${updated.error.error.message}`)
    check(updated.data.data.description === 'walk, renamed' && updated.data.data.events.length === 1, `update ${show(updated.data)}`)

    const sent = await client.POST('/api/v1/external/webhook_endpoints/{id}/test', { params: { path: { id: endpointId } } })
    if (sent.error) fail(`test: ${sent.error.error.code}`)
    check(sent.data.data.object === 'webhook_delivery' && sent.data.data.endpoint_id === endpointId, `test ${show(sent.data)}`)

    const deliveries = await client.GET('/api/v1/external/webhook_endpoints/{id}/deliveries', { params: { path: { id: endpointId }, query: { limit: 10 } } })
    if (deliveries.error) fail(`deliveries: ${deliveries.error.error.code}`)
    check(deliveries.data.data.some((d) => d.id === sent.data.data.id), `deliveries ${show(deliveries.data)}`)

    const resent = await client.POST('/api/v1/external/webhook_endpoints/{id}/deliveries/{delivery_id}/resend', {
      params: { path: { id: endpointId, delivery_id: sent.data.data.id } },
    })
    if (resent.error) fail(`resend: ${resent.error.error.code}`)
    check(resent.data.data.resent_from === sent.data.data.id && resent.data.data.event_id === sent.data.data.event_id, `resend ${show(resent.data)}`)

    const rolled = await client.POST('/api/v1/external/webhook_endpoints/{id}/roll_secret', { params: { path: { id: endpointId } }, body: { expire_old_after_hours: 1 } })
    if (rolled.error) fail(`roll_secret: ${rolled.error.error.code}`)
    check(rolled.data.data.secret !== undefined && rolled.data.data.secret !== endpoint.secret && rolled.data.data.previous_secret_expires_at !== null, `roll ${show(rolled.data)}`)

    const paused = await client.PATCH('/api/v1/external/webhook_endpoints/{id}', { params: { path: { id: endpointId } }, body: { status: 'paused' } })
    if (paused.error) fail(`pause: ${paused.error.error.code}`)
    const whilePaused = await client.POST('/api/v1/external/webhook_endpoints/{id}/test', { params: { path: { id: endpointId } } })
    check(whilePaused.error !== undefined && whilePaused.error.error.code === 'endpoint_paused', 'test while paused is endpoint_paused')
    const resumed = await client.POST('/api/v1/external/webhook_endpoints/{id}/resume', { params: { path: { id: endpointId } } })
    if (resumed.error) fail(`resume: ${resumed.error.error.code}`)
    check(resumed.data.data.status === 'active', 'resumed')

    const removed = await client.DELETE('/api/v1/external/webhook_endpoints/{id}', { params: { path: { id: endpointId } } })
    if (removed.error) fail(`delete: ${removed.error.error.code}`)
    const gone = await client.GET('/api/v1/external/webhook_endpoints/{id}', { params: { path: { id: endpointId } } })
    check(gone.error !== undefined && gone.error.error.code === 'not_found' && gone.response.status === 404, 'deleted endpoint is not_found')
  })

  await step('GET /usage (this month, by campaign)', async () => {
    const { data, error } = await client.GET('/api/v1/external/usage', { params: { query: { period: 'current', group_by: 'campaign' } } })
    if (error) fail(`${error.error.code}`)
    check(data.data.object === 'usage' && data.data.livemode && /^\d{4}-\d{2}$/.test(data.data.period), `usage ${show(data.data)}`)
    check(data.data.totals.requests >= 0 && data.data.totals.cost_usd >= 0, `totals ${show(data.data.totals)}`)
    const bad = await client.GET('/api/v1/external/usage', { params: { query: { period: '2026-13' } } })
    check(bad.error !== undefined && bad.error.error.code === 'invalid_request' && bad.response.status === 400, 'a bad period is invalid_request')
  })

  await step('POST /exports and GET /exports', async () => {
    const made = await client.POST('/api/v1/external/exports', { body: { exportType: 'leads', filters: { campaignId: CAMPAIGN } } })
    if (made.error) fail(`create: ${made.error.error.code}: ${made.error.error.message}`)
    const exported = made.data.data.export
    check(exported.exportType === 'leads' && ['pending', 'ready'].includes(exported.status), `export ${show(made.data)}`)
    check(made.data.data.downloadUrl.startsWith('http'), 'downloadUrl')
    const list = await client.GET('/api/v1/external/exports')
    if (list.error) fail(`list: ${list.error.error.code}`)
    check(list.data.data.some((e) => e.id === exported.id), `list ${show(list.data)}`)
  })

  await step('POST /leads/{id}/opt_out puts the number on the Do Not Call list', async () => {
    const { data, error } = await client.POST('/api/v1/external/leads/{id}/opt_out', { params: { path: { id: leadId } }, body: { reason: 'walk done' } })
    if (error) fail(`${error.error.code}`)
    check(data.data.status === 'out_of_queue' && typeof data.data.call_in_progress === 'boolean', `opt_out ${show(data.data)}`)
    const again = await client.POST('/api/v1/external/leads', { body: { campaign_id: CAMPAIGN, phone: leadPhone, external_id: `${externalId}-2` } })
    check(again.error !== undefined && again.error.error.code === 'on_dnc_list' && again.response.status === 422, 'an opted-out number is on_dnc_list')
  })

  await step('POST /campaigns/{id}/pause, then activate again', async () => {
    const paused = await client.POST('/api/v1/external/campaigns/{id}/pause', { params: { path: { id: CAMPAIGN } } })
    if (paused.error) fail(`pause: ${paused.error.error.code}`)
    check(paused.data.data.status === 'paused', `pause ${show(paused.data)}`)
    const active = await client.POST('/api/v1/external/campaigns/{id}/activate', { params: { path: { id: CAMPAIGN } } })
    if (active.error) {
      switch (active.error.error.code) {
        case 'campaign_not_ready':
        case 'campaign_closed':
          fail(`activate: ${active.error.error.code} (${active.error.error.reason ?? 'no reason'})`)
        default:
          fail(`activate: ${active.error.error.code}`)
      }
    }
    check(active.data.data.status === 'active', `activate ${show(active.data)}`)
  })
}

try {
  await main()
  console.log('walk: every step passed')
} catch (error) {
  const message = error instanceof StepFailed ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)
  console.error(`FAILED step "${currentStep}": ${message}`)
  process.exit(1)
}
