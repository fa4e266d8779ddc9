/**
 * Secrets the admin CLI sends (a carrier's auth token, a console password) come from a file or
 * stdin, never from a flag: a flag shows in `ps` output and shell history. Read at send time,
 * so parsing a command line reads nothing.
 */
import { readFileSync } from 'node:fs'
import { CliError } from './cli-error'

/** The trimmed secret in `file`, or on stdin; throws CliError (exit 2) when it cannot be read or is empty. */
export function readSecret(source: { file?: string; stdin: boolean }, what: string): string {
  let text: string
  try {
    text = source.file !== undefined ? readFileSync(source.file, 'utf8') : readFileSync(0, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : code ?? String(error)
    throw new CliError(`cannot read the ${what} from ${source.file ?? 'stdin'}: ${why}`)
  }
  const secret = text.trim()
  if (secret === '') throw new CliError(`the ${what} in ${source.file ?? 'stdin'} is empty`)
  return secret
}
