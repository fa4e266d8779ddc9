import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { clientAddressOf, doorOf, pathnameOf } from '../../src/http/gateway'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

describe('pathnameOf reads the path from the first "/" after the host, whatever the Host', () => {
  test.each([
    ['http://x/abc/api/v1/admin/orgs', '/abc/api/v1/admin/orgs'],
    ['http://localhost/api/v1/external/campaigns?limit=5', '/api/v1/external/campaigns'],
    ['http://a?b/api/v1/admin/orgs', '/api/v1/admin/orgs'],
    ['http://[::1]:8080/metrics', '/metrics'],
    ['http://h', '/'],
  ])('%s -> %s', (url, path) => expect(pathnameOf(url)).toBe(path))
})

describe('doorOf: which credentials a path needs (trailing slashes do not change it)', () => {
  test.each([
    ['/api/v1/external/campaigns', 'external'],
    ['/api/v1/external/campaigns/', 'external'],
    ['/api/v1/external', 'external'],
    ['/api/v1/externalx', 'external'],
    ['/api/v1/external/openapi.json', 'open'],
    ['/api/v1/external/openapi.json/', 'open'],
    ['/api/v1/admin/orgs', 'admin'],
    ['/api/v1/admin/orgs//', 'admin'],
    ['/api/v1/admin', 'admin'],
    ['/metrics', 'admin'],
    ['/metrics/', 'admin'],
    ['/metrics//', 'admin'],
    ['/healthz', 'open'],
    ['/docs', 'open'],
    ['/', 'open'],
    ['/abc/api/v1/admin/orgs', 'open'],
  ])('%s -> %s', (path, door) => expect(doorOf(path)).toBe(door as ReturnType<typeof doorOf>))
})

describe('clientAddressOf: N trusted hops from the right of [...X-Forwarded-For, peer]', () => {
  test.each([
    // [X-Forwarded-For, peer, trusted hops, client]
    [null, '10.1.1.1', 0, '10.1.1.1'],
    ['6.6.6.6', '10.1.1.1', 0, '10.1.1.1'],
    [null, '10.1.1.1', 1, '10.1.1.1'],
    ['198.51.100.7', '10.1.1.1', 1, '198.51.100.7'],
    ['forged, 198.51.100.7', '10.1.1.1', 1, '198.51.100.7'],
    ['forged,198.51.100.7', '10.1.1.1', 1, '198.51.100.7'],
    ['forged, 198.51.100.7, 10.2.2.2', '10.1.1.1', 2, '198.51.100.7'],
    ['198.51.100.7, 10.2.2.2', '10.1.1.1', 2, '198.51.100.7'],
    // Fewer entries than trusted hops: the leftmost there is.
    ['10.2.2.2', '10.1.1.1', 2, '10.2.2.2'],
    ['forged, ', '10.1.1.1', 1, '10.1.1.1'],
  ])('%p via %s, %d hops -> %s', (forwardedFor, peer, hops, client) =>
    expect(clientAddressOf(forwardedFor, peer, hops)).toBe(client))
})
