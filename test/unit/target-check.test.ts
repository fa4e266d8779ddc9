import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/errors'
import { checkTarget, checkUrlShape, isPrivateAddress, MAX_URL_LENGTH, resolveHost } from '../../src/domain/webhooks/target-check'

/**
 * DESIGN.md "Webhook URLs": http(s) only; targets that are or resolve to loopback, private,
 * link-local or metadata addresses are refused (400 invalid_request, reason private_address)
 * unless DIALER_WEBHOOK_ALLOW_PRIVATE=1. At most 2048 characters, no credentials.
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

async function asyncRefusal(run: () => Promise<unknown>) {
  try {
    await run()
    return null
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return { code: error.code, param: error.param, reason: error.extras.reason }
  }
}

describe('isPrivateAddress', () => {
  const v4: [string, boolean][] = [
    ['127.0.0.1', true], ['127.255.255.254', true], ['10.0.0.1', true], ['10.255.255.255', true],
    ['172.16.0.1', true], ['172.31.255.255', true], ['172.15.255.255', false], ['172.32.0.1', false],
    ['192.168.1.1', true], ['192.169.0.1', false], ['169.254.169.254', true], ['169.254.0.1', true], ['169.255.0.1', false],
    ['100.64.0.1', true], ['100.127.255.255', true], ['100.63.255.255', false], ['100.128.0.1', false],
    ['0.0.0.0', true], ['0.1.2.3', true], ['192.0.0.8', true], ['198.18.0.1', true], ['198.19.255.255', true], ['198.20.0.1', false],
    ['224.0.0.1', true], ['239.255.255.250', true], ['240.0.0.1', true], ['255.255.255.255', true],
    ['8.8.8.8', false], ['1.1.1.1', false], ['203.0.113.10', false], ['11.0.0.1', false], ['126.255.255.255', false],
    ['128.0.0.1', false], ['9.255.255.255', false], ['223.255.255.255', false],
  ]
  const v6: [string, boolean][] = [
    ['::1', true], ['[::1]', true], ['::', true], ['fe80::1', true], ['FE80::1', true], ['febf::1', true],
    ['fc00::1', true], ['fd00:ec2::254', true], ['fdff:ffff::1', true], ['ff02::1', true],
    ['2001:4860:4860::8888', false], ['2606:4700:4700::1111', false], ['2a00:1450:4001:80b::200e', false],
  ]
  const mapped: [string, boolean][] = [
    ['::ffff:127.0.0.1', true], ['::ffff:10.0.0.1', true], ['::ffff:169.254.169.254', true], ['::FFFF:192.168.0.1', true],
    ['::ffff:8.8.8.8', false], ['::ffff:203.0.113.10', false],
  ]

  test.each([...v4, ...v6, ...mapped])('%s -> %p', (ip, expected) => {
    expect(isPrivateAddress(ip)).toBe(expected)
  })

  // Regression test (found while writing the suite; fixed in src).
  test('IPv4-mapped addresses in hex form (as the URL parser writes them)', () => {
    expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]')
    for (const ip of ['::ffff:7f00:1', '[::ffff:7f00:1]', '::ffff:a00:1', '::ffff:a9fe:a9fe', '::ffff:c0a8:101', '0:0:0:0:0:ffff:7f00:1']) {
      expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: true })
    }
    expect(isPrivateAddress('::ffff:808:808')).toBe(false)
  })
})

describe('checkUrlShape', () => {
  test('accepts http and https URLs with a host, up to 2048 characters', () => {
    expect(MAX_URL_LENGTH).toBe(2048)
    const url = checkUrlShape('https://hooks.example.com:8443/in?x=1')
    expect(url.hostname).toBe('hooks.example.com')
    expect(url.port).toBe('8443')
    expect(checkUrlShape('http://203.0.113.10/').protocol).toBe('http:')
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

describe('resolveHost and checkTarget', () => {
  test('an IP literal resolves to itself (brackets removed)', async () => {
    expect(await resolveHost(new URL('http://203.0.113.10/'))).toEqual(['203.0.113.10'])
    expect(await resolveHost(new URL('http://[2001:db8::1]/'))).toEqual(['2001:db8::1'])
    // Number forms are normalised by the URL parser first.
    expect(await resolveHost(new URL('http://2130706433/'))).toEqual(['127.0.0.1'])
    expect(await resolveHost(new URL('http://0x7f.1/'))).toEqual(['127.0.0.1'])
  })

  test.each([
    'http://127.0.0.1/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/',
    'http://[fe80::1]/', 'http://[fd00:ec2::254]/', 'http://2130706433/', 'http://0x7f.1/', 'http://0/', 'http://localhost/',
  ])('refuses %s with reason private_address', async (raw) => {
    expect(await asyncRefusal(() => checkTarget(raw, false))).toEqual({ code: 'invalid_request', param: 'url', reason: 'private_address' })
  })

  test('public addresses pass; with allowPrivate any well-shaped URL passes, a bad shape never', async () => {
    expect((await checkTarget('https://203.0.113.10/in', false)).hostname).toBe('203.0.113.10')
    expect((await checkTarget('http://[2606:4700:4700::1111]/in', false)).hostname).toBe('[2606:4700:4700::1111]')
    expect((await checkTarget('http://127.0.0.1:8080/in', true)).port).toBe('8080')
    expect((await checkTarget('http://[::1]/in', true)).hostname).toBe('[::1]')
    expect(await asyncRefusal(() => checkTarget('ftp://127.0.0.1/', true))).toEqual({ code: 'invalid_request', param: 'url', reason: undefined })
    expect(await asyncRefusal(() => checkTarget('http://10.0.0.1/', false, 'target'))).toMatchObject({ param: 'target' })
  })

  // Regression test (found while writing the suite; fixed in src).
  test('refuses http://[::ffff:127.0.0.1]/ (IPv4-mapped loopback)', async () => {
    expect(await asyncRefusal(() => checkTarget('http://[::ffff:127.0.0.1]/', false))).toEqual({ code: 'invalid_request', param: 'url', reason: 'private_address' })
  })
})
