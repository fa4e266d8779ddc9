import { afterEach, describe, expect, test } from 'bun:test'
import { createHarness, seedWorld, type Harness } from '../harness'

/**
 * Organization and campaign rows are cached by id (read on every lead placed); the caches
 * follow writes and drop everything when a transaction rolls back, so a rolled-back change is
 * never served from memory.
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
})
