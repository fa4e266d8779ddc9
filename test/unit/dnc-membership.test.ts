import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { BloomFilter } from '../../src/db/bloom-filter'
import { migrate, openDatabase } from '../../src/db/client'
import { createStores } from '../../src/db/stores'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

describe('BloomFilter', () => {
  test('never says "absent" for a value that went in', () => {
    const filter = new BloomFilter(20_000)
    for (let i = 0; i < 20_000; i++) filter.add(`org|1|+1415${5000000 + i}`)
    for (let i = 0; i < 20_000; i++) expect(filter.mightContain(`org|1|+1415${5000000 + i}`)).toBe(true)
  })

  test('at capacity, about 1% of absent values are a false "maybe"', () => {
    const filter = new BloomFilter(20_000)
    for (let i = 0; i < 20_000; i++) filter.add(`org|1|+1415${5000000 + i}`)
    let maybes = 0
    for (let i = 0; i < 20_000; i++) if (filter.mightContain(`org|1|+1646${5000000 + i}`)) maybes++
    expect(maybes / 20_000).toBeLessThan(0.02)
  })

  test('says when more values went in than it was sized for', () => {
    const filter = new BloomFilter(10)
    for (let i = 0; i < 10; i++) filter.add(String(i))
    expect(filter.full).toBe(false)
    filter.add('one more')
    expect(filter.full).toBe(true)
  })
})

describe('Do Not Call store with its filter in front', () => {
  function setUp() {
    const database = openDatabase(':memory:')
    migrate(database)
    const stores = createStores(database)
    for (const id of ['org_a', 'org_b']) {
      stores.orgs.insert({
        id, name: id, timezone: 'UTC', rateUsdPerMinute: 0, planRequestsPerMinute: 120, recordingEnabled: true,
        webhookEndpointLimit: 5, outcomeLabels: {}, created: 0, updated: 0,
      })
    }
    let n = 0
    const add = (orgId: string, livemode: boolean, phone: string) =>
      stores.dnc.insert({ id: `dnc_${n++}`, orgId, livemode, phone, source: 'api', reason: null, created: 0 })
    return { database, stores, add }
  }

  test('answers exactly as the table, per organization and mode, across a rebuild past capacity', () => {
    const { database, stores, add } = setUp()
    const a = { orgId: 'org_a', livemode: true }
    // Rows already in the table when the filter is first built.
    add('org_a', true, '+14155550000')
    expect(stores.dnc.isListed(a, '+14155550000')).toBe(true)
    // 70,000 more: past the first filter's 65,536, so it is rebuilt from the table.
    database.transaction(() => {
      for (let i = 1; i <= 70_000; i++) add('org_a', true, `+1415${String(5550000 + i).padStart(7, '0')}`)
    })
    for (const i of [1, 35_000, 70_000]) expect(stores.dnc.isListed(a, `+1415${5550000 + i}`)).toBe(true)
    expect(stores.dnc.isListed(a, '+14165550001')).toBe(false)
    expect(stores.dnc.isListed({ orgId: 'org_b', livemode: true }, '+14155550001')).toBe(false)
    expect(stores.dnc.isListed({ orgId: 'org_a', livemode: false }, '+14155550001')).toBe(false)
    expect(stores.dnc.findByPhone(a, '+14155550001')?.id).toBe('dnc_1')
    database.close()
  })

  test('a deleted entry is not listed; a rolled-back insert is not listed', () => {
    const { database, stores, add } = setUp()
    const b = { orgId: 'org_b', livemode: false }
    const entry = add('org_b', false, '+14155550123')!
    expect(stores.dnc.isListed(b, '+14155550123')).toBe(true)
    stores.dnc.delete(b, entry.id)
    expect(stores.dnc.isListed(b, '+14155550123')).toBe(false)
    expect(() =>
      database.transaction(() => {
        add('org_b', false, '+14155550124')
        throw new Error('roll back')
      }),
    ).toThrow('roll back')
    expect(stores.dnc.isListed(b, '+14155550124')).toBe(false)
    database.close()
  })
})
