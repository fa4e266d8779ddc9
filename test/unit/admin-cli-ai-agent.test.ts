import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildAdminRequest } from '../../src/cli/admin-cli'
import { usageErrorOf } from './cli-usage-error'

setDefaultTimeout(60_000)

// `dialer admin campaign create|update --ai-agent JSON` (null turns the seat off) and
// `dialer admin call get` (the admin read with ai_seated and ai_first_audio_ms).

const AGENT = '{"url":"wss://agent.example.com/twilio","disclosure":{"say":"An AI assistant for Acme."},"parameters":{"behaviour":"end"}}'

describe('--ai-agent', () => {
  test('campaign create sends the agent as JSON beside requires_consent', () => {
    expect(buildAdminRequest(['campaign', 'create', '--org', 'org-1', '--name', 'AI spring', '--requires-consent', 'true', '--ai-agent', AGENT])).toEqual({
      method: 'POST',
      path: '/orgs/org-1/campaigns',
      body: { name: 'AI spring', requires_consent: true, ai_agent: JSON.parse(AGENT) },
      // The key flags are read when the command runs (none given here: the body as built).
      complete: expect.any(Function),
    })
  })

  test('campaign update --ai-agent null turns the seat off', () => {
    const request = buildAdminRequest(['campaign', 'update', 'camp-1', '--ai-agent', 'null'])
    expect(request).toEqual({ method: 'PATCH', path: '/campaigns/camp-1', body: { ai_agent: null }, complete: expect.any(Function) })
    expect((request as { complete: () => unknown }).complete()).toEqual({ ai_agent: null })
  })

  test('--ai-agent-key-file puts the key in ai_agent.api_key when the command runs; without --ai-agent, or with both sources, a usage error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dialer-agent-key-'))
    const file = join(dir, 'key')
    writeFileSync(file, 'sk-test-key-0123\n')
    const request = buildAdminRequest(['campaign', 'create', '--org', 'org-1', '--name', 'AI', '--ai-agent', '{"kind":"openai_realtime","model":"m"}', '--ai-agent-key-file', file]) as { body: unknown; complete: () => unknown }
    // The key is not read at parse time.
    expect(request.body).toEqual({ name: 'AI', ai_agent: { kind: 'openai_realtime', model: 'm' } })
    expect(request.complete()).toEqual({ name: 'AI', ai_agent: { kind: 'openai_realtime', model: 'm', api_key: 'sk-test-key-0123' } })
    expect(usageErrorOf(['campaign', 'update', 'camp-1', '--ai-agent-key-file', file]).message).toContain('--ai-agent')
    expect(usageErrorOf(['campaign', 'update', 'camp-1', '--ai-agent', '{}', '--ai-agent-key-file', file, '--ai-agent-key-stdin']).message).toContain('not both')
    rmSync(dir, { recursive: true, force: true })
  })

  test('a value that is no JSON is a usage error naming the flag', () => {
    expect(usageErrorOf(['campaign', 'update', 'camp-1', '--ai-agent', 'wss://agent.example.com']).message).toContain('--ai-agent')
  })

  test('call get reads the admin call', () => {
    expect(buildAdminRequest(['call', 'get', 'call-1'])).toEqual({ method: 'GET', path: '/calls/call-1', body: undefined })
  })
})
