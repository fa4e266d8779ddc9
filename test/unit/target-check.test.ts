import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import ipaddr from 'ipaddr.js'
import { ApiError } from '../../src/errors'
import * as targetCheck from '../../src/domain/webhooks/target-check'
import { checkTarget, checkUrlShape, isPrivateAddress, MAX_URL_LENGTH, type Resolver } from '../../src/domain/webhooks/target-check'
import * as transport from '../../src/domain/webhooks/transport'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * DESIGN.md "Webhook URLs": http(s) only; targets that are or resolve to loopback, private,
 * link-local, metadata or other special-purpose addresses are refused (400 invalid_request,
 * reason private_address) unless DIALER_WEBHOOK_ALLOW_PRIVATE=1; a host that does not resolve
 * is refused (reason unresolvable_host). At most 2048 characters, no credentials. Names are
 * resolved once, by an injected resolver here (no real DNS), and that address is the one used.
 */

function refusal(run: () => unknown): { code: string; param: string | null; reason: string | undefined } | null {
  try {
    run()
    return null
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return { code: error.code, param: error.param, reason: error.extras.reason }
  }
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<{ code: string; param: string | null; reason: string | undefined } | null> {
  try {
    await run()
    return null
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return { code: error.code, param: error.param, reason: error.extras.reason }
  }
}

/** A resolver answering from a table, recording each name asked; unknown names fail like getaddrinfo. */
function table(answers: Record<string, string[]>) {
  const asked: string[] = []
  const resolve: Resolver = async (name) => {
    asked.push(name)
    const found = answers[name]
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
    return found
  }
  return { resolve, asked }
}

const noDns: Resolver = async (name) => {
  throw new Error(`no lookup expected, asked for ${name}`)
}

const PRIVATE = { code: 'invalid_request', param: 'url', reason: 'private_address' }
const UNRESOLVABLE = { code: 'invalid_request', param: 'url', reason: 'unresolvable_host' }

describe('isPrivateAddress', () => {
  // [address, private?, what it is]
  const v4: [string, boolean, string][] = [
    ['127.0.0.1', true, 'loopback'], ['127.255.255.254', true, 'loopback'], ['10.0.0.1', true, 'private'], ['10.255.255.255', true, 'private'],
    ['172.16.0.1', true, 'private'], ['172.31.255.255', true, 'private'], ['172.15.255.255', false, 'public'], ['172.32.0.1', false, 'public'],
    ['192.168.1.1', true, 'private'], ['192.169.0.1', false, 'public'], ['169.254.169.254', true, 'link-local (metadata)'], ['169.254.0.1', true, 'link-local'],
    ['169.255.0.1', false, 'public'], ['100.64.0.1', true, 'CGNAT'], ['100.127.255.255', true, 'CGNAT'], ['100.63.255.255', false, 'public'],
    ['100.128.0.1', false, 'public'], ['0.0.0.0', true, 'unspecified'], ['0.1.2.3', true, '"this network"'], ['192.0.0.8', true, 'IETF protocol assignments'],
    ['192.0.0.170', true, 'NAT64 discovery'], ['192.0.2.1', true, 'documentation TEST-NET-1'], ['198.51.100.7', true, 'documentation TEST-NET-2'],
    ['203.0.113.10', true, 'documentation TEST-NET-3'], ['192.88.99.1', true, '6to4 relay anycast'], ['192.31.196.1', true, 'AS112'],
    ['192.175.48.1', true, 'AS112'], ['192.52.193.1', true, 'AMT'], ['198.18.0.1', true, 'benchmarking'], ['198.19.255.255', true, 'benchmarking'],
    ['198.20.0.1', false, 'public'], ['224.0.0.1', true, 'multicast'], ['239.255.255.250', true, 'multicast'], ['240.0.0.1', true, 'reserved'],
    ['255.255.255.255', true, 'broadcast'], ['8.8.8.8', false, 'public'], ['1.1.1.1', false, 'public'], ['93.184.215.14', false, 'public'],
    ['11.0.0.1', false, 'public'], ['126.255.255.255', false, 'public'], ['128.0.0.1', false, 'public'], ['9.255.255.255', false, 'public'],
    ['223.255.255.255', false, 'public'],
  ]
  const v6: [string, boolean, string][] = [
    ['::1', true, 'loopback'], ['[::1]', true, 'loopback, bracketed'], ['::', true, 'unspecified'], ['fe80::1', true, 'link-local'],
    ['FE80::1', true, 'link-local, upper case'], ['febf::1', true, 'link-local'], ['fe80::1%eth0', true, 'link-local with zone'],
    ['fec0::1', true, 'site-local (deprecated)'], ['feff::1', true, 'site-local (deprecated)'], ['fc00::1', true, 'unique local'],
    ['fd00:ec2::254', true, 'unique local (metadata)'], ['fdff:ffff::1', true, 'unique local'], ['ff02::1', true, 'multicast'],
    ['ff0e::1', true, 'multicast'], ['::ffff:0:7f00:1', true, 'IPv4-translated'], ['::ffff:0:808:808', true, 'IPv4-translated'],
    ['::7f00:1', true, 'IPv4-compatible (deprecated)'], ['::808:808', true, 'IPv4-compatible (deprecated)'],
    ['64:ff9b::7f00:1', true, 'NAT64 well-known'], ['64:ff9b::808:808', true, 'NAT64 well-known'], ['64:ff9b:1::1', true, 'NAT64 local-use'],
    ['100::1', true, 'discard'], ['100:0:0:1::1', true, 'dummy prefix'], ['2001::1', true, 'Teredo'], ['2001:0:4136:e378::1', true, 'Teredo'],
    ['2001:1::1', true, 'IETF protocol assignments'], ['2001:2::1', true, 'benchmarking'], ['2001:3::1', true, 'AMT'],
    ['2001:4:112::1', true, 'AS112'], ['2001:10::1', true, 'ORCHID (deprecated)'], ['2001:20::1', true, 'ORCHIDv2'],
    ['2001:30::1', true, 'drone remote ID'], ['2001:db8::1', true, 'documentation'], ['3fff::1', true, 'documentation'],
    ['3fff:fff::1', true, 'documentation'], ['2002:7f00:1::1', true, '6to4'], ['2002:808:808::1', true, '6to4'],
    ['2620:4f:8000::1', true, 'AS112'], ['5f00::1', true, 'SRv6 SIDs'], ['4000::1', true, 'unassigned'], ['1::1', true, 'reserved by IETF'],
    ['2001:4860:4860::8888', false, 'public'], ['2606:4700:4700::1111', false, 'public'], ['2a00:1450:4001:80b::200e', false, 'public'],
    ['2001:200::1', false, 'public (just past 2001::/23)'], ['3ffe:1::1', false, 'public (just below 3fff::/20)'],
  ]
  const mapped: [string, boolean, string][] = [
    ['::ffff:127.0.0.1', true, 'mapped loopback'], ['::ffff:10.0.0.1', true, 'mapped private'], ['::ffff:169.254.169.254', true, 'mapped metadata'],
    ['::FFFF:192.168.0.1', true, 'mapped private'], ['::ffff:7f00:1', true, 'mapped loopback, hex'], ['[::ffff:7f00:1]', true, 'mapped, bracketed'],
    ['0:0:0:0:0:ffff:7f00:1', true, 'mapped, long form'], ['::ffff:a9fe:a9fe', true, 'mapped metadata, hex'], ['::ffff:203.0.113.10', true, 'mapped documentation'],
    ['::ffff:8.8.8.8', false, 'mapped public'], ['::ffff:808:808', false, 'mapped public, hex'],
  ]
  const junk: [string, boolean, string][] = [['', true, 'empty'], ['localhost', true, 'a name'], ['0x7f.1', true, 'not canonical'], ['1.2.3', true, 'not canonical'], ['::g', true, 'bad']]

  test.each([...v4, ...v6, ...mapped, ...junk])('%s -> %p (%s)', (ip, expected) => {
    expect(isPrivateAddress(ip)).toBe(expected)
  })

  test('every range ipaddr.js names (other than unicast) is private, at both ends', () => {
    const seen: string[] = []
    for (const family of [ipaddr.IPv4, ipaddr.IPv6]) {
      const ranges = (family.prototype as unknown as { SpecialRanges: Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]> }).SpecialRanges
      for (const [name, value] of Object.entries(ranges)) {
        const list = (Array.isArray(value[0]) ? value : [value]) as [ipaddr.IPv4 | ipaddr.IPv6, number][]
        for (const [base, bits] of list) {
          const cidr = `${base.toString()}/${bits}`
          const first = family === ipaddr.IPv4 ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : base
          const last = family === ipaddr.IPv4 ? ipaddr.IPv4.broadcastAddressFromCIDR(cidr) : base
          for (const ip of [first.toString(), last.toString()]) expect({ name, ip, private: isPrivateAddress(ip) }).toEqual({ name, ip, private: true })
          seen.push(name)
        }
      }
    }
    expect(seen).toContain('carrierGradeNat')
    expect(seen).toContain('teredo')
  })
})

describe('checkUrlShape', () => {
  test('accepts http and https URLs with a host, up to 2048 characters', () => {
    expect(MAX_URL_LENGTH).toBe(2048)
    const url = checkUrlShape('https://hooks.example.com:8443/in?x=1')
    expect(url.hostname).toBe('hooks.example.com')
    expect(url.port).toBe('8443')
    expect(checkUrlShape('http://93.184.215.14/').protocol).toBe('http:')
    const base = 'https://hooks.example.com/'
    const exact = base + 'a'.repeat(2048 - base.length)
    expect(exact).toHaveLength(2048)
    expect(checkUrlShape(exact).href).toBe(exact)
  })

  test.each([
    ['too long', `https://hooks.example.com/${'a'.repeat(2049 - 'https://hooks.example.com/'.length)}`],
    ['not a URL', 'not a url'],
    ['relative', '/hooks/in'],
    ['empty', ''],
    ['ftp', 'ftp://hooks.example.com/in'],
    ['file', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/plain,hi'],
    ['mailto', 'mailto:ops@example.com'],
    ['user and password', 'https://user:secret@hooks.example.com/in'],
    ['user only', 'https://user@hooks.example.com/in'],
    ['password only', 'https://:secret@hooks.example.com/in'],
  ])('refuses %s: 400 invalid_request, param url', (_, raw) => {
    expect(refusal(() => checkUrlShape(raw))).toEqual({ code: 'invalid_request', param: 'url', reason: undefined })
  })

  test('names the given param', () => {
    expect(refusal(() => checkUrlShape('ftp://x.example/', 'endpoints[2].url'))).toMatchObject({ param: 'endpoints[2].url' })
  })
})

describe('checkTarget: names normalised before the check', () => {
  // Every spelling of loopback is caught without asking DNS: the URL parser turns IPv4 forms into
  // dotted decimal, and localhost names are loopback by definition (RFC 6761).
  test.each([
    ['decimal', 'http://2130706433/', '127.0.0.1'], ['octal', 'http://0177.0.0.1/', '127.0.0.1'], ['hex', 'http://0x7f.1/', '127.0.0.1'],
    ['short', 'http://127.1/', '127.0.0.1'], ['one hex number', 'http://0x7f000001/', '127.0.0.1'], ['trailing dot', 'http://127.0.0.1./', '127.0.0.1'],
    ['full-width digits', 'http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', '127.0.0.1'], ['zero', 'http://0/', '0.0.0.0'],
    ['mapped', 'http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'], ['localhost', 'http://localhost/', 'localhost'],
    ['localhost, trailing dot', 'http://localhost./hook', 'localhost'], ['LOCALHOST', 'http://LOCALHOST:8080/', 'localhost'],
    ['sub.localhost', 'http://api.localhost/', 'api.localhost'], ['sub.localhost, trailing dot', 'http://Api.Localhost./', 'api.localhost'],
  ])('%s: %s is refused as private_address (checked as %s)', async (_, raw) => {
    expect(await asyncRefusal(() => checkTarget(raw, false, 'url', { resolve: noDns }))).toEqual(PRIVATE)
  })

  test('targetName: what is resolved and checked', () => {
    const names = ['http://0x7f.1/', 'http://127.0.0.1./', 'http://LOCALHOST.:8080/', 'http://Api.Localhost./', 'http://[::ffff:127.0.0.1]/', 'https://Hooks.Example.COM./x']
    expect(names.map((raw) => targetCheck.targetName(new URL(raw)))).toEqual(['127.0.0.1', '127.0.0.1', 'localhost', 'api.localhost', '::ffff:7f00:1', 'hooks.example.com'])
  })

  test('a name is looked up lowercased and without its trailing dot', async () => {
    const dns = table({ 'hooks.example.com': ['93.184.215.14'] })
    expect((await checkTarget('https://HOOKS.Example.com./in', false, 'url', { resolve: dns.resolve })).hostname).toBe('hooks.example.com.')
    expect(dns.asked).toEqual(['hooks.example.com'])
  })

  test.each([
    'http://127.0.0.1/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/',
    'http://[fe80::1]/', 'http://[fd00:ec2::254]/', 'http://[fec0::1]/', 'http://[2002:7f00:1::1]/', 'http://[64:ff9b::a9fe:a9fe]/',
    'http://[::ffff:0:7f00:1]/', 'http://[2001::1]/', 'http://192.0.2.1/', 'http://100.64.0.1/',
  ])('refuses the literal %s with reason private_address', async (raw) => {
    expect(await asyncRefusal(() => checkTarget(raw, false, 'url', { resolve: noDns }))).toEqual(PRIVATE)
  })

  test('public literals pass; with allowPrivate a private literal passes, a bad shape never', async () => {
    expect((await checkTarget('https://93.184.215.14/in', false, 'url', { resolve: noDns })).hostname).toBe('93.184.215.14')
    expect((await checkTarget('http://[2606:4700:4700::1111]/in', false, 'url', { resolve: noDns })).hostname).toBe('[2606:4700:4700::1111]')
    expect((await checkTarget('http://127.0.0.1:8080/in', true, 'url', { resolve: noDns })).port).toBe('8080')
    expect((await checkTarget('http://[::1]/in', true, 'url', { resolve: noDns })).hostname).toBe('[::1]')
    expect(await asyncRefusal(() => checkTarget('ftp://127.0.0.1/', true))).toEqual({ code: 'invalid_request', param: 'url', reason: undefined })
    expect(await asyncRefusal(() => checkTarget('http://10.0.0.1/', false, 'target'))).toMatchObject({ param: 'target', reason: 'private_address' })
  })
})

describe('checkTarget: names resolved, failing closed', () => {
  test('a name that does not resolve is refused, whatever allowPrivate says (reason unresolvable_host)', async () => {
    const dns = table({})
    for (const allowPrivate of [false, true]) {
      expect(await asyncRefusal(() => checkTarget('https://nowhere.example.test/hook', allowPrivate, 'url', { resolve: dns.resolve }))).toEqual(UNRESOLVABLE)
    }
    const empty = table({ 'empty.example.test': [] })
    expect(await asyncRefusal(() => checkTarget('https://empty.example.test/', false, 'url', { resolve: empty.resolve }))).toEqual(UNRESOLVABLE)
  })

  test('a resolver that hangs is given up on after the timeout (3 s by default)', async () => {
    expect(targetCheck.DNS_TIMEOUT_MS).toBe(3000)
    const hang: Resolver = () => new Promise(() => {})
    const started = performance.now()
    expect(await asyncRefusal(() => checkTarget('https://slow.example.test/', false, 'url', { resolve: hang, timeoutMs: 50 }))).toEqual(UNRESOLVABLE)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test('one private address among public ones refuses the name; a mapped one is judged by its IPv4 address', async () => {
    const dns = table({
      'mixed.example.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '10.0.0.5'],
      'mapped.example.test': ['::ffff:127.0.0.1'],
      'v6.example.test': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'fd00::1'],
      'public.example.test': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14'],
    })
    for (const host of ['mixed', 'mapped', 'v6']) {
      expect(await asyncRefusal(() => checkTarget(`https://${host}.example.test/`, false, 'url', { resolve: dns.resolve }))).toEqual(PRIVATE)
    }
    expect((await checkTarget('https://public.example.test/', false, 'url', { resolve: dns.resolve })).hostname).toBe('public.example.test')
  })
})

describe('resolveTarget and pinnedRequest: the address checked is the one connected to', () => {
  test('resolves once; the answer is checked and returned (IPv4 first, mapped as IPv4)', async () => {
    const dns = table({ 'hooks.example.test': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:93.184.215.14'] })
    const target = await targetCheck.resolveTarget(new URL('https://hooks.example.test/in'), { allowPrivate: false, resolve: dns.resolve })
    expect(target).toEqual({ ok: true, name: 'hooks.example.test', address: '93.184.215.14', addresses: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14'] })
    expect(dns.asked).toEqual(['hooks.example.test'])
  })

  test('DNS rebinding: a resolver that answers public first and loopback after is asked once, and its first answer is pinned', async () => {
    let calls = 0
    const rebinding: Resolver = async () => (++calls === 1 ? ['93.184.215.14'] : ['127.0.0.1'])
    const url = 'https://hooks.example.test:8443/in?x=1'
    const target = await targetCheck.resolveTarget(new URL(url), { allowPrivate: false, resolve: rebinding })
    if (!target.ok) throw new Error(target.detail)
    const pinned = transport.pinnedRequest(url, target.address)
    expect(calls).toBe(1)
    expect(pinned).toEqual({ url: 'https://93.184.215.14:8443/in?x=1', host: 'hooks.example.test:8443', tls: { serverName: 'hooks.example.test' } })
  })

  test('pinnedRequest: http keeps the Host header, https also the name TLS checks; IPv6 bracketed; literals unchanged', () => {
    expect(transport.pinnedRequest('http://hooks.example.test/a', '93.184.215.14')).toEqual({ url: 'http://93.184.215.14/a', host: 'hooks.example.test', tls: null })
    expect(transport.pinnedRequest('https://Hooks.Example.test./a', '2606:4700::1')).toEqual({
      url: 'https://[2606:4700::1]/a', host: 'hooks.example.test.', tls: { serverName: 'hooks.example.test' },
    })
    expect(transport.pinnedRequest('https://93.184.215.14/a', '93.184.215.14')).toEqual({ url: 'https://93.184.215.14/a', host: null, tls: null })
    expect(transport.pinnedRequest('https://hooks.example.test/a', '127.0.0.1', 'PEM').tls).toEqual({ serverName: 'hooks.example.test', ca: 'PEM' })
  })
})
