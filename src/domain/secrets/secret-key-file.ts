import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../config'
import { keyIdOf, parseSecretKey, SECRET_KEY_BYTES, SECRET_KEY_FORMAT, secretBox, SecretBoxError } from './secret-box'

/** The key file's name inside DIALER_DATA_DIR. */
export const SECRET_KEY_FILE = 'secret.key'

export interface LoadedSecretKey {
  key: Buffer
  /** env: DIALER_SECRET_KEY; file: the data directory's key file; minted: that file, made now; memory: an in-memory database's throwaway key. */
  source: 'env' | 'file' | 'minted' | 'memory'
  /** The key file, when one was read or written. */
  path: string | null
}

/** A value sealed in the database, with the context it was sealed for. */
export interface SealedValue {
  sealed: string
  context: string
}

/**
 * The service's secret key, read once at start-up: DIALER_SECRET_KEY when set (already checked
 * by loadConfig), else `<data dir>/secret.key`, minted on first boot with mode 0600. A key
 * file that is malformed, or that others than its owner may read, stops the start
 * (ConfigError, exit 2): sealed secrets must not open with a key anyone else could have read,
 * nor be sealed afresh under a new key that silently orphans the old ones. So does a key that
 * is not the one the database's sealed values (`sealed`) were sealed with, and a missing key
 * file while any exist (a restore without secret.key): a new key is minted only when nothing
 * is sealed yet. A database in memory (tests) holds nothing past the process, so it gets a
 * throwaway key and no file.
 */
export function loadSecretKey(
  config: { secretKey: string | null; dataDir: string; databasePath: string },
  sealed: () => readonly SealedValue[] = () => [],
): LoadedSecretKey {
  if (config.secretKey !== null) {
    const key = parseSecretKey(config.secretKey)
    if (!key) throw new ConfigError(SECRET_KEY_FORMAT)
    requireOpens(key, sealed(), 'DIALER_SECRET_KEY')
    return { key, source: 'env', path: null }
  }
  if (config.databasePath === ':memory:') return { key: randomBytes(SECRET_KEY_BYTES), source: 'memory', path: null }
  const path = join(config.dataDir, SECRET_KEY_FILE)
  const existing = readKeyFile(path)
  if (existing) {
    requireOpens(existing, sealed(), `the secret key file ${path}`)
    return { key: existing, source: 'file', path }
  }
  const stored = sealed()
  if (stored.length > 0) {
    throw new ConfigError(
      `the secret key file ${path} is missing, but the database holds ${sealedCount(stored)} sealed with key ${sealedBy(stored[0]!)}; ` +
        'restore secret.key from the backup the database came from (mode 0600), or set DIALER_SECRET_KEY to that key. ' +
        'No new key was made: it could not open them (docs/operations.md "Secret key")',
    )
  }
  return mintKeyFile(config.dataDir, path)
}

const sealedCount = (values: readonly SealedValue[]) => `${values.length} carrier auth token${values.length === 1 ? '' : 's'}`
const sealedBy = (value: SealedValue) => value.sealed.split('.')[1] ?? 'unknown'

/** Stops the start when `key` is not the key a stored value was sealed with (a damaged value alone does not). */
function requireOpens(key: Buffer, values: readonly SealedValue[], name: string): void {
  const box = secretBox(key)
  const foreign = values.filter((value) => {
    try {
      box.open(value.sealed, value.context)
      return false
    } catch (error) {
      return error instanceof SecretBoxError && error.reason === 'wrong_key'
    }
  })
  if (foreign.length === 0) return
  throw new ConfigError(
    `${name} (key ${keyIdOf(key)}) does not open the ${sealedCount(foreign)} the database holds, sealed with key ${sealedBy(foreign[0]!)}; ` +
      'restore the key they were sealed with (docs/operations.md "Secret key")',
  )
}

/** The key in an existing file; null when there is no file. */
function readKeyFile(path: string): Buffer | null {
  let mode: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) throw new ConfigError(`the secret key file ${path} is not a regular file; move it aside (restore the key from your backup) or set DIALER_SECRET_KEY`)
    mode = stat.mode & 0o777
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null
    throw error
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      `the secret key file ${path} has mode 0${mode.toString(8)}, readable by others than its owner; ` +
        `run \`chmod 600 ${path}\` (and consider the key exposed: see docs/operations.md "Secret key")`,
    )
  }
  const key = parseSecretKey(readFileSync(path, 'utf8'))
  if (!key) {
    throw new ConfigError(
      `the secret key file ${path} does not hold a key (64 hex characters expected); restore it from your backup, ` +
        'or set DIALER_SECRET_KEY to the key the stored secrets were sealed with',
    )
  }
  return key
}

/** Writes a new key file, 0600 from its creation; a file another process made meanwhile wins. */
function mintKeyFile(dataDir: string, path: string): LoadedSecretKey {
  // A folder made here is the owner's only (mode goes through the umask: set it again).
  if (mkdirSync(dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dataDir, 0o700)
  const key = randomBytes(SECRET_KEY_BYTES)
  let fd: number
  try {
    fd = openSync(path, 'wx', 0o600)
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return { key: readKeyFile(path)!, source: 'file', path }
    throw error
  }
  try {
    // The umask may only take bits away, but set it exactly anyway.
    chmodSync(path, 0o600)
    writeSync(fd, `${key.toString('hex')}\n`)
  } finally {
    closeSync(fd)
  }
  return { key, source: 'minted', path }
}
