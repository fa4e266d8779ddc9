import { describe, expect, setDefaultTimeout, test } from 'bun:test'
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
    })
  })

  test('campaign update --ai-agent null turns the seat off', () => {
    expect(buildAdminRequest(['campaign', 'update', 'camp-1', '--ai-agent', 'null'])).toEqual({ method: 'PATCH', path: '/campaigns/camp-1', body: { ai_agent: null } })
  })

  test('a value that is no JSON is a usage error naming the flag', () => {
    expect(usageErrorOf(['campaign', 'update', 'camp-1', '--ai-agent', 'wss://agent.example.com']).message).toContain('--ai-agent')
  })

  test('call get reads the admin call', () => {
    expect(buildAdminRequest(['call', 'get', 'call-1'])).toEqual({ method: 'GET', path: '/calls/call-1', body: undefined })
  })
})
