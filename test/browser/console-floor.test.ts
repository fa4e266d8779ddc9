import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import type { SeatBoard } from '../../src/domain/seats/contract'
import type { Seat } from '../../src/domain/seats/seat-shape'
import { ApiError } from '../../src/errors'
import { createHarness, seedWorld, type Harness, type World } from '../harness'
import { axeFindings, signInAt } from './console-session'
import { launchChromium } from './launch'

setDefaultTimeout(60_000)

/**
 * The Campaigns page's seats and abandonment rate, and the Floor page, in Chromium. The service
 * runs in this process (served by Bun.serve) on the fake clock, so its simulator calls and
 * callbacks are real while the seats, the abandonment report and supervising are in-test doubles
 * of their contracts (src/domain/seats/contract.ts, src/console/floor-routes.ts). axe-core finds
 * nothing serious or critical on either page.
 */

const PASSWORD = 'floor browser 12345'
let h: Harness
let w: World
let server: ReturnType<typeof Bun.serve> | null = null
let browser: Browser | null = null
let base = ''
const seats: Seat[] = []
const supervised: { callId: string; mode: string; phone: string }[] = []

const seatBoard: Pick<SeatBoard, 'create' | 'list' | 'live' | 'end'> = {
  create(campaignId, body) {
    const campaign = h.services.stores.campaigns.get(campaignId)!
    const person = [...campaign.sdrs, ...campaign.closers].find((p) => p.phone === body.phone)
    if (!person) throw new ApiError('invalid_request', 'Not a person of the campaign.', { param: 'phone' })
    const at = new Date(h.services.clock.now()).toISOString()
    const seat: Seat = {
      id: crypto.randomUUID(), object: 'seat', campaign_id: campaignId, person: { id: person.id, name: person.name, role: 'sdr' }, phone: body.phone,
      state: 'calling', lead_call_id: null, ended_reason: null, seated_at: null, ended_at: null, created: at, updated: at,
    }
    seats.unshift(seat)
    return seat
  },
  list: (campaignId) => seats.filter((s) => s.campaign_id === campaignId),
  live: () => seats.filter((s) => s.state !== 'ended'),
  end(campaignId, seatId) {
    const seat = seats.find((s) => s.id === seatId && s.campaign_id === campaignId)
    if (!seat) throw new ApiError('not_found', 'No such seat')
    Object.assign(seat, { state: 'ended', ended_reason: 'deleted', lead_call_id: null })
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
  const services = h.services as unknown as Record<string, unknown>
  services.seats = seatBoard
  services.abandonment = { report: (id: string) => (id === w.campaignId ? { answered_by_person: 40, abandoned: 2, rate: 0.05 } : { answered_by_person: 0, abandoned: 0, rate: 0 }) }
  services.supervision = { supervise: (callId: string, body: { mode: string; phone: string }) => void supervised.push({ callId, ...body }) }
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => h.app.handle(request) })
  base = `http://127.0.0.1:${server.port}`
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.stop(true)
  h.close()
})

describe('console: seats and abandonment on the Campaigns page', () => {
  test('an owner sees the 30-day rate with its warning, seats a person of the campaign and ends the seat', async () => {
    const page = await browser!.newPage()
    await signInAt(page, base, { email: 'owner@floor.example', password: PASSWORD }, true)
    const row = page.locator(`tr[data-campaign="${w.campaignId}"]`)
    await row.getByText('5.0 % · above 3 %').waitFor()
    expect(await page.locator(`tr[data-campaign="${w.draftCampaignId}"]`).getByText('0.0 %').count()).toBe(1)
    await page.getByRole('button', { name: 'Seats of Spring roofs' }).click()
    const panel = page.getByRole('region', { name: 'Seats of Spring roofs' })
    await panel.getByText('No seats yet.').waitFor()
    await panel.getByLabel('Person to seat').selectOption({ label: 'Alex Rivera · (212) 555-0111' })
    await panel.getByRole('button', { name: 'Seat', exact: true }).click()
    await panel.getByText('Ringing their phone').waitFor()
    expect(seats.map((s) => [s.person.name, s.phone])).toEqual([['Alex Rivera', '+12125550111']])
    expect(await axeFindings(page)).toEqual([])
    await panel.getByRole('button', { name: "End Alex Rivera's seat" }).click()
    await panel.getByText('Ended').waitFor()
    expect(seats[0]!.state).toBe('ended')
    await page.close()
  })

  test('an SDR sees the rate but no seats', async () => {
    const page = await browser!.newPage()
    await signInAt(page, base, { email: 'sdr@floor.example', password: PASSWORD }, true)
    await page.locator(`tr[data-campaign="${w.campaignId}"]`).getByText('5.0 % · above 3 %').waitFor()
    expect(await page.getByRole('button', { name: 'Seats of Spring roofs' }).count()).toBe(0)
    await page.close()
  })
})

describe('console: the Floor page', () => {
  test('seats, live calls with their lead and person, supervising, callbacks and the day per person, kept live', async () => {
    const page = await browser!.newPage()
    await signInAt(page, base, { email: 'owner@floor.example', password: PASSWORD }, true)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Floor', exact: true }).click()
    await page.getByRole('heading', { name: 'Floor' }).waitFor()
    await page.getByText('Nobody is seated.').waitFor()
    // A live call (scenario 00) in a seat's conference: the page learns it from the stream, unreloaded.
    await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553100', name: 'Bea Floor' } })
    await h.advance(1)
    const callId = h.services.stores.floor.openCalls(w.orgId, 10)[0]!.id
    const seat = seatBoard.create(w.campaignId, { name: 'Alex Rivera', phone: '+12125550111' })
    Object.assign(seat, { state: 'on_call', lead_call_id: callId, seated_at: new Date(h.services.clock.now()).toISOString() })
    await page.locator(`tr[data-seat="${seat.id}"]`).getByText('On a call with Bea Floor').waitFor()
    const call = page.locator(`tr[data-call="${callId}"]`)
    await call.getByText('With Alex Rivera').waitFor()
    await page.getByRole('button', { name: 'Whisper: call with Bea Floor' }).click()
    await page.getByText('Enter your phone number first').waitFor()
    expect(supervised).toEqual([])
    await page.getByLabel('Your phone (listen, whisper, barge ring it)').fill('+12125550150')
    await page.getByRole('button', { name: 'Whisper: call with Bea Floor' }).click()
    await page.getByRole('status').getByText('Calling (212) 555-0150 to coach the person on the call with Bea Floor.').waitFor()
    expect(supervised).toEqual([{ callId, mode: 'whisper', phone: '+12125550150' }])
    expect(await axeFindings(page)).toEqual([])
    // Scenario 00 ends at 95 s (the SDR took it at 35 s); scenario 14 books a callback for today.
    Object.assign(seat, { state: 'waiting', lead_call_id: null })
    await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553114', name: 'Cal Back' } })
    await h.advance(100)
    await page.locator('tr[data-person="Alex Rivera"]').getByText('1:29').waitFor()
    expect(await page.locator('tr[data-person="Alex Rivera"] td').allTextContents()).toEqual(['1', '1:29', '10.0 s'])
    await page.getByRole('table', { name: 'Callbacks due today' }).getByRole('link', { name: 'Cal Back' }).waitFor()
    await page.locator(`tr[data-seat="${seat.id}"]`).getByText('Seated, waiting').waitFor()
    await page.getByText('No live calls.').waitFor()
    await page.close()
  })

  test('an SDR sees the floor without the supervise buttons', async () => {
    const seat = seatBoard.create(w.campaignId, { name: 'Alex Rivera', phone: '+12125550111' })
    await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553101', name: 'Dee Seated' } })
    await h.advance(1)
    Object.assign(seat, { state: 'on_call', lead_call_id: h.services.stores.floor.openCalls(w.orgId, 10)[0]!.id })
    const page = await browser!.newPage()
    await signInAt(page, base, { email: 'sdr@floor.example', password: PASSWORD }, true)
    await page.goto(`${base}/console/floor?org=${w.orgId}`)
    await page.getByText('With Alex Rivera').waitFor()
    expect(await page.getByRole('button', { name: /^(Listen|Whisper|Barge):/ }).count()).toBe(0)
    expect(await page.getByLabel('Your phone (listen, whisper, barge ring it)').count()).toBe(0)
    await page.close()
  })
})
