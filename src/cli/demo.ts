import { callingRules } from '../domain/calling-rules'
import type { Services } from '../services'

const DEMO_ORG = 'Demo organization'

/**
 * Numbers the README's walk-through may call, east to west, one zone each (Canada's Atlantic
 * zones open no earlier than New York under CRTC hours). All end in 09: with the simulated
 * carrier the person answers and hangs up.
 */
export const DEMO_PHONES: readonly { phone: string; place: string }[] = [
  { phone: '+12125552009', place: 'New York' },
  { phone: '+13125552009', place: 'Chicago' },
  { phone: '+13035552009', place: 'Denver' },
  { phone: '+12135552009', place: 'Los Angeles' },
  { phone: '+19075552009', place: 'Anchorage' },
  { phone: '+18085552009', place: 'Honolulu' },
]

/** Long enough for the walk-through to reach its call before the zone closes. */
const MARGIN_MS = 30 * 60_000

export interface DemoPhone {
  phone: string
  place: string
  zones: readonly string[]
  allowedNow: boolean
  /** When the calling rules first allow a call to it (null: not within their 14-day horizon). */
  allowedAt: number | null
}

/**
 * The walk-through's number: the first of DEMO_PHONES the calling rules allow now and for the
 * next half hour (else now), on the service clock; when none is allowed (about 07:00-13:00 UTC
 * no US or Canadian zone is), the one allowed first. The rules are asked, never skipped.
 */
export function pickDemoPhone(now: number, window: { start: string; end: string }, orgTimezone: string): DemoPhone {
  const verdicts = DEMO_PHONES.map((candidate) => {
    const reach = callingRules.reachOf(candidate.phone, null, orgTimezone)
    const at = (instant: number) => callingRules.evaluate({ reach, campaignWindow: window, callTimes: [], now: instant })
    const verdict = at(now)
    return { ...candidate, zones: reach.zones, allowedNow: verdict.allowed, allowedAt: verdict.nextAllowedAt, lasting: verdict.allowed && at(now + MARGIN_MS).allowed }
  })
  const chosen =
    verdicts.find((v) => v.lasting) ??
    verdicts.find((v) => v.allowedNow) ??
    [...verdicts].sort((a, b) => (a.allowedAt ?? Infinity) - (b.allowedAt ?? Infinity))[0]!
  const { lasting: _, ...phone } = chosen
  return phone
}

export interface DemoKeys {
  orgId: string
  campaignId: string
  live: { id: string; secret: string }
  test: { id: string; secret: string }
  created: boolean
  phone: DemoPhone
}

/**
 * `serve --demo`: on an empty database, a demo organization with an active campaign (one SDR,
 * one closer); on every run a fresh live and test key, since secrets are never stored, and
 * the walk-through's number for this hour.
 */
export function seedDemo(s: Services): DemoKeys {
  const existing = s.orgs.list(100).find((o) => o.name === DEMO_ORG)
  let orgId: string
  let campaignId: string
  let created = false
  if (existing) {
    orgId = existing.id
    campaignId = s.campaigns.listForOrg(orgId, 1)[0]?.id ?? ''
  } else {
    created = true
    orgId = s.orgs.create({ name: DEMO_ORG, outcome_labels: { 'Hot lead': 'interested', 'Call back later': 'callback' } }).id
    campaignId = s.campaigns.create(orgId, {
      name: 'Demo campaign',
      status: 'active',
      lines: 2,
      sdrs: [{ name: 'Alex Rivera' }],
      closers: [{ name: 'Sam Chen' }],
    }).id
  }
  const live = s.keys.create(orgId, { name: 'Demo live key', mode: 'live' })
  const test = s.keys.create(orgId, { name: 'Demo test key', mode: 'test' })
  const campaign = campaignId ? s.campaigns.getAny(campaignId) : null
  const window = campaign ? { start: campaign.callingHoursStart, end: campaign.callingHoursEnd } : { start: '08:00', end: '21:00' }
  return {
    orgId,
    campaignId,
    live: { id: live.key.id, secret: live.secret },
    test: { id: test.key.id, secret: test.secret },
    created,
    phone: pickDemoPhone(s.clock.now(), window, s.orgs.get(orgId).timezone),
  }
}

const utcTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** The banner lines `serve --demo` prints after "listening on": ids, keys, the console, the walk-through's number, curl lines. */
export function demoBanner(demo: DemoKeys, base: string): string[] {
  const { phone } = demo
  const when =
    phone.allowedNow
      ? 'in calling hours now: its call starts at once'
      : phone.allowedAt === null
        ? 'no zone is in calling hours within 14 days'
        : `no US or Canadian zone is in calling hours now; its call waits until ${utcTime(phone.allowedAt)}`
  // From the source tree (`bun run demo`) the CLI is `bun run src/main.ts`; compiled, it is the binary.
  const cli = Bun.main.endsWith('.ts') ? 'bun run src/main.ts' : 'dialer'
  return [
    demo.created ? 'Demo organization created.' : 'Demo organization found; new demo keys minted.',
    `  Organization: ${demo.orgId}`,
    `  Campaign:     ${demo.campaignId} (active)`,
    `  Live key:     ${demo.live.id}`,
    `  Live secret:  ${demo.live.secret}`,
    `  Test key:     ${demo.test.id}`,
    `  Test secret:  ${demo.test.secret}`,
    `  Phone:        ${phone.phone} (${phone.place}, ${phone.zones.join(' and ')}; ${when})`,
    '',
    `Console: ${base}/console`,
    `  Sign in with the admin token (printed once, on stderr, on the first start; \`${cli} admin-token reset\` makes a new one),`,
    '  or as an owner of the demo organization (the reply shows the password once):',
    `  DIALER_ADMIN_TOKEN=... ${cli} admin user create --url ${base} --org ${demo.orgId} --email you@example.com --role owner`,
    '',
    'Try it:',
    `  curl -u ${demo.live.id}:${demo.live.secret} ${base}/api/v1/external/campaigns`,
    `  curl -u ${demo.test.id}:${demo.test.secret} "${base}/api/v1/external/dnc/check?phone=%2B14155550123"`,
  ]
}
