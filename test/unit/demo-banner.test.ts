import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { demoBanner, pickDemoPhone, type DemoKeys } from '../../src/cli/demo'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// `serve --demo` picks the walk-through's number by asking the calling rules at the service's
// "now" (here injected): a zone open now when there is one, else the one that opens first.
const window = { start: '08:00', end: '21:00' }
const at = (iso: string) => Date.parse(iso)

describe('pickDemoPhone', () => {
  test('New York in its daytime (a Tuesday, 10:10 in New York)', () => {
    const phone = pickDemoPhone(at('2026-01-13T15:10:00Z'), window, 'America/New_York')
    expect(phone).toMatchObject({ phone: '+12125552009', place: 'New York', zones: ['America/New_York'], allowedNow: true })
  })

  test('late evening in the east: the first zone open for the next half hour, further west', () => {
    // 20:45 in New York (closes at 21:00), 19:45 in Chicago.
    expect(pickDemoPhone(at('2026-01-14T01:45:00Z'), window, 'America/New_York')).toMatchObject({ place: 'Chicago', allowedNow: true })
    // 05:10 UTC: 21:10 in Los Angeles, 20:10 in Anchorage.
    expect(pickDemoPhone(at('2026-01-13T05:10:00Z'), window, 'America/New_York')).toMatchObject({ place: 'Anchorage', allowedNow: true })
  })

  test('when no US or Canadian zone is open (09:00 UTC), the one that opens first, and when', () => {
    const phone = pickDemoPhone(at('2026-01-13T09:00:00Z'), window, 'America/New_York')
    expect(phone).toMatchObject({ place: 'New York', allowedNow: false, allowedAt: at('2026-01-13T13:00:00Z') })
  })
})

describe('demoBanner', () => {
  const demo = (allowedNow: boolean): DemoKeys => ({
    orgId: 'org-1', campaignId: 'camp-1', created: true,
    live: { id: 'dk_live_a', secret: 'dks_a' }, test: { id: 'dk_test_b', secret: 'dks_b' },
    phone: { phone: '+12125552009', place: 'New York', zones: ['America/New_York'], allowedNow, allowedAt: at('2026-01-13T13:00:00Z') },
  })

  test('names the phone, the console and how to sign in', () => {
    const text = demoBanner(demo(true), 'http://127.0.0.1:8080').join('\n')
    expect(text).toContain('Phone:        +12125552009 (New York, America/New_York; in calling hours now: its call starts at once)')
    expect(text).toContain('Console: http://127.0.0.1:8080/console')
    expect(text).toContain('Sign in with the admin token')
    expect(text).toMatch(/admin user create --url http:\/\/127\.0\.0\.1:8080 --org org-1 --email \S+ --role owner/)
  })

  test('says when the call will wait, and until when', () => {
    expect(demoBanner(demo(false), 'http://127.0.0.1:8080').join('\n')).toContain(
      'no US or Canadian zone is in calling hours now; its call waits until 2026-01-13 13:00 UTC',
    )
  })
})
