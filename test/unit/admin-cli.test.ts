import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { buildAdminRequest, parseAdmin } from '../../src/cli/admin-cli'
import { usageErrorOf } from './cli-usage-error'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** The usage error (exit 2) a command line is refused with. */
const cliError = usageErrorOf

describe('buildAdminRequest: org', () => {
  test('org create: flags become snake_case JSON fields with numbers, booleans and JSON parsed', () => {
    expect(
      buildAdminRequest([
        'org', 'create',
        '--name', 'Acme Roofing',
        '--timezone', 'America/Chicago',
        '--rate-usd-per-minute', '0.15',
        '--plan-requests-per-minute', '600',
        '--recording-enabled', 'false',
        '--webhook-endpoint-limit=4',
        '--outcome-labels', '{"Hot lead":"interested"}',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/orgs',
      body: {
        name: 'Acme Roofing',
        timezone: 'America/Chicago',
        rate_usd_per_minute: 0.15,
        plan_requests_per_minute: 600,
        recording_enabled: false,
        webhook_endpoint_limit: 4,
        outcome_labels: { 'Hot lead': 'interested' },
      },
    })
  })

  test('--url and --token are for the connection, not the body', () => {
    const request = buildAdminRequest(['org', 'create', '--name', 'A', '--url', 'http://x:1', '--token', 't'])
    expect(request.body).toEqual({ name: 'A' })
  })

  test('org update puts the id in the path', () => {
    expect(buildAdminRequest(['org', 'update', 'org-1', '--recording-enabled', 'true'])).toEqual({
      method: 'PATCH',
      path: '/orgs/org-1',
      body: { recording_enabled: true },
    })
  })

  test('ids are URL-encoded in the path', () => {
    expect(buildAdminRequest(['org', 'get', 'a/b c']).path).toBe('/orgs/a%2Fb%20c')
  })

  test.each<[string[], string]>([
    [['--plan-requests-per-minute', 'lots'], 'plan-requests-per-minute'],
    [['--plan-requests-per-minute', '1.5'], 'plan-requests-per-minute'],
    [['--rate-usd-per-minute', 'abc'], 'rate-usd-per-minute'],
    [['--recording-enabled', 'yes'], 'recording-enabled'],
    [['--outcome-labels', '{not json'], 'outcome-labels'],
    [['--name'], 'name'],
  ])('bad value %p names the flag', (flags, flag) => {
    expect(cliError(['org', 'create', ...flags]).message).toContain(`--${flag}`)
  })
})

describe('buildAdminRequest: keys', () => {
  test('key create needs --org', () => {
    expect(cliError(['key', 'create', '--name', 'k', '--mode', 'live']).message).toContain('--org')
  })

  test('key create', () => {
    expect(
      buildAdminRequest([
        'key', 'create', '--org', 'org-1', '--name', 'Zapier', '--mode', 'test',
        '--permissions', 'leads:read, leads:write', '--campaign-ids', 'c1,c2',
        '--max-concurrent', '5', '--requests-per-minute', '240', '--burst', '40', '--leads-per-minute', '30',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/orgs/org-1/keys',
      body: {
        name: 'Zapier',
        mode: 'test',
        permissions: ['leads:read', 'leads:write'],
        campaign_ids: ['c1', 'c2'],
        max_concurrent: 5,
        requests_per_minute: 240,
        burst: 40,
        leads_per_minute: 30,
      },
    })
  })

  test('--campaign-ids null -> null (a key for every campaign)', () => {
    expect(buildAdminRequest(['key', 'update', 'dk_live_1', '--campaign-ids', 'null', '--disabled', 'true'])).toEqual({
      method: 'PATCH',
      path: '/keys/dk_live_1',
      body: { campaign_ids: null, disabled: true },
    })
  })

  test('--mode is not a key update field', () => {
    expect(cliError(['key', 'update', 'dk_live_1', '--mode', 'test']).message).toContain('--mode')
  })

  test('key revoke: POST with an empty body', () => {
    expect(buildAdminRequest(['key', 'revoke', 'dk_live_1'])).toEqual({ method: 'POST', path: '/keys/dk_live_1/revoke', body: {} })
  })
})

describe('buildAdminRequest: campaigns', () => {
  test('--sdrs "Ann,Bo" -> people objects; nullable spend cap', () => {
    expect(
      buildAdminRequest([
        'campaign', 'create', '--org', 'org-1', '--name', 'Spring', '--sdrs', 'Ann,Bo', '--closers', 'Cy',
        '--lines', '3', '--requires-consent', 'true', '--spend-cap-usd', 'null',
        '--calling-hours', '{"start":"09:00","end":"20:00"}',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/orgs/org-1/campaigns',
      body: {
        name: 'Spring',
        sdrs: [{ name: 'Ann' }, { name: 'Bo' }],
        closers: [{ name: 'Cy' }],
        lines: 3,
        requires_consent: true,
        spend_cap_usd: null,
        calling_hours: { start: '09:00', end: '20:00' },
      },
      complete: expect.any(Function),
    })
  })

  test('an empty --sdrs clears the list; a number for the spend cap', () => {
    expect(buildAdminRequest(['campaign', 'update', 'c1', '--sdrs', '', '--spend-cap-usd', '250.5']).body).toEqual({
      sdrs: [],
      spend_cap_usd: 250.5,
    })
  })
})

describe('buildAdminRequest: GET commands and errors', () => {
  test.each<[string[], string]>([
    [['org', 'list', '--limit', '5'], '/orgs?limit=5'],
    [['org', 'list'], '/orgs'],
    [['key', 'list', '--org', 'org-1', '--limit', '10'], '/orgs/org-1/keys?limit=10'],
    [['campaign', 'list', '--org', 'org-1', '--limit', '2', '--starting-after', 'c9'], '/orgs/org-1/campaigns?limit=2&starting_after=c9'],
    [['campaign', 'retired-numbers', 'c1', '--limit', '3'], '/campaigns/c1/retired_numbers?limit=3'],
    [['clock', 'get'], '/clock'],
  ])('%p -> GET %s with no body', (args, path) => {
    expect(buildAdminRequest(args)).toEqual({ method: 'GET', path, body: undefined })
  })

  test('a GET command refuses body flags', () => {
    expect(cliError(['org', 'list', '--name', 'x']).message).toContain('--name')
  })

  test('an unknown flag is refused', () => {
    expect(cliError(['org', 'create', '--name', 'A', '--colour', 'blue']).message).toContain('--colour')
  })

  test.each([[['org', 'destroy']], [['widget', 'create']]])('unknown command %p', (args) => {
    const error = cliError(args)
    expect(error.message).toBe(`unknown admin command "${args[0] === 'org' ? 'org destroy' : 'widget'}"`)
    expect(error.hint).toMatch(/dialer admin (org --)?help/)
  })

  test('a resource with no action names the resource and points at its help', () => {
    const error = cliError(['org'])
    expect(error.message).toBe('dialer admin org needs an action')
    expect(error.hint).toBe('Run `dialer admin org --help` for its actions.')
  })

  test('a missing id is a usage error that shows the usage', () => {
    const error = cliError(['org', 'get'])
    expect(error.message).toBe('dialer admin org get needs ORG_ID')
    expect(error.hint).toStartWith('Usage: dialer admin org get ORG_ID')
  })

  test('a missing required flag is refused before anything is sent', () => {
    expect(cliError(['key', 'create', '--org', 'o1', '--name', 'k']).message).toBe('--mode required for dialer admin key create')
    expect(cliError(['campaign', 'retire-number', 'c1']).message).toBe('--phone required for dialer admin campaign retire-number')
    expect(cliError(['org', 'create']).message).toContain('--name')
  })

  test('mistyped names get a suggestion', () => {
    expect(cliError(['org', 'create', '--nmae', 'x']).hint).toStartWith('Did you mean --name?')
    expect(cliError(['campain', 'list']).hint).toStartWith('Did you mean "campaign"?')
    expect(cliError(['key', 'revok', 'k1']).hint).toStartWith('Did you mean "key revoke"?')
  })

  test('--org is a flag only where the path has the organization', () => {
    expect(cliError(['org', 'create', '--name', 'A', '--org', 'x']).message).toBe('unknown flag --org for "dialer admin org create"')
  })

  test('--expires-at null clears the expiry', () => {
    expect(buildAdminRequest(['key', 'update', 'k1', '--expires-at', 'null']).body).toEqual({ expires_at: null })
  })

  test('the connection flags are kept apart from the request', () => {
    const parsed = parseAdmin(['org', 'get', 'o1', '--url=http://h:1', '--token', 't', '--timeout', '5'])
    expect(parsed.kind === 'request' && [...parsed.connection]).toEqual([['url', 'http://h:1'], ['token', 't'], ['timeout', '5']])
    expect(parsed.kind === 'request' && parsed.object).toEqual({ noun: 'organization', id: 'o1' })
  })

  test('a stray positional argument is refused', () => {
    expect(cliError(['org', 'create', 'extra', '--name', 'A']).message).toContain('extra')
  })

  test('clock advance parses the number', () => {
    expect(buildAdminRequest(['clock', 'advance', '--advance-seconds', '86400'])).toEqual({
      method: 'POST',
      path: '/clock',
      body: { advance_seconds: 86400 },
    })
  })

  test('job run names the job in the path', () => {
    expect(buildAdminRequest(['job', 'run', 'late_sweep'])).toEqual({ method: 'POST', path: '/jobs/late_sweep/run', body: {} })
  })
})
