import { expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHandler, type App } from '../src/app'
import { loadConfig, type Config } from '../src/config'
import { createServices, type Services } from '../src/services'
import type { Resolver } from '../src/domain/webhooks/target-check'
import { checkReply } from './client/reply-contract'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'
/** Monday 2026-01-05 15:00 UTC: 10:00 in New York, inside default calling hours. */
export const START = Date.UTC(2026, 0, 5, 15, 0, 0)

export interface TestKey {
  id: string
  secret: string
  authorization: string
}

export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface CallOptions {
  key?: TestKey | null
  body?: unknown
  /** Sent as is (for malformed JSON and size tests). */
  rawBody?: string
  headers?: Record<string, string>
}

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

/** An error reply in the spec's envelope; `param` is checked when given (null included). */
export function expectError(r: { status: number; body: any }, status: number, code: string, param?: string | null): void {
  expect(r.status).toBe(status)
  expect(r.body.error.code).toBe(code)
  if (param !== undefined) expect(r.body.error.param).toBe(param)
}

/** Config for tests: in-memory database, fake clock, quiet log. `env` overrides any DIALER_* value. */
export function testConfig(env: Record<string, string> = {}): Readonly<Config> {
  return loadConfig({
    DIALER_DATABASE: ':memory:',
    DIALER_DATA_DIR: join(tmpdir(), 'dialer-test-unused'),
    DIALER_FAKE_CLOCK: '1',
    DIALER_ADMIN_TOKEN: ADMIN_TOKEN,
    DIALER_LOG_REQUESTS: '0',
    DIALER_CHECK_REPLIES: '1',
    DIALER_AUTH_FAILURES_PER_MINUTE: '100000',
    ...env,
  })
}

export interface Harness {
  /** `app.handle` is the whole service (gateway around the routes), as a server calls it. */
  app: { handle(request: Request): Promise<Response> }
  /** The Elysia app alone (routes, schemas). */
  routes: App
  services: Services
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>
  /** External API: path is relative to /api/v1/external. */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>
  /** Admin API: path is relative to /api/v1/admin; sends the admin token. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>
  /** Makes a key through the admin API. */
  createKey(orgId: string, fields: Record<string, unknown>): Promise<TestKey>
  advance(seconds: number): Promise<void>
  close(): void
}

/**
 * `autoDial`: dial queued leads as lines free up, as the service does. Off by default so
 * tests of queues and intake see leads stay queued; call tests switch it on.
 */
export function createHarness(options: { env?: Record<string, string>; start?: number; autoDial?: boolean; webhookResolver?: Resolver } = {}): Harness {
  const services = createServices(testConfig(options.env), {
    fakeStart: options.start ?? START, autoDial: options.autoDial ?? false, webhookResolver: options.webhookResolver,
  })
  const { app: routes, handle } = createHandler(services)
  // The server takes a Response or a promise of one; tests always get a promise.
  const app = { handle: (request: Request) => Promise.resolve(handle(request)) }

  async function call(method: string, path: string, o: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...o.headers }
    if (o.key) headers.authorization = o.key.authorization
    let body: string | undefined = o.rawBody
    if (o.body !== undefined) {
      body = JSON.stringify(o.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // plain text replies stay text
    }
    // Every external reply must match the published OpenAPI document (issue 15); throws if not.
    checkReply({ method, path, status: response.status, headers: response.headers, text })
    return { status: response.status, headers: response.headers, body: parsed, text }
  }

  const harness: Harness = {
    app,
    routes,
    services,
    call,
    api: (method, path, o) => call(method, `/api/v1/external${path}`, o),
    admin: (method, path, body) =>
      call(method, `/api/v1/admin${path}`, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    async createKey(orgId, fields) {
      const reply = await harness.admin('POST', `/orgs/${orgId}/keys`, fields)
      if (reply.status !== 201) throw new Error(`key create failed: ${reply.text}`)
      const { id, secret } = reply.body.data
      return { id, secret, authorization: basic(id, secret) }
    },
    async advance(seconds) {
      const reply = await harness.admin('POST', '/clock', { advance_seconds: seconds })
      if (reply.status !== 200) throw new Error(`clock move failed: ${reply.text}`)
    },
    close: () => services.close(),
  }
  return harness
}

export interface World {
  orgId: string
  otherOrgId: string
  /** Active, with an SDR. */
  campaignId: string
  /** Draft, no SDR. */
  draftCampaignId: string
  /** Active campaign of the other organization. */
  otherCampaignId: string
  live: TestKey
  test: TestKey
  /** Live key limited to `campaignId`. */
  scoped: TestKey
  /** Live key of the other organization. */
  otherLive: TestKey
}

/** Two organizations with campaigns and keys, all made through the admin API. */
export async function seedWorld(h: Harness): Promise<World> {
  const org = await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })
  const other = await h.admin('POST', '/orgs', { name: 'Other Org', plan_requests_per_minute: 100000 })
  const orgId = org.body.data.id
  const otherOrgId = other.body.data.id
  const campaign = await h.admin('POST', `/orgs/${orgId}/campaigns`, {
    name: 'Spring roofs', status: 'active', sdrs: [{ name: 'Alex Rivera' }], closers: [{ name: 'Sam Chen' }],
  })
  const draft = await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Draft campaign' })
  const otherCampaign = await h.admin('POST', `/orgs/${otherOrgId}/campaigns`, {
    name: 'Other campaign', status: 'active', sdrs: [{ name: 'Pat' }],
  })
  const campaignId = campaign.body.data.id
  return {
    orgId,
    otherOrgId,
    campaignId,
    draftCampaignId: draft.body.data.id,
    otherCampaignId: otherCampaign.body.data.id,
    live: await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 }),
    test: await h.createKey(orgId, { name: 'test', mode: 'test', requests_per_minute: 100000, burst: 100000 }),
    scoped: await h.createKey(orgId, { name: 'scoped', mode: 'live', campaign_ids: [campaignId], requests_per_minute: 100000, burst: 100000 }),
    otherLive: await h.createKey(otherOrgId, { name: 'other', mode: 'live', requests_per_minute: 100000, burst: 100000 }),
  }
}

/** A scratch folder removed by the returned function. */
export function scratchDir(prefix = 'dialer-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}
