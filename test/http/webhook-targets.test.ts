import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Resolver } from '../../src/domain/webhooks/target-check'
import { httpTransport } from '../../src/domain/webhooks/transport'
import { createHarness, seedWorld, START, type Harness, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Webhook targets fail closed (issue 14): a host is resolved once per check, by the resolver
 * the service is given (a table here: no real DNS), every address is checked, and the send
 * connects to that address (the Host header and, for https, the certificate name stay the
 * URL's). A name that does not resolve is refused at creation and fails the delivery at send.
 * Receivers are local Bun servers on 127.0.0.1.
 */

const ALLOW_PRIVATE = { DIALER_WEBHOOK_ALLOW_PRIVATE: '1' }
const PUBLIC_IP = '93.184.215.14'
const FIXTURES = join(import.meta.dir, '../fixtures')

const stoppers: (() => void)[] = []
afterAll(() => {
  for (const stop of stoppers) stop()
})

interface Hit {
  host: string
  path: string
}

function receiver(tls?: { cert: string; key: string }) {
  const hits: Hit[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    ...(tls ? { tls } : {}),
    async fetch(req) {
      await req.text()
      hits.push({ host: req.headers.get('host') ?? '', path: new URL(req.url).pathname })
      return new Response('secret reply of the loopback service')
    },
  })
  stoppers.push(() => server.stop(true))
  return { hits, port: server.port! }
}

// ---- the service with a table resolver ----

let h: Harness
let w: World
let answers: Record<string, string[]> = {}
let asked: string[] = []
const HANG = 'hang.example.test'

const resolve: Resolver = (name) => {
  asked.push(name)
  if (name === HANG) return new Promise(() => {})
  const found = answers[name]
  return found ? Promise.resolve(found) : Promise.reject(new Error(`getaddrinfo ENOTFOUND ${name}`))
}

async function open(env: Record<string, string>, table: Record<string, string[]>): Promise<void> {
  answers = { ...table }
  asked = []
  h = createHarness({ env, webhookResolver: resolve })
  w = await seedWorld(h)
}

async function createEndpoint(url: string): Promise<string> {
  const r = await h.api('POST', '/webhook_endpoints', { key: w.live, body: { url, events: ['lead.created'] } })
  if (r.status !== 201) throw new Error(`endpoint create failed: ${r.status} ${r.text}`)
  return r.body.data.id
}

let phoneSeq = 0
async function addLead(): Promise<void> {
  const r = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: `+1212555${4000 + ++phoneSeq}` } })
  if (r.status !== 201) throw new Error(`lead add failed: ${r.status} ${r.text}`)
}

/** The endpoint's deliveries with the recorded error (not in the API reply). */
async function deliveries(endpointId: string) {
  await h.services.deliveries.drain()
  const r = await h.api('GET', `/webhook_endpoints/${endpointId}/deliveries`, { key: w.live })
  return (r.body.data as any[]).map((d) => ({ ...d, last_error: h.services.stores.webhooks.delivery(d.id)?.lastError ?? null }))
}

const refused = (reason: string) => ({ status: 400, code: 'invalid_request', param: 'url', reason })
const errorOf = (r: { status: number; body: any }) => ({ status: r.status, code: r.body.error?.code, param: r.body.error?.param, reason: r.body.error?.reason })

describe('creation: the host must resolve', () => {
  afterEach(() => h.close())

  test('POST and PATCH refuse a name that does not resolve (400 invalid_request, param url, reason unresolvable_host), private allowed or not', async () => {
    for (const env of [{}, ALLOW_PRIVATE]) {
      await open(env, { 'hooks.example.test': [PUBLIC_IP] })
      for (const path of ['/webhook_endpoints', '/webhooks']) {
        const r = await h.api('POST', path, { key: w.live, body: { url: 'https://nowhere.example.test/hook', events: ['lead.created'] } })
        expect(errorOf(r)).toEqual(refused('unresolvable_host'))
      }
      const id = await createEndpoint('https://hooks.example.test/hook')
      const patch = await h.api('PATCH', `/webhook_endpoints/${id}`, { key: w.live, body: { url: 'https://gone.example.test/hook' } })
      expect(errorOf(patch)).toEqual(refused('unresolvable_host'))
      expect((await h.api('GET', `/webhook_endpoints/${id}`, { key: w.live })).body.data.url).toBe('https://hooks.example.test/hook')
      expect(asked).toEqual(['nowhere.example.test', 'nowhere.example.test', 'hooks.example.test', 'gone.example.test'])
      h.close()
    }
    await open({}, {})
  })

  test('a name resolving to a private address among public ones is refused (private_address)', async () => {
    await open({}, { 'mixed.example.test': [PUBLIC_IP, '169.254.169.254'], 'rebind.example.test': ['::ffff:127.0.0.1'] })
    for (const url of ['https://mixed.example.test/hook', 'http://rebind.example.test./hook', 'http://REBIND.example.test/hook']) {
      const r = await h.api('POST', '/webhook_endpoints', { key: w.live, body: { url, events: ['lead.created'] } })
      expect({ url, ...errorOf(r) }).toEqual({ url, ...refused('private_address') })
    }
  })

  test('a resolver that never answers: 400 unresolvable_host after the 3 s limit, not a hung request', async () => {
    await open({}, {})
    const started = performance.now()
    const r = await h.api('POST', '/webhook_endpoints', { key: w.live, body: { url: `https://${HANG}/hook`, events: ['lead.created'] } })
    const took = performance.now() - started
    expect(errorOf(r)).toEqual(refused('unresolvable_host'))
    expect(took).toBeGreaterThanOrEqual(2900)
    expect(took).toBeLessThan(6000)
  })
})

describe('sends: resolved again, checked, and connected to the address checked', () => {
  afterEach(() => h.close())

  test('the send connects to the resolved address (no lookup of its own) and keeps the Host header', async () => {
    const rx = receiver()
    await open(ALLOW_PRIVATE, { 'hooks.example.test': ['127.0.0.1'] })
    const id = await createEndpoint(`http://hooks.example.test:${rx.port}/hook`)
    await addLead()
    expect(await deliveries(id)).toMatchObject([{ status: 'sent', attempts: 1, response_status: 200, last_error: null }])
    expect(rx.hits).toEqual([{ host: `hooks.example.test:${rx.port}`, path: '/hook' }])
    // Once at creation, once for the send.
    expect(asked).toEqual(['hooks.example.test', 'hooks.example.test'])
  })

  test('a name that stops resolving: the try fails (unresolvable_host), nothing is sent; the retry resolves again', async () => {
    const rx = receiver()
    await open(ALLOW_PRIVATE, { 'hooks.example.test': ['127.0.0.1'] })
    const id = await createEndpoint(`http://hooks.example.test:${rx.port}/hook`)
    delete answers['hooks.example.test']
    await addLead()
    expect(await deliveries(id)).toMatchObject([{
      status: 'failed', attempts: 1, response_status: null, response_body: null, last_error: 'unresolvable_host',
      next_attempt_at: new Date(START + 5000).toISOString(),
    }])
    expect(rx.hits).toEqual([])
    answers['hooks.example.test'] = ['127.0.0.1']
    await h.advance(5)
    expect(await deliveries(id)).toMatchObject([{ status: 'sent', attempts: 2, last_error: null }])
    expect(rx.hits).toHaveLength(1)
  })

  test('a name moved to a private address after creation: the try fails (private_address), nothing is sent', async () => {
    const rx = receiver()
    await open({}, { 'hooks.example.test': [PUBLIC_IP] })
    const id = await createEndpoint(`http://hooks.example.test:${rx.port}/hook`)
    answers['hooks.example.test'] = [PUBLIC_IP, '127.0.0.1']
    await addLead()
    expect(await deliveries(id)).toMatchObject([{ status: 'failed', response_status: null, response_body: null, last_error: 'private_address' }])
    expect(rx.hits).toEqual([])
  })

  test('an endpoint stored as http://localhost.:PORT/ (accepted before this check): refused at send, the reply never read', async () => {
    const rx = receiver()
    await open({}, { 'hooks.example.test': [PUBLIC_IP] })
    const id = await createEndpoint(`http://hooks.example.test:${rx.port}/hook`)
    const row = h.services.stores.webhooks.updateEndpoint(id, { url: `http://localhost.:${rx.port}/hook` })!
    h.services.webhooks.changed(row)
    await addLead()
    expect(await deliveries(id)).toMatchObject([{ status: 'failed', response_status: null, response_body: null, last_error: 'private_address' }])
    expect(rx.hits).toEqual([])
  })
})

describe('httpTransport pins the address, over http and https', () => {
  const headers = { 'content-type': 'application/json' }

  test('http: connects to the address given, whatever the name; Host is the URL host', async () => {
    const rx = receiver()
    const result = await httpTransport(2000).send(`http://not-in-any-dns.example.test:${rx.port}/in`, headers, '{}', '127.0.0.1')
    expect(result).toMatchObject({ status: 200, error: null })
    expect(rx.hits).toEqual([{ host: `not-in-any-dns.example.test:${rx.port}`, path: '/in' }])
  })

  test('https: the certificate is verified for the URL name (not the address), with its chain', async () => {
    const cert = readFileSync(join(FIXTURES, 'webhook-tls.crt'), 'utf8')
    const key = readFileSync(join(FIXTURES, 'webhook-tls.key'), 'utf8')
    const rx = receiver({ cert, key })
    const trusting = httpTransport(2000, { ca: cert })
    // The certificate names hooks.example.test; no DNS knows it, so only the pinned address can be reached.
    expect(await trusting.send(`https://hooks.example.test:${rx.port}/in`, headers, '{}', '127.0.0.1')).toMatchObject({ status: 200, error: null })
    expect(await trusting.send(`https://HOOKS.example.test.:${rx.port}/in`, headers, '{}', '127.0.0.1')).toMatchObject({ status: 200, error: null })
    expect(rx.hits.map((hit) => hit.host)).toEqual([`hooks.example.test:${rx.port}`, `hooks.example.test.:${rx.port}`])
    // A name the certificate does not cover, and a chain nobody trusts: refused before any request.
    expect(await trusting.send(`https://other.example.test:${rx.port}/in`, headers, '{}', '127.0.0.1')).toMatchObject({ status: null, error: 'connection' })
    expect(await httpTransport(2000).send(`https://hooks.example.test:${rx.port}/in`, headers, '{}', '127.0.0.1')).toMatchObject({ status: null, error: 'connection' })
    // The address itself is not a name the certificate holds either.
    expect(await trusting.send(`https://127.0.0.1:${rx.port}/in`, headers, '{}', '127.0.0.1')).toMatchObject({ status: null, error: 'connection' })
    expect(rx.hits).toHaveLength(2)
  })

  test('a redirect is an answer, never followed: its target was not checked', async () => {
    const target = receiver()
    const redirecting = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.redirect(`http://127.0.0.1:${target.port}/inner`, 307) })
    stoppers.push(() => redirecting.stop(true))
    const result = await httpTransport(2000).send(`http://hooks.example.test:${redirecting.port}/in`, headers, '{}', '127.0.0.1')
    expect(result).toMatchObject({ status: 307, error: 'redirect' })
    expect(target.hits).toEqual([])
  })
})
