import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { isUuid } from '../ids'

const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT'

/**
 * Recordings a real carrier made, kept under DATA_DIR/recordings/<call id>.wav (0600, in a
 * 0700 folder). Synchronous fs: a recording is a few hundred kilobytes a minute, written once
 * after its download and read once per signed link; a blocked millisecond is cheaper than the
 * bookkeeping of async writes racing a purge.
 */
export function recordingFiles(dataDir: string) {
  const dir = join(dataDir, 'recordings')
  /** Only our own ids (uuid) name a file: nothing from outside can reach another path. */
  const path = (callId: string): string => {
    if (typeof callId !== 'string' || !isUuid(callId)) throw new Error(`not a call id: ${JSON.stringify(String(callId).slice(0, 64))}`)
    return join(dir, `${callId.toLowerCase()}.wav`)
  }
  return {
    path,
    /**
     * Written to a temporary name, flushed to disk, then renamed: a crash leaves either the
     * whole file or none under the real name (at worst a stray `.tmp`, never read).
     */
    save(callId: string, audio: Uint8Array): void {
      const target = path(callId)
      // mode goes through the umask: set it again when this made the folder.
      if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700)
      const temp = `${target}.${process.pid}.${Bun.randomUUIDv7()}.tmp`
      const fd = openSync(temp, 'wx', 0o600)
      try {
        for (let done = 0; done < audio.byteLength; ) done += writeSync(fd, audio, done)
        fsyncSync(fd)
      } catch (error) {
        closeSync(fd)
        unlinkSync(temp)
        throw error
      }
      closeSync(fd)
      try {
        renameSync(temp, target)
      } catch (error) {
        unlinkSync(temp)
        throw error
      }
    },
    /** The audio, or null when there is no file (a simulator call, or already purged). */
    read(callId: string): Uint8Array | null {
      const file = path(callId)
      try {
        return readFileSync(file)
      } catch (error) {
        if (missing(error)) return null
        throw error
      }
    },
    /** True when a file was removed; false when there was none. */
    remove(callId: string): boolean {
      const file = path(callId)
      try {
        rmSync(file)
        return true
      } catch (error) {
        if (missing(error)) return false
        throw error
      }
    },
  }
}

export type RecordingFiles = ReturnType<typeof recordingFiles>
