import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { openDatabase, migrate } from '../../src/db/client'
import { createStores } from '../../src/db/stores'
import { MAX_REJECTED_LINES, nationalRegistry, parseRegistry, RegistryParser } from '../../src/domain/dnc/national-registry'
import { RegistryIndex } from '../../src/domain/dnc/registry-index'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** The E.164 numbers a parsed file holds, sorted. */
function numbersOf(text: string): string[] {
  const parsed = parseRegistry(text)
  const out: string[] = []
  for (const [area, subs] of parsed.areas) for (const s of subs) out.push(`+1${area}${String(s).padStart(7, '0')}`)
  return out.sort()
}

const bytes = (text: string) => new TextEncoder().encode(text)

async function* chunksOf(text: string, size: number): AsyncGenerator<Uint8Array> {
  const all = bytes(text)
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size)
}

function freshRegistry() {
  const database = openDatabase(':memory:')
  migrate(database)
  const stores = createStores(database)
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 15, 0, 0))
  return { database, stores, clock, registry: nationalRegistry({ store: stores.registry, clock }) }
}

describe('parser: accepted lines', () => {
  const cases: [string, string, string[]][] = [
    ['10 digits (the FTC flat file)', '2015550123\n', ['+12015550123']],
    ['+1 and 1 prefixes', '+12015550124\n12015550125\n', ['+12015550124', '+12015550125']],
    ['area code, comma, 7 digits', '201,5550126\n', ['+12015550126']],
    ['CRLF, blank lines, spaces and tabs', '  2015550127 \r\n\r\n\t\n 2015550128\r\n', ['+12015550127', '+12015550128']],
    ['fields after the number', '2015550129,2024-01-01,A\n201,5550130,x y z\n', ['+12015550129', '+12015550130']],
    ['a trailing comma', '2015550131,\n', ['+12015550131']],
    ['punctuation inside the number', '(201) 555-0132\n201.555.0133\n+1 201 555 0134\n', ['+12015550132', '+12015550133', '+12015550134']],
    ['quotes', '"2015550135"\n', ['+12015550135']],
    ['no newline at the end', '2015550136', ['+12015550136']],
    ['a byte order mark', '\uFEFF2015550137\n', ['+12015550137']],
    ['555-01XX (test keys use them)', '4155550100\n', ['+14155550100']],
  ]
  for (const [name, text, expected] of cases) {
    test(name, () => {
      expect(numbersOf(text)).toEqual(expected)
      expect(parseRegistry(text).rejectedCount).toBe(0)
    })
  }

  test('duplicates count once', () => {
    const parsed = parseRegistry('2015550123\n+12015550123\n201,5550123\n2015550124\n')
    expect(parsed.total).toBe(2)
    expect(parsed.duplicates).toBe(2)
    expect(parsed.lines).toBe(4)
  })
})

describe('parser: bad lines are skipped and reported by number', () => {
  const bad: [string, string][] = [
    ['too short', '201555012'],
    ['too long', '201555012345'],
    ['letters', '20155501a3'],
    ['a header', 'phone_number'],
    ['area code starting with 1', '1015550123'],
    ['area code starting with 0', '0015550123'],
    ['exchange starting with 0 or 1', '2011550123'],
    ['country code other than 1', '+442015550123'],
    ['plus with 10 digits', '+2015550123'],
    ['area code with a short number', '201,555012'],
    ['just commas', ',,,'],
    ['area code alone', '201'],
    ['11 digits not starting with 1', '22015550123'],
  ]
  for (const [name, line] of bad) {
    test(name, () => {
      const parsed = parseRegistry(`2015550100\n${line}\n2015550101\n`)
      expect(parsed.rejected).toEqual([2])
      expect(parsed.rejectedCount).toBe(1)
      expect(parsed.total).toBe(2)
    })
  }

  test('blank lines are neither numbers nor rejected, but count as lines', () => {
    const parsed = parseRegistry('\n\n2015550100\n  \nxx\n')
    expect(parsed.rejected).toEqual([5])
    expect(parsed.lines).toBe(5)
  })

  test(`the list keeps the first ${MAX_REJECTED_LINES} line numbers; the count has them all`, () => {
    const parsed = parseRegistry('bad\n'.repeat(MAX_REJECTED_LINES + 5))
    expect(parsed.rejected).toHaveLength(MAX_REJECTED_LINES)
    expect(parsed.rejected[0]).toBe(1)
    expect(parsed.rejected.at(-1)).toBe(MAX_REJECTED_LINES)
    expect(parsed.rejectedCount).toBe(MAX_REJECTED_LINES + 5)
  })

  test('an area code whose buffer fills with repeats is compacted and keeps reading', () => {
    const parser = new RegistryParser({ areaCapacity: 9216 })
    // 3 rounds of the same 5,000 numbers: the buffer fills at 9,216 and drops its repeats.
    const round = Array.from({ length: 5000 }, (_, i) => `415${2_000_000 + i}\n`).join('')
    parser.push(bytes(round + round + round + '4159999999\n'))
    const parsed = parser.finish()
    expect(parsed.total).toBe(5001)
    expect(parsed.duplicates).toBe(10_000)
    expect(parsed.areas.get(415)![5000]).toBe(9_999_999)
  })

  test('push stops early after making a few buffers, and what it took plus the rest reads the same', () => {
    // 40 area codes of 1,100 numbers, interleaved: all 40 outgrow their first array together.
    const lines: string[] = []
    for (let i = 0; i < 1100; i++) for (let a = 0; a < 40; a++) lines.push(`${300 + a}${2_000_000 + i}\n`)
    const all = bytes(lines.join(''))
    const parser = new RegistryParser()
    const first = parser.push(all)
    expect(first).toBeLessThan(all.length)
    expect(all[first - 1]).toBe(10)
    let at = first
    while (at < all.length) at += parser.push(all.subarray(at))
    const parsed = parser.finish()
    expect(parsed.total).toBe(44_000)
    expect(parsed.areas.get(339)!.length).toBe(1100)
    expect(parseRegistry(all).total).toBe(44_000)
  })

  test('lines split anywhere across chunks read the same', () => {
    const text = '\uFEFF+12015550123\r\n201,5550124,extra\r\nbad line\r\n(201) 555-0125'
    const whole = parseRegistry(text)
    for (let at = 1; at < text.length; at++) {
      const parser = new RegistryParser()
      const all = bytes(text)
      parser.push(all.subarray(0, at))
      parser.push(all.subarray(at))
      const split = parser.finish()
      expect([...split.areas.get(201)!]).toEqual([...whole.areas.get(201)!])
      expect(split.rejected).toEqual(whole.rejected)
    }
  })
})

const nanpNumber = fc.tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), fc.integer({ min: 0, max: 9999 }))
  .map(([a, x, l]) => `${a}${x}${String(l).padStart(4, '0')}`)
const lineOf = fc.tuple(nanpNumber, fc.constantFrom('', '+1', '1', ' '), fc.constantFrom('\n', '\r\n'))

describe('property: isListed(x) iff x was imported', () => {
  test('over random files, the index answers exactly the good lines', () => {
    fc.assert(
      fc.property(fc.array(lineOf, { maxLength: 300 }), fc.array(nanpNumber, { maxLength: 50 }), (lines, probes) => {
        const text = lines.map(([n, prefix, end]) => `${prefix}${n}${end}`).join('')
        const parsed = parseRegistry(text)
        const index = new RegistryIndex(parsed.areas)
        const imported = new Set(lines.map(([n]) => `+1${n}`))
        expect(index.total).toBe(imported.size)
        for (const e164 of imported) expect(index.has(e164)).toBe(true)
        for (const probe of probes) expect(index.has(`+1${probe}`)).toBe(imported.has(`+1${probe}`))
      }),
      { numRuns: 200 },
    )
  })

  test('dense area codes (many numbers per bucket) answer the same', () => {
    const subs = Array.from({ length: 20_000 }, (_, i) => 2_000_000 + i * 3)
    const index = new RegistryIndex([[415, Uint32Array.from(subs)]])
    fc.assert(fc.property(fc.integer({ min: 2_000_000, max: 2_070_000 }), (s) => {
      expect(index.has(`+1415${s}`)).toBe(s % 3 === 2_000_000 % 3 && s < 2_000_000 + 20_000 * 3)
    }))
  })

  test('anything that is not +1 and 10 digits is not listed', () => {
    const index = new RegistryIndex(parseRegistry('2015550123\n').areas)
    for (const value of ['+12015550123 ', '2015550123', '+442015550123', '+1201555012', '', '+1201555012x']) expect(index.has(value)).toBe(false)
  })
})

describe('the service: import, store, boot load', () => {
  test('an import replaces the list, is stored, and a boot loads it again', async () => {
    const { database, registry, stores, clock } = freshRegistry()
    const first = await registry.import(chunksOf('2015550123\n2015550124\nbad\n', 7))
    expect(first).toMatchObject({ imported: 2, total: 2, lines: 3, rejected: [3], rejectedCount: 1, duplicates: 0 })
    expect(registry.isListed('+12015550123')).toBe(true)
    const second = await registry.import(chunksOf('3105550199\n', 3))
    expect(second.total).toBe(1)
    expect(registry.isListed('+12015550123')).toBe(false)
    expect(registry.isListed('+13105550199')).toBe(true)
    // A new process over the same database.
    const rebooted = nationalRegistry({ store: stores.registry, clock })
    rebooted.load()
    expect(rebooted.total).toBe(1)
    expect(rebooted.isListed('+13105550199')).toBe(true)
    expect(rebooted.summary().importedAt).toBe(clock.now())
    database.close()
  })

  test('a file without a good number is refused and changes nothing', async () => {
    const { database, registry } = freshRegistry()
    await registry.import(chunksOf('2015550123\n', 100))
    for (const text of ['', 'nothing here\n', '\n\n']) {
      await expect(registry.import(chunksOf(text, 100))).rejects.toMatchObject({ code: 'invalid_request', param: 'body' })
    }
    expect(registry.isListed('+12015550123')).toBe(true)
    database.close()
  })

  test('a body that fails half way leaves the old list in place', async () => {
    const { database, registry } = freshRegistry()
    await registry.import(chunksOf('2015550123\n', 100))
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield bytes('3105550199\n')
      throw new Error('connection reset')
    }
    await expect(registry.import(broken())).rejects.toThrow('connection reset')
    expect(registry.isListed('+12015550123')).toBe(true)
    expect(registry.isListed('+13105550199')).toBe(false)
    database.close()
  })

  test('one import at a time: a second is 429 while the first runs', async () => {
    const { database, registry } = freshRegistry()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield bytes('2015550123\n')
      await gate
    }
    const first = registry.import(slow())
    await Promise.resolve()
    await expect(registry.import(chunksOf('2015550124\n', 100))).rejects.toMatchObject({ code: 'rate_limited' })
    release()
    expect((await first).total).toBe(1)
    database.close()
  })
})
