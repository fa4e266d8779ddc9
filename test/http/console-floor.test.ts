import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Seat } from '../../src/domain/seats/seat-shape'
import type { SeatBoard } from '../../src/domain/seats/contract'
import { ApiError } from '../../src/errors'
import { createHarness, seedWorld, type Harness, type World } from '../harness'

setDefaultTimeout(60_000)

/**
 * The console's seat, abandonment, floor and supervise routes through the whole handler. Calls,
 * callbacks and people's figures come from real simulator calls on the fake clock; the seats,
 * the abandonment report and supervising are in-test doubles of their contracts
 * (src/domain/seats/contract.ts, src/console/floor-routes.ts), set on the services.
 */

let h: Harness
let w: World
interface Session { cookie: string; csrf: string }
let owner: Session
let sdr: Session
const PASSWORD = 'floor password 12345'
const supervised: { callId: string; mode: string; phone: string }[] = []
const seats: Seat[] = []
let callId = ''

async function call(method: string, path: string, session: Session, body?: unknown) {
  const headers: Record<string, string> = { cookie: session.cookie }
  if (method !== 'GET') headers['x-csrf-token'] = session.csrf
  if (body !== undefined) headers['content-type'] = 'application/json'
  const r = await h.app.handle(new Request(`http://127.0.0.1/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any }
}

async function signIn(email: string): Promise<Session> {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) }))
  const json = (await r.json()) as any
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: json.data.csrf_token }
}

const seatOf = (campaignId: string, name: string, phone: string): Seat => {
  const at = new Date(h.services.clock.now()).toISOString()
  return {
    id: crypto.randomUUID(), object: 'seat', campaign_id: campaignId, person: { id: 'sdr_1', name, role: 'sdr' }, phone, state: 'calling',
    lead_call_id: null, ended_reason: null, seated_at: null, ended_at: null, created: at, updated: at,
  }
}

/** The SeatBoard contract kept in memory: create finds the person by phone among the campaign's people. */
const seatDouble: Pick<SeatBoard, 'create' | 'list' | 'live' | 'end'> = {
  create(campaignId, body) {
    const campaign = h.services.stores.campaigns.get(campaignId)!
    const person = [...campaign.sdrs, ...campaign.closers].find((p) => p.phone === body.phone)
    if (!person) throw new ApiError('invalid_request', 'Not a person of the campaign.', { param: 'phone' })
    const seat = seatOf(campaignId, person.name, body.phone)
    seats.unshift(seat)
    return seat
  },
  list: (campaignId) => seats.filter((s) => s.campaign_id === campaignId),
  live: (orgId) => seats.filter((s) => s.state !== 'ended' && h.services.stores.campaigns.get(s.campaign_id)?.orgId === orgId),
  end(campaignId, seatId) {
    const seat = seats.find((s) => s.id === seatId && s.campaign_id === campaignId)
    if (!seat) throw new ApiError('not_found', 'No such seat')
    seat.state = 'ended'
    seat.ended_reason = 'deleted'
    return seat
  },
}

beforeAll(async () => {
  h = createHarness({ autoDial: true })
  w = await seedWorld(h)
  await h.admin('PATCH', `/campaigns/${w.campaignId}`, { sdrs: [{ name: 'Alex Rivera', phone: '+12125550111' }] })
  for (const [email, role] of [['owner@floor.example', 'owner'], ['sdr@floor.example', 'sdr']] as const) {
    expect((await h.admin('POST', `/orgs/${w.orgId}/users`, { email, password: PASSWORD, role })).status).toBe(201)
  }
  owner = await signIn('owner@floor.example')
  sdr = await signIn('sdr@floor.example')
  const services = h.services as unknown as Record<string, unknown>
  services.seats = seatDouble
  services.abandonment = { report: (campaignId: string) => (campaignId === w.campaignId ? { answered_by_person: 100, abandoned: 5, rate: 0.05 } : { answered_by_person: 50, abandoned: 1, rate: 0.02 }) }
  services.supervision = {
    supervise(id: string, body: { mode: string; phone: string }) {
      if (!seats.some((s) => s.lead_call_id === id)) throw new ApiError('not_found', 'The call is not live in a seat’s conference.')
      supervised.push({ callId: id, ...body })
    },
  }
})
afterAll(() => h.close())

describe('console floor view', () => {
  test('a live call shows with its lead, then the person who took it, then their figures for today', async () => {
    const lead = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553100', name: 'Bea Floor' } })
    expect(lead.status).toBe(201)
    await h.advance(1)
    let floor = (await call('GET', `/orgs/${w.orgId}/floor`, sdr)).body.data
    expect(floor.calls).toHaveLength(1)
    callId = floor.calls[0].id
    expect(floor.calls[0]).toMatchObject({ lead_name: 'Bea Floor', campaign_name: 'Spring roofs', person_name: null, seat_id: null })
    // Scenario 00: the SDR takes the call at 35 s.
    await h.advance(40)
    floor = (await call('GET', `/orgs/${w.orgId}/floor`, sdr)).body.data
    expect(floor.calls[0]).toMatchObject({ id: callId, status: 'in_progress', person_name: 'Alex Rivera' })
    expect(floor.people).toEqual([{ id: expect.any(String), name: 'Alex Rivera', role: 'sdr', calls_taken: 1, talk_seconds: 0, handover_seconds: 10 }])
    await h.advance(60)
    floor = (await call('GET', `/orgs/${w.orgId}/floor`, sdr)).body.data
    expect(floor.calls).toEqual([])
    expect(floor.people[0]).toMatchObject({ calls_taken: 1, talk_seconds: 89 })
  })

  test("a callback booked for today is listed; one of another organization's is not", async () => {
    // Scenario 14: nobody takes the call; it is filed as a callback 2 hours after it ended.
    await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553114', name: 'Cal Back' } })
    await h.api('POST', '/leads', { key: w.otherLive, body: { campaign_id: w.otherCampaignId, phone: '+12125553214', name: 'Other Back' } })
    await h.advance(60)
    const floor = (await call('GET', `/orgs/${w.orgId}/floor`, owner)).body.data
    expect(floor.callbacks.map((c: any) => c.lead_name)).toEqual(['Cal Back'])
    expect(Date.parse(floor.callbacks[0].callback_at)).toBeGreaterThan(h.services.clock.now())
  })

  test('the floor streams as server-sent events named floor', async () => {
    const r = await h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${w.orgId}/floor/stream`, { headers: { cookie: sdr.cookie } }))
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/event-stream')
    const reader = r.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(first.startsWith('event: floor\ndata: ')).toBe(true)
    expect(JSON.parse(first.slice('event: floor\ndata: '.length)).data).toHaveProperty('people')
  })
})

describe('console seats and abandonment', () => {
  test('an owner seats a person of the campaign, sees the seat on the floor and ends it', async () => {
    const added = await call('POST', `/orgs/${w.orgId}/campaigns/${w.campaignId}/seats`, owner, { name: 'Alex Rivera', phone: '+12125550111' })
    expect(added.status).toBe(201)
    expect(added.body.data).toMatchObject({ object: 'seat', state: 'calling', person: { name: 'Alex Rivera' } })
    const list = await call('GET', `/orgs/${w.orgId}/campaigns/${w.campaignId}/seats`, owner)
    expect(list.body.data.map((s: any) => s.id)).toEqual([added.body.data.id])
    const floor = (await call('GET', `/orgs/${w.orgId}/floor`, sdr)).body.data
    expect(floor.seats).toEqual([expect.objectContaining({ id: added.body.data.id, person_name: 'Alex Rivera', state: 'calling', campaign_name: 'Spring roofs' })])
    const ended = await call('DELETE', `/orgs/${w.orgId}/campaigns/${w.campaignId}/seats/${added.body.data.id}`, owner)
    expect(ended.body.data).toMatchObject({ state: 'ended', ended_reason: 'deleted' })
    expect((await call('GET', `/orgs/${w.orgId}/floor`, sdr)).body.data.seats).toEqual([])
  })

  test("a phone not of the campaign's people is 400 on phone; another organization's campaign is 404; an SDR is 403", async () => {
    const bad = await call('POST', `/orgs/${w.orgId}/campaigns/${w.campaignId}/seats`, owner, { name: 'Nobody', phone: '+12125550999' })
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'invalid_request', 'phone'])
    const other = await call('GET', `/orgs/${w.orgId}/campaigns/${w.otherCampaignId}/seats`, owner)
    expect([other.status, other.body.error.code]).toEqual([404, 'not_found'])
    const refused = await call('POST', `/orgs/${w.orgId}/campaigns/${w.campaignId}/seats`, sdr, { name: 'Alex Rivera', phone: '+12125550111' })
    expect([refused.status, refused.body.error.missing_permission]).toEqual([403, 'campaigns:write'])
    const extra = await call('POST', `/orgs/${w.orgId}/campaigns/${w.campaignId}/seats`, owner, { name: 'Alex Rivera', phone: '+12125550111', role: 'x' })
    expect(extra.status).toBe(400)
  })

  test('each campaign has its 30-day rate, with a warning above 3 %', async () => {
    const r = await call('GET', `/orgs/${w.orgId}/abandonment`, sdr)
    expect(r.status).toBe(200)
    expect(r.body.days).toBe(30)
    const byId = Object.fromEntries(r.body.data.map((row: any) => [row.campaign_id, row]))
    expect(byId[w.campaignId]).toEqual({ campaign_id: w.campaignId, answered_by_person: 100, abandoned: 5, rate: 0.05, max_abandon_rate: 0.03, warning: true })
    expect(byId[w.draftCampaignId]).toMatchObject({ rate: 0.02, warning: false })
    expect(byId[w.otherCampaignId]).toBeUndefined()
  })
})

describe('console supervise', () => {
  test('an owner listens to a live call in a seat; an SDR is refused; a call not live with a seat is 404 and nothing is asked', async () => {
    await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553130', name: 'Sue Pervise' } })
    await h.advance(1)
    const live = (await call('GET', `/orgs/${w.orgId}/floor`, owner)).body.data.calls[0]
    const notSeated = await call('POST', `/orgs/${w.orgId}/calls/${live.id}/supervise`, owner, { mode: 'listen', phone: '+12125550150' })
    expect([notSeated.status, notSeated.body.error.code]).toEqual([404, 'not_found'])
    const seat = seatOf(w.campaignId, 'Alex Rivera', '+12125550111')
    seats.unshift({ ...seat, state: 'on_call', lead_call_id: live.id })
    const floor = (await call('GET', `/orgs/${w.orgId}/floor`, owner)).body.data
    expect(floor.calls[0]).toMatchObject({ id: live.id, seat_id: seat.id, person_name: 'Alex Rivera' })
    expect(floor.seats[0]).toMatchObject({ state: 'on_call', lead_name: 'Sue Pervise' })
    const refused = await call('POST', `/orgs/${w.orgId}/calls/${live.id}/supervise`, sdr, { mode: 'barge', phone: '+12125550150' })
    expect([refused.status, refused.body.error.missing_permission]).toEqual([403, 'campaigns:write'])
    const badMode = await call('POST', `/orgs/${w.orgId}/calls/${live.id}/supervise`, owner, { mode: 'shout', phone: '+12125550150' })
    expect(badMode.status).toBe(400)
    const ok = await call('POST', `/orgs/${w.orgId}/calls/${live.id}/supervise`, owner, { mode: 'whisper', phone: '+12125550150' })
    expect(ok.status).toBe(200)
    expect(ok.body.data).toEqual({ call_id: live.id, mode: 'whisper', phone: '+12125550150' })
    const unknown = await call('POST', `/orgs/${w.orgId}/calls/${crypto.randomUUID()}/supervise`, owner, { mode: 'listen', phone: '+12125550150' })
    expect(unknown.status).toBe(404)
    expect(supervised).toEqual([{ callId: live.id, mode: 'whisper', phone: '+12125550150' }])
  })
})
