import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { buildAdminRequest } from '../../src/cli/admin-cli'
import { usageErrorOf } from './cli-usage-error'

setDefaultTimeout(60_000)

// `dialer admin call supervise`: one POST /api/v1/admin/calls/{id}/supervise.

describe('dialer admin call supervise', () => {
  test('the id in the path, mode and phone in the body', () => {
    expect(buildAdminRequest(['call', 'supervise', 'call-1', '--mode', 'whisper', '--phone', '+13125550160'])).toEqual({
      method: 'POST',
      path: '/calls/call-1/supervise',
      body: { mode: 'whisper', phone: '+13125550160' },
    })
  })

  test('mode and phone are required', () => {
    expect(usageErrorOf(['call', 'supervise', 'call-1', '--mode', 'listen']).message).toContain('--phone')
    expect(usageErrorOf(['call', 'supervise', 'call-1', '--phone', '+13125550160']).message).toContain('--mode')
  })
})
