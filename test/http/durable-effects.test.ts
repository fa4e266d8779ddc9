import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHandler } from '../../src/app'
import { createServices, type Services } from '../../src/services'
import type { DialRequest } from '../../src/telephony/carrier'
import { commitBreaker } from '../commit-breaker'
import { ADMIN_TOKEN, basic, seedWorld, START, testConfig, type Harness, type Reply, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 14, item 7: nothing the outside world sees (a webhook send, a carrier dial) starts
 * before the rows that record it are committed. Each test makes the COMMIT of the group that
 * holds an event's rows fail (a deferred foreign key, see commit-breaker.ts) and shows that the
 * receiver or the carrier never heard of it, next to a control that did.
 */

interface Setup {
  h: Harness
  w: World
  services: Services
  /** Errors of groups whose COMMIT failed (the service would stop; here it is only noted). */
  lost: unknown[]
  /** The next stored event of this type breaks the COMMIT of its group. */
  breakOn(type: string): void
}

const closers: (() => void)[] = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

/** A harness whose lost groups are recorded instead of stopping the process. */
async function setUp(autoDial: boolean): Promise<Setup> {
  const lost: unknown[] = []
  const services = createServices(testConfig({ DIALER_WEBHOOK_ALLOW_PRIVATE: '1' }), {
    fakeStart: START, autoDial, onGroupLost: (error) => lost.push(error),
  })
  closers.push(() => services.close())
  const { handle } = createHandler(services)
  const call = async (method: string, path: string, body?: unknown, authorization?: string): Promise<Reply> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (authorization) headers.authorization = authorization
    const response = await handle(new Request(`http://localhost${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : null }
  }
  const h = {
    services,
    api: (method: string, path: string, o: { key?: { authorization: string } | null; body?: unknown } = {}) =>
      call(method, `/api/v1/external${path}`, o.body, o.key?.authorization),
    admin: (method: string, path: string, body?: unknown) => call(method, `/api/v1/admin${path}`, body, `Bearer ${ADMIN_TOKEN}`),
    async createKey(orgId: string, fields: Record<string, unknown>) {
      const reply = await h.admin('POST', `/orgs/${orgId}/keys`, fields)
      if (reply.status !== 201) throw new Error(`key create failed: ${reply.text}`)
      const { id, secret } = reply.body.data
      return { id, secret, authorization: basic(id, secret) }
    },
    async advance(seconds: number) {
      const reply = await h.admin('POST', '/clock', { advance_seconds: seconds })
      if (reply.status !== 200) throw new Error(`clock move failed: ${reply.text}`)
    },
  } as unknown as Harness
  const w = await seedWorld(h)
  const breakCommit = commitBreaker(services.database.sqlite)
  let armed: string | null = null
  services.events.onRecorded((row) => {
    if (row.type !== armed) return
    armed = null
    breakCommit()
  })
  return { h, w, services, lost, breakOn: (type) => (armed = type) }
}

const count = (services: Services, sql: string, ...params: string[]) =>
  (services.database.sqlite.query(sql).get(...params) as { n: number }).n

describe('webhooks wait for the COMMIT of their event', () => {
  test('no delivery reaches the receiver for an event whose group failed to commit', async () => {
    const { h, w, services, lost, breakOn } = await setUp(false)
    const received: string[] = []
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        received.push(JSON.parse(await request.text()).data.object.phone)
        return new Response('ok')
      },
    })
    closers.push(() => server.stop(true))
    const url = `http://127.0.0.1:${server.port}/hook`
    expect((await h.api('POST', '/webhooks', { key: w.live, body: { url, events: ['lead.created'] } })).status).toBe(201)

    // Control: a lead whose group commits is delivered.
    expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125552001' } })).status).toBe(201)
    await services.deliveries.drain()
    expect(received).toEqual(['+12125552001'])

    breakOn('lead.created')
    const refused = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125552101' } })
    expect(refused.status).toBe(500)
    expect(lost).toHaveLength(1)
    // Neither the lead nor its delivery exists...
    expect(count(services, 'SELECT count(*) AS n FROM leads WHERE phone = ?', '+12125552101')).toBe(0)
    expect(count(services, 'SELECT count(*) AS n FROM webhook_deliveries')).toBe(1)
    // ...and the receiver never heard of it: not now, not on a retry sweep later.
    await Bun.sleep(100)
    await services.deliveries.drain()
    await h.advance(120)
    await Bun.sleep(50)
    await services.deliveries.drain()
    expect(received).toEqual(['+12125552001'])
  })

  test('the retry sweep reads the outbox only once the open group has committed', async () => {
    const { h, w, services } = await setUp(false)
    const received: string[] = []
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => {
        received.push('hit')
        return new Response('ok')
      },
    })
    closers.push(() => server.stop(true))
    const url = `http://127.0.0.1:${server.port}/hook`
    const endpoint = (await h.api('POST', '/webhooks', { key: w.live, body: { url, events: ['lead.created'] } })).body.data
    expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125552003' } })).status).toBe(201)
    await services.deliveries.drain()
    expect(received).toHaveLength(1)
    // A failed delivery, due for its retry, written in a group that is not committed yet:
    // the sweep, reading through the same connection, must not take it before the COMMIT.
    services.stores.transaction(() => {
      services.database.sqlite.run(
        "UPDATE webhook_deliveries SET status = 'failed', attempts = 1, next_attempt_at = ? WHERE endpoint_id = ?",
        [services.clock.now(), endpoint.id],
      )
    })
    expect(services.database.pendingCommit()).not.toBeNull()
    await services.scheduler.runNow('webhook_retry')
    expect(services.deliveries.busy).toBe(0)
    await services.database.pendingCommit()
    await services.deliveries.drain()
    expect(received).toHaveLength(2)
  })
})

describe('carrier dials wait for the COMMIT of their call', () => {
  test('no call is started with the carrier for a lead whose rows were lost', async () => {
    const { h, w, services, lost, breakOn } = await setUp(true)
    const dialed: DialRequest[] = []
    const carrier = services.carrier
    const dial = carrier.dial.bind(carrier)
    carrier.dial = (request, events) => {
      dialed.push(request)
      dial(request, events)
    }

    // Control: call_now dials at once, once the call is committed (scenario 03: busy, 2 s).
    expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125552003', call_now: true } })).status).toBe(201)
    expect(dialed.map((d) => d.to)).toEqual(['+12125552003'])
    expect(count(services, 'SELECT count(*) AS n FROM calls WHERE id = ?', dialed[0]!.callId)).toBe(1)
    await h.advance(10)
    expect(count(services, "SELECT count(*) AS n FROM calls WHERE status != 'ended'")).toBe(0)

    // The next lead is dialed in the same group as its intake; that group's COMMIT fails.
    breakOn('call.started')
    const refused = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125552103', call_now: true } })
    expect(refused.status).toBe(500)
    expect(lost).toHaveLength(1)
    expect(count(services, 'SELECT count(*) AS n FROM leads WHERE phone = ?', '+12125552103')).toBe(0)
    expect(count(services, 'SELECT count(*) AS n FROM calls')).toBe(1)
    expect(dialed.map((d) => d.to)).toEqual(['+12125552003'])
    await h.advance(120)
    expect(dialed.map((d) => d.to)).toEqual(['+12125552003'])
  })
})
