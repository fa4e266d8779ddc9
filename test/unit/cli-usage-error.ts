import { expect } from 'bun:test'
import { buildAdminRequest, CliError, EXIT } from '../../src/cli/admin-cli'

/** The usage error (exit 2) a command line is refused with; fails the test when it is accepted. */
export function usageErrorOf(args: string[]): CliError {
  try {
    buildAdminRequest(args)
  } catch (error) {
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).exitCode).toBe(EXIT.usage)
    return error as CliError
  }
  throw new Error(`expected a usage error for ${args.join(' ')}`)
}
