/** `--ai-agent-key-file` / `--ai-agent-key-stdin` of `dialer admin campaign create|update`: the built-in agent's API key, never a flag value (secret-input.ts). */
import type { FieldKind } from './field-kind'
import { CliError, EXIT } from './cli-error'
import { readSecret } from './secret-input'

export const AGENT_KEY_FLAGS: Record<string, FieldKind> = { ai_agent_key_file: 'string', ai_agent_key_stdin: 'switch' }

export const AGENT_KEY_NOTES: Record<string, string> = {
  ai_agent_key_file: 'a file holding the openai_realtime agent\u2019s API key (with --ai-agent; keeps it out of ps and shell history)',
  ai_agent_key_stdin: 'read the openai_realtime agent\u2019s API key from stdin (with --ai-agent)',
}

/** The body without the key source flags (withAgentKey reads the key when the command runs). */
export function agentKeyBody(fields: Record<string, unknown>): Record<string, unknown> {
  const { ai_agent_key_file: file, ai_agent_key_stdin: stdin, ...body } = fields
  if (file !== undefined && stdin === true) throw new CliError('give --ai-agent-key-file or --ai-agent-key-stdin, not both', EXIT.usage)
  const agent = body.ai_agent
  if ((file !== undefined || stdin === true) && (typeof agent !== 'object' || agent === null || Array.isArray(agent))) {
    throw new CliError('--ai-agent-key-file and --ai-agent-key-stdin go with --ai-agent \'{"kind":"openai_realtime",...}\'', EXIT.usage)
  }
  return body
}

export function withAgentKey(fields: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  if (fields.ai_agent_key_file === undefined && fields.ai_agent_key_stdin !== true) return body
  const apiKey = readSecret({ file: fields.ai_agent_key_file as string | undefined, stdin: fields.ai_agent_key_stdin === true }, 'AI agent key')
  return { ...body, ai_agent: { ...(body.ai_agent as Record<string, unknown>), api_key: apiKey } }
}
