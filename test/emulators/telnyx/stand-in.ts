import type { Server } from 'bun'
import { TelnyxEmulator, type TelnyxEmulatorOptions } from './emulator'
import { formParams } from './telnyx-http'

/**
 * For the emulator's own tests: a Telnyx account and a tiny stand-in for the service that
 * answers each callback path with the TeXML a test gives it (by the path's last part), verifies
 * every signature with WebCrypto Ed25519 against the emulator's public key (as Telnyx's SDK does),
 * and keeps what it got.
 */

export const ACCOUNT = { accountSid: '6a9a7976-012e-45d2-9258-6f5dc68d861e', apiKey: 'KEY0123456789ABCDEF_stand-in', applicationSid: '1568109700606592442' }
export const CALLER = '+13125550100'

export interface TelnyxGot {
  method: string
  path: string
  params: Record<string, string>
  timestamp: string
  signature: string
  /** The signature verified under the emulator's public key. */
  verified: boolean
}

export interface TelnyxStandIn {
  emulator: TelnyxEmulator
  base: string
  got: TelnyxGot[]
  answer(step: string, texml: string | ((params: Record<string, string>) => string)): void
  /** The emulator's REST API as the account: JSON for `json`, else form-encoded. */
  rest(method: 'GET' | 'POST' | 'DELETE', rest: string, body?: Record<string, unknown>, as?: 'json' | 'form', key?: string): Promise<{ status: number; body: Record<string, unknown> }>
  /** Places a call (Url base/<path>, StatusCallback its sibling /status) and returns its CallSid, learned from the emulator's calls. */
  place(to: string, path: string, more?: Record<string, unknown>): Promise<string>
  until(check: () => boolean, ms?: number): Promise<void>
  stop(): Promise<void>
}

export const texmlOf = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`

export function telnyxStandIn(speed: number, options: Partial<TelnyxEmulatorOptions> = {}): TelnyxStandIn {
  const emulator = TelnyxEmulator.start({ accounts: [{ ...ACCOUNT, callerIds: [CALLER] }], speed, ...options })
  const got: TelnyxGot[] = []
  const answers = new Map<string, string | ((params: Record<string, string>) => string)>()
  const key = crypto.subtle.importKey('raw', Buffer.from(emulator.publicKey, 'base64'), { name: 'Ed25519' }, false, ['verify'])
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      const raw = await req.text()
      const timestamp = req.headers.get('telnyx-timestamp') ?? ''
      const signature = req.headers.get('telnyx-signature-ed25519') ?? ''
      const verified = await crypto.subtle.verify('Ed25519', await key, Buffer.from(signature, 'base64'), Buffer.from(`${timestamp}|${raw}`))
      // A GET callback carries its parameters in the query (and signs an empty body).
      const params = formParams(req.method === 'GET' ? url.search.slice(1) : raw) as Record<string, string>
      got.push({ method: req.method, path: url.pathname, params, timestamp, signature, verified })
      const answer = answers.get(url.pathname.split('/').at(-1) ?? '')
      if (answer === undefined) return new Response(null, { status: 200 })
      return new Response(typeof answer === 'function' ? answer(params) : answer, { headers: { 'Content-Type': 'text/xml' } })
    },
  })
  const base = `http://127.0.0.1:${server.port}`
  const self: TelnyxStandIn = {
    emulator,
    base,
    got,
    answer: (step, texml) => void answers.set(step, texml),
    async rest(method, rest, body, as = 'form', apiKey = ACCOUNT.apiKey) {
      const r = await fetch(`${emulator.url}/v2/texml/Accounts/${ACCOUNT.accountSid}/${rest}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': as === 'json' ? 'application/json' : 'application/x-www-form-urlencoded' },
        body: body === undefined ? undefined : as === 'json' ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString(),
      })
      const text = await r.text()
      return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
    },
    async place(to, path, more = {}) {
      const before = new Set(emulator.calls.keys())
      const r = await self.rest('POST', 'Calls', {
        ApplicationSid: ACCOUNT.applicationSid, To: to, From: CALLER, Url: `${base}${path}`, StatusCallback: `${base}${path.replace(/\/[^/]+$/, '/status')}`, ...more,
      }, 'json')
      if (r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`)
      const sid = [...emulator.calls.keys()].find((s) => !before.has(s))
      if (!sid) throw new Error('create: no call')
      return sid
    },
    async until(check, ms = 10_000) {
      const end = Date.now() + ms
      while (!check()) {
        if (Date.now() > end) throw new Error('until: timed out')
        await Bun.sleep(10)
      }
    },
    async stop() {
      await emulator.stop()
      await server.stop(true)
    },
  }
  return self
}
