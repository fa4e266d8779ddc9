/**
 * Exit codes people script against (README "Command line"). The admin commands use 0-5;
 * `serve` adds the start-up failures, chosen from sysexits.h so they do not clash.
 */
export const EXIT = {
  ok: 0,
  /** Anything unexpected: a bug, or a reply that is not from Dialer. */
  failure: 1,
  /** Bad arguments, unknown command or flag, bad flag value, bad configuration. */
  usage: 2,
  /** The service could not be reached: connection refused, DNS failure, timeout. */
  unreachable: 3,
  /** The service answered 4xx. */
  rejected: 4,
  /** The service answered 5xx. */
  serverError: 5,
  /** `serve`: lost a grouped commit while running (src/db/client.ts). */
  commitLost: 70,
  /** `serve`: the data directory or database cannot be created or opened. */
  storage: 73,
  /** `serve`: cannot listen (port in use...); worth a retry, so systemd restarts it. */
  listen: 75,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** An error the CLI reports as one line (and an optional hint line), then exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
    readonly hint?: string,
  ) {
    super(message)
    this.name = 'CliError'
  }
}
