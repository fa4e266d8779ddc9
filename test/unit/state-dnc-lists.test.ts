import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { migrate, openDatabase } from '../../src/db/client'
import { createStores } from '../../src/db/stores'
import type { ApiError } from '../../src/errors'
import { nationalRegistry } from '../../src/domain/dnc/national-registry'
import { registryBlocks } from '../../src/domain/dnc/registry-blocks'
import { RegistryIndex } from '../../src/domain/dnc/registry-index'
import { registryListOf, STATE_DNC_LISTS, stateDncRule, StateLists } from '../../src/domain/dnc/state-registries'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** State Do Not Call lists (docs/dnc-registry.md, "State lists"): per-list import and replace, lookup by the lead's states. */

const NOW = Date.UTC(2026, 0, 5, 15, 0, 0)

async function* once(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text)
}

function fresh() {
  const database = openDatabase(':memory:')
  migrate(database)
  const stores = createStores(database)
  const clock = new FakeClock(NOW)
  return { database, stores, clock, registry: nationalRegistry({ store: stores.registry, clock }) }
}

const lines = (count: number, area: string) => Array.from({ length: count }, (_, i) => `${area}${String(2_000_000 + i)}\n`).join('')
const TX = () => ['TX'] as const
const NY = () => ['NY'] as const

describe('registryListOf: which lists exist', () => {
  test('absent, empty or "national" (any case) is the national registry', () => {
    for (const value of [undefined, '', 'national', 'NATIONAL']) expect(registryListOf(value)).toBe('national')
  })

  test('every state with its own list, in either case; the table has a source for each', () => {
    expect(STATE_DNC_LISTS.map((l) => l.state).sort()).toEqual(['CO', 'FL', 'IN', 'LA', 'MA', 'MO', 'MS', 'OK', 'PA', 'TN', 'TX', 'WY'])
    for (const { state, source } of STATE_DNC_LISTS) {
      expect(registryListOf(state)).toBe(state)
      expect(registryListOf(state.toLowerCase())).toBe(state)
      expect(source.length).toBeGreaterThan(10)
    }
  })

  test('a state without a list, an unknown code or a name is 400 invalid_request on param list', () => {
    for (const value of ['CA', 'NY', 'XX', 'Texas', 'TX,FL', ' TX']) {
      let error: ApiError | null = null
      try {
        registryListOf(value)
      } catch (e) {
        error = e as ApiError
      }
      expect([error?.code, error?.status, error?.param]).toEqual(['invalid_request', 400, 'list'])
      expect(error?.message).toContain('TX')
    }
  })
})

describe('StateLists.listing: by the lead states', () => {
  const lists = new StateLists()
  lists.set('TX', new RegistryIndex([[512, new Uint32Array([5550100])], [212, new Uint32Array([4152671])]]), NOW)
  lists.set('FL', new RegistryIndex([[212, new Uint32Array([4152671])]]), NOW)

  test('a number on a state list binds a lead in that state only', () => {
    expect(lists.listing('+15125550100', TX)).toEqual(['TX'])
    expect(lists.listing('+15125550100', NY)).toEqual([])
    expect(lists.listing('+15125550101', TX)).toEqual([])
  })

  test('a number on two lists: each state of the lead whose list holds it, sorted', () => {
    expect(lists.listing('+12124152671', () => ['TX', 'NY', 'FL'])).toEqual(['FL', 'TX'])
    expect(lists.listing('+12124152671', () => ['FL'])).toEqual(['FL'])
  })

  test("the lead's states are read only when some list holds the number", () => {
    let asked = 0
    const statesOf = () => {
      asked++
      return ['TX']
    }
    lists.listing('+13105550100', statesOf)
    lists.listing('not a number', statesOf)
    expect(asked).toBe(0)
    lists.listing('+15125550100', statesOf)
    expect(asked).toBe(1)
  })

  test('registryBlocks: the national registry first, then each state list; consent lifts all', () => {
    const registry = { isListed: (e164: string) => e164 === '+12124152671', stateListing: lists.listing.bind(lists) }
    expect(registryBlocks(registry, { phone: '+12124152671', consent: null }, () => ['TX'])).toEqual([
      { rule_id: 'national-dnc-registry', reason: 'national_registry' },
      { rule_id: 'TX-dnc', reason: 'state_registry' },
    ])
    expect(registryBlocks(registry, { phone: '+15125550100', consent: null }, TX)).toEqual([{ rule_id: stateDncRule('TX'), reason: 'state_registry' }])
    expect(registryBlocks(registry, { phone: '+15125550100', consent: { source: 'web' } }, TX)).toEqual([])
  })
})

describe('import with a list', () => {
  test('replaces that state only: the national list and other states stay, in memory and in SQLite', async () => {
    const { registry, stores } = fresh()
    expect((await registry.import(once('2125550147\n'))).list).toBe('national')
    const tx = await registry.import(once('5125550100\n2145550100\n2125550199\n'), { list: 'tx' })
    expect(tx).toMatchObject({ list: 'TX', imported: 3, total: 3 })
    expect((await registry.import(once('3055550100\n'), { list: 'FL' })).total).toBe(1)
    expect(registry.isListed('+12125550147')).toBe(true)
    expect(registry.isListed('+15125550100')).toBe(false)
    expect(registry.stateListing('+15125550100', TX)).toEqual(['TX'])

    // A second TX import replaces the TX list only.
    await registry.import(once('5125550200\n'), { list: 'TX' })
    expect(registry.stateListing('+15125550100', TX)).toEqual([])
    expect(registry.stateListing('+15125550200', TX)).toEqual(['TX'])
    expect(registry.stateListing('+13055550100', () => ['FL'])).toEqual(['FL'])
    expect(registry.total).toBe(1)

    const summary = registry.summary()
    expect([summary.total, summary.importedAt]).toEqual([1, NOW])
    expect(summary.states.find((s) => s.state === 'TX')).toEqual({ state: 'TX', total: 1, importedAt: NOW })
    expect(summary.states.find((s) => s.state === 'CO')).toEqual({ state: 'CO', total: 0, importedAt: null })
    expect(summary.states).toHaveLength(STATE_DNC_LISTS.length)
    expect(stores.registry.lastImport()?.total).toBe(1)
    expect(stores.registry.lastImport('TX')?.total).toBe(1)
    expect(stores.registry.lastImports().map((r) => r.list).sort()).toEqual(['FL', 'TX', 'national'])
  })

  test('boot loads every state list back beside the national one', async () => {
    const { registry, stores, clock } = fresh()
    await registry.import(once('5125550100\n2125550199\n'), { list: 'TX' })
    await registry.import(once('2125550147\n'))
    const again = nationalRegistry({ store: stores.registry, clock })
    again.load()
    expect(again.stateListing('+12125550199', TX)).toEqual(['TX'])
    expect(again.stateListing('+12125550147', TX)).toEqual([])
    expect(again.isListed('+12125550147')).toBe(true)
    expect(again.summary().states.find((s) => s.state === 'TX')).toEqual({ state: 'TX', total: 2, importedAt: NOW })
  })

  test('the shrink guard judges each list against its own size', async () => {
    const { registry } = fresh()
    await registry.import(once(lines(1500, '512')), { list: 'TX' })
    // The national list is empty: a 5-number national file goes through.
    expect((await registry.import(once(lines(5, '212')))).total).toBe(5)
    const refused = await registry.import(once(lines(5, '214')), { list: 'TX' }).then(() => null, (e: unknown) => e as ApiError)
    expect(refused?.code).toBe('registry_shrink')
    expect(refused?.message).toContain('TX list')
    expect(registry.summary().states.find((s) => s.state === 'TX')?.total).toBe(1500)
    expect((await registry.import(once(lines(5, '214')), { list: 'TX', force: true })).total).toBe(5)
  })

  test('an unknown list is refused before the file is read; an empty file changes nothing', async () => {
    const { registry } = fresh()
    let read = false
    async function* body(): AsyncGenerator<Uint8Array> {
      read = true
      yield new TextEncoder().encode('5125550100\n')
    }
    const unknown = await registry.import(body(), { list: 'CA' }).then(() => null, (e: unknown) => e as ApiError)
    expect([unknown?.code, unknown?.param, read]).toEqual(['invalid_request', 'list', false])
    const empty = await registry.import(once(''), { list: 'TX' }).then(() => null, (e: unknown) => e as ApiError)
    expect([empty?.code, empty?.param]).toEqual(['invalid_request', 'body'])
    expect(empty?.message).toContain('TX list was not changed')
    expect(registry.summary().states.find((s) => s.state === 'TX')).toEqual({ state: 'TX', total: 0, importedAt: null })
  })
})
