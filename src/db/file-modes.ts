import { chmodSync, closeSync, mkdirSync, openSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { logger } from '../log'

/**
 * The database holds leads, key hashes and sealed carrier tokens: its files are the owner's
 * only (0600, folder 0700), whatever the umask. SQLite would create them 0644 less the umask.
 */
export const PRIVATE_FILE = 0o600
export const PRIVATE_DIR = 0o700

const code = (error: unknown) => (error as { code?: string } | null)?.code

/** Makes a missing folder 0700 (mkdir's mode goes through the umask: set it again). */
export function makePrivateDir(dir: string): void {
  if (mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR }) !== undefined) chmodSync(dir, PRIVATE_DIR)
}

/**
 * Creates the file empty and 0600 when it does not exist yet (SQLite then opens it as it is;
 * its -wal and -shm files take the database file's mode). An existing file is left alone.
 */
export function createPrivateFile(path: string): void {
  makePrivateDir(dirname(path))
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE))
    chmodSync(path, PRIVATE_FILE)
  } catch (error) {
    if (code(error) !== 'EEXIST') throw error
  }
}

/** Sets 0600 on the database file and its -wal and -shm files, those that exist (older installs made them 0644). */
export function restrictDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, PRIVATE_FILE)
    } catch (error) {
      if (code(error) === 'ENOENT') continue
      // Another user's file (a root-run command on the service's database): warn, do not fail.
      logger.warn('database_file_mode_unchanged', { file, error: code(error) ?? String(error) })
    }
  }
}

/**
 * Creates `target` empty and 0600, then lets `write` fill it (VACUUM INTO accepts an empty
 * file); a failed write leaves no empty file behind.
 */
export function writePrivateBackup(target: string, write: () => void): void {
  closeSync(openSync(target, 'wx', PRIVATE_FILE))
  try {
    chmodSync(target, PRIVATE_FILE)
    write()
  } catch (error) {
    rmSync(target, { force: true })
    throw error
  }
}
