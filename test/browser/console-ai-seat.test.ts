import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { createHarness, type Harness, type TestKey } from '../harness'
import { axeFindings, signInAt } from './console-session'
import { launchChromium } from './launch'

setDefaultTimeout(60_000)

/**
 * The AI seat in the console, in Chromium: an owner reads the campaign's agent on its settings
 * page (read only, parameters by name), and a call put on the seat shows the agent's first
 * audio on its page. The service runs in this process (served by Bun.serve) on the fake clock;
 * the carrier's seat reports are told through the call service's carrier events.
 */

const PASSWORD = 'ai seat browser 12345'
const AGENT = {
  url: 'wss://agent.example.com/twilio', parameters: { behaviour: 'end', api_key: 'sk-secret-value' }, first_audio_ms: 1500,
  disclosure: { say: 'This is an AI assistant calling for Acme Roofing.' },
}
const CONSENT = { source: 'web form', agreed_at: '2026-01-01T00:00:00Z', text: 'I agree to be called, including by an AI voice.' }
let h: Harness
let orgId = ''
let campaignId = ''
let callId = ''
let live: TestKey
let server: ReturnType<typeof Bun.serve> | null = null
let browser: Browser | null = null
let base = ''

beforeAll(async () => {
  h = createHarness({ autoDial: true })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'AI spring', status: 'active', sdrs: [{ name: 'Alex' }], requires_consent: true, ai_agent: AGENT })).body.data.id
  expect((await h.admin('POST', `/orgs/${orgId}/users`, { email: 'owner@ai-seat.example', password: PASSWORD, role: 'owner' })).status).toBe(201)
  live = await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  const lead = await h.api('POST', '/leads', { key: live, body: { campaign_id: campaignId, phone: '+12125552009', name: 'Ann Lee', consent: CONSENT, call_now: true } })
  callId = (await h.api('GET', `/calls?lead_id=${lead.body.data.id}`, { key: live })).body.data[0].id
  h.services.calls.carrierEvents.seated!(callId)
  h.services.calls.carrierEvents.agentAudio!(callId, 640)
  await h.services.database.pendingCommit()
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => h.app.handle(request) })
  base = `http://127.0.0.1:${server.port}`
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.stop(true)
  h.close()
})

describe('console: the AI seat', () => {
  test('the settings page shows the agent read only, its parameters by name', async () => {
    const page = await browser!.newPage()
    await signInAt(page, base, { email: 'owner@ai-seat.example', password: PASSWORD }, true)
    await page.goto(`${base}/console/campaigns/${campaignId}?org=${orgId}`)
    const seat = page.getByRole('group', { name: /AI seat/ })
    await seat.getByText(AGENT.url).waitFor()
    const text = (await seat.textContent()) ?? ''
    expect(text).toContain(AGENT.disclosure.say)
    expect(text).toContain('within 1500 ms')
    expect(text).toContain('behaviour, api_key')
    expect(await page.content()).not.toContain('sk-secret-value')
    // Read only: no field of the seat can be edited.
    expect(await seat.locator('input, textarea, select').count()).toBe(0)
    expect(await axeFindings(page)).toEqual([])
    await page.close()
  })

  test('a seated call shows the agent’s first audio', async () => {
    const page = await browser!.newPage()
    await signInAt(page, base, { email: 'owner@ai-seat.example', password: PASSWORD }, true)
    await page.goto(`${base}/console/calls/${callId}?org=${orgId}`)
    await page.getByText('agent’s first audio after 640 ms').waitFor()
    expect(await axeFindings(page)).toEqual([])
    await page.close()
  })
})
