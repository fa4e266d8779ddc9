/**
 * Start-up failures an operator can fix (port busy, data directory unusable) as one line and
 * an exit code, instead of a stack trace. Anything not recognised here is a bug and keeps its stack.
 */
import { CliError, EXIT } from './cli-error'

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a file is in the way of the directory',
  EEXIST: 'a file is in the way of the directory',
  EISDIR: 'a directory is in the way of the database file',
}

const SQLITE_REASONS: Record<string, string> = {
  SQLITE_CANTOPEN: 'cannot open or create it (no permission, or a directory in its place)',
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_CORRUPT: 'the database is corrupt; restore a backup',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_FULL: 'the disk is full',
  SQLITE_BUSY: 'another process holds a lock on it',
  SQLITE_LOCKED: 'another process holds a lock on it',
}

/** The data directory or database cannot be used: exit 73. Null when the error is something else. */
export function storageFailure(error: unknown, databasePath: string): CliError | null {
  const e = error as { code?: string; path?: string; name?: string }
  const where = e.path && e.path !== databasePath ? ` (${e.path})` : ''
  const reason = (e.code && FS_REASONS[e.code]) ?? (e.code?.startsWith('SQLITE_IOERR') ? 'I/O error' : e.code && SQLITE_REASONS[e.code])
  if (!reason) return null
  const fix = e.code === 'SQLITE_NOTADB' || e.code === 'SQLITE_CORRUPT' ? 'check DIALER_DATABASE / DIALER_DATA_DIR' : 'set DIALER_DATA_DIR or --data-dir to a directory the service can write'
  return new CliError(`cannot use the database ${databasePath}: ${reason}${where}; ${fix}`, EXIT.storage)
}

/** Bun.serve could not listen: exit 75. Null when the error is something else. */
export function listenFailure(error: unknown, host: string, port: number): CliError | null {
  const code = (error as { code?: string }).code
  const fix = 'set DIALER_PORT or --port'
  switch (code) {
    case 'EADDRINUSE': return new CliError(`port ${port} on ${host} is already in use; ${fix}`, EXIT.listen)
    case 'EACCES': return new CliError(`no permission to listen on port ${port} on ${host} (ports below 1024 need privileges); ${fix}`, EXIT.listen)
    case 'EADDRNOTAVAIL': return new CliError(`cannot listen on ${host}: not an address of this machine; set DIALER_HOST or --host`, EXIT.listen)
    default: return null
  }
}
