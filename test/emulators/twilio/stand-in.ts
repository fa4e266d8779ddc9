import twilio from 'twilio'
import type { Server } from 'bun'
import { formParams } from '../../../src/telephony/twilio/signature'
import { TwilioEmulator } from './emulator'

/**
 * For the emulator's own tests: an emulator account and a tiny stand-in for the service that
 * answers each callback path with the TwiML a test gives it (by the path's last part), checks
 * every signature with the official validateRequest, and keeps what it got.
 */

export const ACCOUNT = { sid: `AC${'7'.repeat(32)}`, authToken: 'stand-in-token' }
export const CALLER = '+13125550100'

export interface Got {
  path: string
  params: Record<string, string>
}

export interface StandIn {
  emulator: TwilioEmulator
  base: string
  got: Got[]
  badSignatures: string[]
  /** The TwiML answered to callbacks whose path ends in `step` (a function gets the params). */
  answer(step: string, twiml: string | ((params: Record<string, string>) => string)): void
  /** The emulator's REST API as the account. */
  rest(method: 'GET' | 'POST' | 'DELETE', rest: string, form?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>
  /** Places a call: Url is base/<kind>/<id>/answer. */
  place(to: string, path: string, more?: Record<string, string>): Promise<string>
  /** Polls until `check` holds (real ms). */
  until(check: () => boolean, ms?: number): Promise<void>
  stop(): Promise<void>
}

export const twimlOf = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`

export function standIn(speed: number): StandIn {
  const emulator = TwilioEmulator.start({ accounts: [{ ...ACCOUNT, callerIds: [CALLER] }], speed })
  const got: Got[] = []
  const badSignatures: string[] = []
  const answers = new Map<string, string | ((params: Record<string, string>) => string)>()
  let server: Server<undefined>
  const base = () => `http://127.0.0.1:${server.port}`
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      const params = formParams(await req.text()) as Record<string, string>
      const full = base() + url.pathname + url.search
      if (!twilio.validateRequest(ACCOUNT.authToken, req.headers.get('x-twilio-signature') ?? '', full, params)) badSignatures.push(full)
      got.push({ path: url.pathname, params })
      const step = url.pathname.split('/').at(-1) ?? ''
      const answer = answers.get(step)
      if (answer === undefined) return new Response(null, { status: 204 })
      return new Response(typeof answer === 'function' ? answer(params) : answer, { headers: { 'Content-Type': 'text/xml' } })
    },
  })
  const auth = `Basic ${Buffer.from(`${ACCOUNT.sid}:${ACCOUNT.authToken}`).toString('base64')}`
  const self: StandIn = {
    emulator,
    base: base(),
    got,
    badSignatures,
    answer: (step, twiml) => void answers.set(step, twiml),
    async rest(method, rest, form) {
      const r = await fetch(`${emulator.url}/2010-04-01/Accounts/${ACCOUNT.sid}/${rest}`, {
        method, headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: form ? new URLSearchParams(form).toString() : undefined,
      })
      const text = await r.text()
      return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
    },
    async place(to, path, more = {}) {
      const r = await self.rest('POST', 'Calls.json', { To: to, From: CALLER, Url: `${base()}${path}`, StatusCallback: `${base()}${path.replace(/\/[^/]+$/, '/status')}`, ...more })
      if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`)
      return r.body.sid as string
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
