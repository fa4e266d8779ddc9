import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { createHarness, scratchDir, seedWorld, type Harness, type Reply, type TestKey, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Dial queue order as GET /leads/{id} shows it (spec "What the service does", Lead
 * `place_in_line`, Campaign status moves; DESIGN.md "Pausing a campaign holds its queued
 * leads too; activating releases them in their old order", "SQLite is the truth, memory is
 * an index rebuilt on boot"). The clock starts Monday 2026-01-05 15:00 UTC (10:00 New York,
 * 07:00 San Francisco).
 */

let h: Harness
let w: World

const { addLeadId: addLead, getLeadReply: getLead } = apiHelpers(() => ({ h, w }))

/** A New York number (queued at 10:00 ET): +1 212 555 4000 + n. */
const ny = (n: number) => `+1212555${String(4000 + n).padStart(4, '0')}`


async function placesOf(ids: string[], key: TestKey = w.live): Promise<(number | null)[]> {
  const out: (number | null)[] = []
  for (const id of ids) {
    const r = await getLead(id, key)
    expect(r.status).toBe(200)
    out.push(r.body.data.place_in_line)
  }
  return out
}

/** Event types stored about a lead, oldest first. */
const eventTypes = (id: string) => h.services.stores.events.forObject(id).map((e) => e.type)

/** Adds leads one second apart (so created times differ); `true` marks call_now. */
async function addInOrder(callNow: boolean[], key: TestKey = w.live): Promise<string[]> {
  const ids: string[] = []
  for (const [i, now] of callNow.entries()) {
    ids.push(await addLead({ phone: ny(i + 1), ...(now ? { call_now: true } : {}) }, key))
    await h.advance(1)
  }
  return ids
}

const campaignAction = (action: 'pause' | 'activate', key: TestKey = w.live): Promise<Reply> =>
  h.api('POST', `/campaigns/${w.campaignId}/${action}`, { key })

describe('queue order', () => {
  beforeEach(async () => {
    h = createHarness()
    w = await seedWorld(h)
  })
  afterEach(() => h.close())

  test('call_now leads first, then the rest, each oldest first', async () => {
    // n1, c1, n2, c2, n3, c3 added in this order.
    const [n1, c1, n2, c2, n3, c3] = await addInOrder([false, true, false, true, false, true])
    const ordered = [c1!, c2!, c3!, n1!, n2!, n3!]
    expect(await placesOf(ordered)).toEqual([1, 2, 3, 4, 5, 6])
    const c1Lead = (await getLead(c1!)).body.data
    expect(c1Lead).toMatchObject({ status: 'queued', call_now: true })
  })

  test('the intake reply already gives the place in line', async () => {
    await addInOrder([false, false])
    const r = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: ny(9), call_now: true } })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ status: 'queued', call_now: true, place_in_line: 1 })
    const later = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: ny(10) } })
    expect(later.body.data).toMatchObject({ status: 'queued', call_now: false, place_in_line: 4 })
  })

  test('queues are per campaign and per mode', async () => {
    const second = (await h.admin('POST', `/orgs/${w.orgId}/campaigns`, {
      name: 'Summer roofs', status: 'active', sdrs: [{ name: 'Kim Park' }],
    })).body.data.id as string
    const a = await addLead({ phone: ny(1) })
    await h.advance(1)
    const b = await addLead({ campaign_id: second, phone: ny(2) })
    await h.advance(1)
    const t = await addLead({ phone: ny(3) }, w.test)
    expect(await placesOf([a, b])).toEqual([1, 1])
    expect(await placesOf([t], w.test)).toEqual([1])
  })

  test('pausing holds the queued leads (campaign_paused) and sends no events; activating releases them in their old order', async () => {
    const ids = await addInOrder([false, true, false, true, false])
    const [n1, c1, n2, c2, n3] = ids
    const ordered = [c1!, c2!, n1!, n2!, n3!]
    expect(await placesOf(ordered)).toEqual([1, 2, 3, 4, 5])
    const eventsBefore = ids.map(eventTypes)
    for (const types of eventsBefore) expect(types).toEqual(['lead.created', 'lead.queued'])

    const paused = await campaignAction('pause')
    expect(paused.status).toBe(200)
    expect(paused.body.data).toMatchObject({ id: w.campaignId, livemode: true })
    for (const id of ids) {
      const r = await getLead(id)
      expect(r.body.data).toMatchObject({
        status: 'held', held_reason: 'campaign_paused', place_in_line: null, estimated_wait_seconds: null,
        scheduled_for: null, scheduled_reason: null,
      })
    }
    expect(h.services.queues.size(w.campaignId, true)).toBe(0)
    expect(ids.map(eventTypes)).toEqual(eventsBefore)

    const activated = await campaignAction('activate')
    expect(activated.status).toBe(200)
    expect(await placesOf(ordered)).toEqual([1, 2, 3, 4, 5])
    for (const id of ids) {
      const r = await getLead(id)
      expect(r.body.data).toMatchObject({ status: 'queued', held_reason: null })
    }
    expect(ids.map(eventTypes)).toEqual(eventsBefore)
  })

  test('a lead added while paused is held, and queued behind the older leads after activation', async () => {
    const [a, b] = await addInOrder([false, false])
    expect((await campaignAction('pause')).status).toBe(200)
    const r = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: ny(7) } })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ status: 'held', held_reason: 'campaign_paused', place_in_line: null })
    const late = r.body.data.id as string
    await h.advance(1)
    const lateCallNow = await addLead({ phone: ny(8), call_now: true })
    expect((await campaignAction('activate')).status).toBe(200)
    expect(await placesOf([lateCallNow, a!, b!, late])).toEqual([1, 2, 3, 4])
  })

  test('a test key\u2019s pause changes nothing', async () => {
    const ids = await addInOrder([false, false])
    const r = await campaignAction('pause', w.test)
    expect(r.status).toBe(200)
    expect(r.body.data.livemode).toBe(false)
    expect(await placesOf(ids)).toEqual([1, 2])
  })

  test('a scheduled lead (+1 415 at 07:00 Pacific) becomes queued when the clock passes 16:00 UTC', async () => {
    const first = await addLead({ phone: ny(1) })
    await h.advance(1)
    const sf = await addLead({ phone: '+14155554321' })
    await h.advance(1)
    const third = await addLead({ phone: ny(3) })

    const before = (await getLead(sf)).body.data
    expect(before).toMatchObject({
      status: 'scheduled', scheduled_for: '2026-01-05T16:00:00.000Z', scheduled_reason: 'outside_calling_hours',
      place_in_line: null, estimated_wait_seconds: null,
    })
    expect(await placesOf([first, third])).toEqual([1, 2])

    // 15:59:59 UTC: still waiting.
    await h.advance(3597)
    expect((await getLead(sf)).body.data.status).toBe('scheduled')

    // 16:00:01 UTC: 08:00 in San Francisco has passed.
    await h.advance(2)
    const after = (await getLead(sf)).body.data
    expect(after).toMatchObject({ status: 'queued', scheduled_for: null, scheduled_reason: null, held_reason: null })
    // Oldest first among leads that are not call_now: it was added second.
    expect(after.place_in_line).toBe(2)
    expect(typeof after.estimated_wait_seconds).toBe('number')
    expect(await placesOf([first, sf, third])).toEqual([1, 2, 3])
  })

  test('a scheduled lead held by a pause keeps its wait and is queued when its time comes after activation', async () => {
    const sf = await addLead({ phone: '+14155554321' })
    expect((await campaignAction('pause')).status).toBe(200)
    expect((await getLead(sf)).body.data).toMatchObject({ status: 'held', held_reason: 'campaign_paused', scheduled_for: null })
    await h.advance(600)
    expect((await campaignAction('activate')).status).toBe(200)
    expect((await getLead(sf)).body.data).toMatchObject({
      status: 'scheduled', scheduled_for: '2026-01-05T16:00:00.000Z', scheduled_reason: 'outside_calling_hours',
    })
    await h.advance(3000)
    expect((await getLead(sf)).body.data).toMatchObject({ status: 'queued', place_in_line: 1 })
  })
})

describe('restart', () => {
  let dir: ReturnType<typeof scratchDir>
  /** Harnesses still open (closed in afterEach when a test stops early). */
  let open: Harness[] = []
  beforeEach(() => {
    dir = scratchDir('dialer-leads-queue-')
  })
  afterEach(() => {
    for (const harness of open) harness.close()
    open = []
    dir.remove()
  })

  test('every lead keeps its place in line across a restart on the same database file', async () => {
    const env = { DIALER_DATABASE: join(dir.path, 'dialer.db') }
    h = createHarness({ env })
    open.push(h)
    w = await seedWorld(h)
    const ids = await addInOrder([false, true, false, false, true, false, true])
    // Mix in a change to the order, a lead taken out, a scheduled lead and a test-mode queue.
    const patched = await h.api('PATCH', `/leads/${ids[1]}`, { key: w.live, body: { call_now: false } })
    expect(patched.status).toBe(200)
    expect((await h.api('POST', `/leads/${ids[2]}/opt_out`, { key: w.live })).status).toBe(200)
    const sf = await addLead({ phone: '+14155554321' })
    const testIds = [await addLead({ phone: ny(20) }, w.test), await addLead({ phone: ny(21), call_now: true }, w.test)]

    const liveBefore = await placesOf([...ids, sf])
    const testBefore = await placesOf(testIds, w.test)
    // c(4), c(6), then the rest oldest first: 0, 1 (no longer call_now), 3, 5; 2 is out; sf scheduled.
    expect(liveBefore).toEqual([3, 4, null, 5, 1, 6, 2, null])
    expect(testBefore).toEqual([2, 1])
    h.close()
    open = []

    h = createHarness({ env })
    open.push(h)
    expect(await placesOf([...ids, sf])).toEqual(liveBefore)
    expect(await placesOf(testIds, w.test)).toEqual(testBefore)
    expect(h.services.queues.size(w.campaignId, true)).toBe(6)
    // The scheduled lead still comes in at 16:00 UTC after the restart.
    await h.advance(3601)
    const sfLead = (await getLead(sf)).body.data
    expect(sfLead.status).toBe('queued')
    expect(sfLead.place_in_line).toBe(7)
  })
})
