import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Organization and campaign rows are cached by id (read on every lead placed), and each
 * campaign's count of waiting API leads once read, and which campaigns retired no number; the caches follow writes and drop
 * everything when a transaction rolls back, so a rolled-back change is never served from memory.
 */
let h: Harness
afterEach(() => h.close())

describe('row caches', () => {
  test('an organization change is seen at once; a rolled-back one is not', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const orgs = h.services.stores.orgs
    const before = orgs.get(w.orgId)!
    expect(Object.isFrozen(before)).toBe(true)
    orgs.update(w.orgId, { timezone: 'America/Chicago' })
    expect(orgs.get(w.orgId)!.timezone).toBe('America/Chicago')
    expect(() =>
      h.services.stores.transaction(() => {
        orgs.update(w.orgId, { timezone: 'America/Denver' })
        expect(orgs.get(w.orgId)!.timezone).toBe('America/Denver')
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(orgs.get(w.orgId)!.timezone).toBe('America/Chicago')
  })

  test('a rolled-back campaign change is not served from the cache either', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const campaigns = h.services.stores.campaigns
    const name = campaigns.get(w.campaignId)!.name
    expect(() =>
      h.services.stores.transaction(() => {
        campaigns.update(w.campaignId, { name: 'Renamed' })
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(campaigns.get(w.campaignId)!.name).toBe(name)
  })

  test('the waiting-lead count follows intake, and a rolled-back lead is not counted', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const leads = h.services.stores.leads
    const stored = () =>
      (h.services.database.sqlite.query('SELECT api_waiting AS n FROM campaign_counters WHERE campaign_id = ? AND livemode = 1').get(w.campaignId) as { n: number }).n
    expect(leads.apiWaiting(w.campaignId, true)).toBe(0)
    const add = (phone: string) => h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone } })
    expect((await add('+12126230001')).status).toBe(201)
    expect((await add('+12126230002')).status).toBe(201)
    expect(leads.apiWaiting(w.campaignId, true)).toBe(2)
    expect(leads.apiWaiting(w.campaignId, false)).toBe(0)
    const row = leads.get((await h.api('GET', '/leads?limit=1', { key: w.live })).body.data[0].id)!
    expect(() =>
      h.services.stores.transaction(() => {
        leads.update(row, { status: 'out_of_queue', queueKey: null })
        expect(leads.apiWaiting(w.campaignId, true)).toBe(1)
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(stored()).toBe(2)
    expect(leads.apiWaiting(w.campaignId, true)).toBe(2)
    leads.update(row, { status: 'out_of_queue', queueKey: null })
    expect(leads.apiWaiting(w.campaignId, true)).toBe(1)
    expect(stored()).toBe(1)
  })

  test('a campaign known to retire no number sees a number retired after that, and not one rolled back', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const campaigns = h.services.stores.campaigns
    const add = (phone: string) => h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone } })
    expect((await add('+12126230011')).status).toBe(201)
    expect(campaigns.isRetired(w.campaignId, true, '+12126230012')).toBe(false)
    const retire = await h.admin('POST', `/campaigns/${w.campaignId}/retired_numbers`, { phone: '+12126230012', livemode: true })
    expect(retire.status, retire.text).toBe(201)
    const refused = await add('+12126230012')
    expect(refused.status).toBe(422)
    expect(refused.body.error.code).toBe('number_retired')
    expect(campaigns.isRetired(w.campaignId, false, '+12126230013')).toBe(false)
    expect(() =>
      h.services.stores.transaction(() => {
        campaigns.insertRetired({ id: crypto.randomUUID(), campaignId: w.campaignId, livemode: false, phone: '+12126230013', reason: 'test', created: 0 })
        expect(campaigns.isRetired(w.campaignId, false, '+12126230013')).toBe(true)
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(campaigns.isRetired(w.campaignId, false, '+12126230013')).toBe(false)
    expect(campaigns.isRetired(w.campaignId, true, '+12126230012')).toBe(true)
    // Un-retiring in a transaction that rolls back: "none retired" learnt inside it is forgotten.
    expect(() =>
      h.services.stores.transaction(() => {
        expect(campaigns.deleteRetired(w.campaignId, retire.body.data.id)).toBeDefined()
        expect(campaigns.isRetired(w.campaignId, true, '+12126230012')).toBe(false)
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(campaigns.isRetired(w.campaignId, true, '+12126230012')).toBe(true)
  })
})
