import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { adminBinary } from './admin-binary'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * dial_mode, max_abandon_rate and abandon_message on the compiled binary, started from an empty
 * folder: the admin API and the CLI save them and read them back; malformed, or power and
 * predictive without a message (on create, or a change that would leave one without it),
 * answer 400 invalid_request naming the field, and nothing is saved.
 */

const ADMIN = 'dial-mode-binary-admin-token-0123456789'
const MESSAGE = { say: 'This is Acme Roofing. Call us back at 212 555 0100.' }

const service = adminBinary('dialer-dial-mode-', ADMIN)
const { admin, cli } = service
let orgId = ''

beforeAll(async () => {
  await service.start()
  orgId = (await admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
}, 120_000)

afterAll(() => service.stop())

const dialFields = (c: any) => ({ dial_mode: c.dial_mode, max_abandon_rate: c.max_abandon_rate, abandon_message: c.abandon_message })
const campaigns = async () => (await admin('GET', `/orgs/${orgId}/campaigns?limit=100`)).body.data.length

describe('dial mode settings on the binary', () => {
  test('create and PATCH save them; reads show them', async () => {
    const made = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Seated', sdrs: [{ name: 'Alex' }], dial_mode: 'predictive', max_abandon_rate: 0.02, abandon_message: MESSAGE })
    expect(made.status).toBe(201)
    const read = await admin('GET', `/campaigns/${made.body.data.id}`)
    expect(dialFields(read.body.data)).toEqual({ dial_mode: 'predictive', max_abandon_rate: 0.02, abandon_message: MESSAGE })
    const changed = await admin('PATCH', `/campaigns/${made.body.data.id}`, { dial_mode: 'power' })
    expect(changed.status).toBe(200)
    expect(dialFields((await admin('GET', `/campaigns/${made.body.data.id}`)).body.data)).toEqual({ dial_mode: 'power', max_abandon_rate: 0.02, abandon_message: MESSAGE })
  })

  test('bad or missing values: 400 naming the field, nothing saved', async () => {
    const cases: [object, string][] = [
      [{ dial_mode: 'preview' }, 'dial_mode'],
      [{ max_abandon_rate: 0.05 }, 'max_abandon_rate'],
      [{ max_abandon_rate: 0 }, 'max_abandon_rate'],
      [{ dial_mode: 'power' }, 'abandon_message'],
      [{ dial_mode: 'predictive', abandon_message: null }, 'abandon_message'],
      [{ dial_mode: 'power', abandon_message: { say: '  ' } }, 'abandon_message.say'],
      [{ dial_mode: 'power', abandon_message: { audio_url: 'http://cdn.example.com/sorry.mp3' } }, 'abandon_message.audio_url'],
    ]
    const before = await campaigns()
    for (const [body, param] of cases) {
      const r = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Bad', sdrs: [{ name: 'Alex' }], ...body })
      expect({ body, status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ body, status: 400, code: 'invalid_request', param })
    }
    expect(await campaigns()).toBe(before)
    const id = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Power', sdrs: [{ name: 'Alex' }], dial_mode: 'power', abandon_message: MESSAGE })).body.data.id
    const saved = (await admin('GET', `/campaigns/${id}`)).body.data
    // The campaign has its message: a change to power alone is no error here; clearing the message is.
    const patches = [...cases.filter(([body]) => JSON.stringify(body) !== '{"dial_mode":"power"}'), [{ abandon_message: null }, 'abandon_message'] as [object, string]]
    for (const [body, param] of patches) {
      const r = await admin('PATCH', `/campaigns/${id}`, { lines: 9, ...body })
      expect({ body, status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ body, status: 400, code: 'invalid_request', param })
    }
    expect((await admin('GET', `/campaigns/${id}`)).body.data).toEqual(saved)
  })

  test('the CLI flags: --dial-mode, --max-abandon-rate, --abandon-message', async () => {
    const made = cli(['campaign', 'create', '--org', orgId, '--name', 'From CLI', '--sdrs', 'Alex', '--dial-mode', 'power', '--max-abandon-rate', '0.015', '--abandon-message', JSON.stringify(MESSAGE)])
    expect(made.err).toBe('')
    expect(made.code).toBe(0)
    const id = JSON.parse(made.out).data.id
    expect(dialFields((await admin('GET', `/campaigns/${id}`)).body.data)).toEqual({ dial_mode: 'power', max_abandon_rate: 0.015, abandon_message: MESSAGE })
    const bad = cli(['campaign', 'update', id, '--abandon-message', 'null'])
    // 4: the service answered 4xx.
    expect(bad.code).toBe(4)
    expect(bad.err).toContain('param abandon_message')
    expect(dialFields((await admin('GET', `/campaigns/${id}`)).body.data)).toEqual({ dial_mode: 'power', max_abandon_rate: 0.015, abandon_message: MESSAGE })
  })
})
