import { expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ApiError } from '../../src/errors'

/** The error of class `kind` that `work` throws; fails the test when it returns or throws anything else. */
export function thrownBy<E extends Error>(kind: abstract new (...args: never[]) => E, work: () => unknown): E {
  try {
    work()
  } catch (error) {
    expect(error).toBeInstanceOf(kind)
    return error as E
  }
  throw new Error(`expected a ${kind.name}, nothing was thrown`)
}

/** The refusal `work` throws, or null when it goes through. */
export function refusalOf(work: () => unknown): ApiError | null {
  try {
    work()
    return null
  } catch (error) {
    return error as ApiError
  }
}

/** Runs `work` with a fresh scratch directory, removed afterwards. */
export function inScratch(prefix: string, work: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), prefix))
  try {
    work(root)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
