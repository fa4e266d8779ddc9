/** `dialer admin user ...`: console accounts. The password comes from a file or stdin (secret-input.ts), or is minted. */
import type { FieldKind } from './field-kind'
import { CliError, EXIT } from './cli-error'
import { readSecret } from './secret-input'

const common: Record<string, FieldKind> = { name: 'string', role: 'string', password_file: 'string', password_stdin: 'switch' }
export const USER_CREATE_FLAGS: Record<string, FieldKind> = { email: 'string', ...common }
export const USER_UPDATE_FLAGS: Record<string, FieldKind> = { ...common, disabled: 'bool' }

export const USER_NOTES: Record<string, string> = {
  email: 'the address the person signs in with',
  role: 'owner (manages keys, webhooks, DNC, campaigns) or sdr (reads, files outcomes)',
  password_file: 'a file holding the password (12 to 200 characters)',
  password_stdin: 'read the password from stdin',
}

/** The body without the password source flags (withPassword reads it when the command runs). */
export function userBody(fields: Record<string, unknown>): Record<string, unknown> {
  if (fields.password_file !== undefined && fields.password_stdin === true) {
    throw new CliError('give --password-file or --password-stdin, not both', EXIT.usage, 'Leave both out to have a password made and shown once.')
  }
  const { password_file: _file, password_stdin: _stdin, ...body } = fields
  return body
}

export function withPassword(fields: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  if (fields.password_file === undefined && fields.password_stdin !== true) return body
  return { ...body, password: readSecret({ file: fields.password_file as string | undefined, stdin: fields.password_stdin === true }, 'password') }
}
