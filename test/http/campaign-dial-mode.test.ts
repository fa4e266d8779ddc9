import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, expectError, type Harness } from '../harness'

setDefaultTimeout(60_000)

/**
 * dial_mode, max_abandon_rate and abandon_message through the admin API (create, PATCH, reads)
 * and the console's campaign settings: malformed or missing where required answers 400
 * invalid_request naming the field, and nothing is saved (the campaign reads as before).
 */

let h: Harness
let orgId = ''
const MESSAGE = { say: 'This is Acme Roofing. Call us back at 212 555 0100.' }
const OWNER = { email: 'owner@dial-mode.example', password: 'owner password 123' }

beforeAll(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
})
afterAll(() => h.close())

const create = (body: object) => h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', sdrs: [{ name: 'Alex' }], ...body })
const campaignCount = async () => (await h.admin('GET', `/orgs/${orgId}/campaigns?limit=100`)).body.data.length
const dialFields = (c: any) => ({ dial_mode: c.dial_mode, max_abandon_rate: c.max_abandon_rate, abandon_message: c.abandon_message })

/** Bodies refused on create and on PATCH, with the param named. */
const BAD: [string, object, string][] = [
  ['an unknown dial_mode', { dial_mode: 'preview' }, 'dial_mode'],
  ['a dial_mode that is a number', { dial_mode: 2 }, 'dial_mode'],
  ['max_abandon_rate 0', { max_abandon_rate: 0 }, 'max_abandon_rate'],
  ['max_abandon_rate above 0.03', { max_abandon_rate: 0.05 }, 'max_abandon_rate'],
  ['max_abandon_rate as a percent', { max_abandon_rate: 3 }, 'max_abandon_rate'],
  ['max_abandon_rate as text', { max_abandon_rate: '0.02' }, 'max_abandon_rate'],
  ['power without abandon_message', { dial_mode: 'power' }, 'abandon_message'],
  ['predictive with abandon_message null', { dial_mode: 'predictive', abandon_message: null }, 'abandon_message'],
  ['a blank say', { dial_mode: 'power', abandon_message: { say: '   ' } }, 'abandon_message.say'],
  ['a plain http audio_url', { dial_mode: 'power', abandon_message: { audio_url: 'http://cdn.example.com/sorry.mp3' } }, 'abandon_message.audio_url'],
  ['an audio_url that is no URL', { dial_mode: 'power', abandon_message: { audio_url: 'sorry.mp3' } }, 'abandon_message.audio_url'],
]

describe('admin API', () => {
  test('defaults: bridge, 0.03, no message', async () => {
    const r = await create({})
    expect(r.status).toBe(201)
    expect(dialFields(r.body.data)).toEqual({ dial_mode: 'bridge', max_abandon_rate: 0.03, abandon_message: null })
  })

  test('power and predictive with a message are saved and read back', async () => {
    const r = await create({ dial_mode: 'predictive', max_abandon_rate: 0.02, abandon_message: MESSAGE })
    expect(r.status).toBe(201)
    const read = await h.admin('GET', `/campaigns/${r.body.data.id}`)
    expect(dialFields(read.body.data)).toEqual({ dial_mode: 'predictive', max_abandon_rate: 0.02, abandon_message: MESSAGE })
    const audio = { audio_url: 'https://cdn.example.com/sorry.mp3' }
    const changed = await h.admin('PATCH', `/campaigns/${r.body.data.id}`, { dial_mode: 'power', abandon_message: audio })
    expect(changed.status).toBe(200)
    expect(dialFields((await h.admin('GET', `/campaigns/${r.body.data.id}`)).body.data)).toEqual({ dial_mode: 'power', max_abandon_rate: 0.02, abandon_message: audio })
  })

  for (const [name, body, param] of BAD) {
    test(`create: ${name} -> 400 ${param}, no campaign`, async () => {
      const before = await campaignCount()
      expectError(await create(body), 400, 'invalid_request', param)
      expect(await campaignCount()).toBe(before)
    })
  }

  test('a message with both say and audio_url, or neither -> 400 abandon_message', async () => {
    for (const message of [{ say: 'Hi', audio_url: 'https://cdn.example.com/a.mp3' }, {}]) {
      const r = await create({ dial_mode: 'power', abandon_message: message })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('invalid_request')
      expect(r.body.error.param).toStartWith('abandon_message')
    }
  })

  for (const [name, body, param] of BAD) {
    test(`PATCH: ${name} -> 400 ${param}, nothing changed`, async () => {
      const id = (await create({ lines: 3 })).body.data.id
      const before = (await h.admin('GET', `/campaigns/${id}`)).body.data
      // Alongside a good change: that is not saved either.
      expectError(await h.admin('PATCH', `/campaigns/${id}`, { lines: 7, ...body }), 400, 'invalid_request', param)
      expect((await h.admin('GET', `/campaigns/${id}`)).body.data).toEqual(before)
    })
  }

  test('PATCH that would leave a power campaign without its message is refused; back to bridge it may go', async () => {
    const id = (await create({ dial_mode: 'power', abandon_message: MESSAGE })).body.data.id
    const before = (await h.admin('GET', `/campaigns/${id}`)).body.data
    expectError(await h.admin('PATCH', `/campaigns/${id}`, { abandon_message: null }), 400, 'invalid_request', 'abandon_message')
    expectError(await h.admin('PATCH', `/campaigns/${id}`, { dial_mode: 'predictive', abandon_message: null }), 400, 'invalid_request', 'abandon_message')
    expect((await h.admin('GET', `/campaigns/${id}`)).body.data).toEqual(before)
    const back = await h.admin('PATCH', `/campaigns/${id}`, { dial_mode: 'bridge', abandon_message: null })
    expect(back.status).toBe(200)
    expect(dialFields(back.body.data)).toEqual({ dial_mode: 'bridge', max_abandon_rate: 0.03, abandon_message: null })
  })
})

describe('console settings', () => {
  async function session() {
    expect((await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })).status).toBe(201)
    const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER),
    }))
    const body = (await r.json()) as any
    return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: body.data.csrf_token as string }
  }

  test('an owner sets the dial mode; bad values answer the API envelope naming the field and change nothing', async () => {
    const s = await session()
    const id = (await create({})).body.data.id
    const patch = async (body: object) => {
      const r = await h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${orgId}/campaigns/${id}`, {
        method: 'PATCH', headers: { 'content-type': 'application/json', cookie: s.cookie, 'x-csrf-token': s.csrf }, body: JSON.stringify(body),
      }))
      await h.services.database.pendingCommit()
      return { status: r.status, body: (await r.json()) as any }
    }
    for (const [, body, param] of BAD) expectError(await patch(body), 400, 'invalid_request', param)
    expect(dialFields((await h.admin('GET', `/campaigns/${id}`)).body.data)).toEqual({ dial_mode: 'bridge', max_abandon_rate: 0.03, abandon_message: null })
    const ok = await patch({ dial_mode: 'power', max_abandon_rate: 0.025, abandon_message: MESSAGE })
    expect(ok.status).toBe(200)
    expect(dialFields(ok.body.data)).toEqual({ dial_mode: 'power', max_abandon_rate: 0.025, abandon_message: MESSAGE })
    expect(dialFields((await h.admin('GET', `/campaigns/${id}`)).body.data)).toEqual({ dial_mode: 'power', max_abandon_rate: 0.025, abandon_message: MESSAGE })
  })
})
