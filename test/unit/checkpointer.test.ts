import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase, type DatabaseHandle, type OpenOptions } from '../../src/db/client'
import { scratchDir } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const opened: { handle: DatabaseHandle; remove: () => void }[] = []

function setUp(wal: OpenOptions['wal']) {
  const dir = scratchDir('checkpointer-')
  const path = join(dir.path, 'db.sqlite')
  const handle = openDatabase(path, { wal })
  opened.push({ handle, remove: dir.remove })
  handle.sqlite.run('CREATE TABLE t (v TEXT NOT NULL)')
  const walSize = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0)
  /** About 1 MB of WAL in 20 commits. */
  const burst = () => {
    const insert = handle.sqlite.query('INSERT INTO t (v) VALUES (?)')
    for (let i = 0; i < 20; i++) handle.transaction(() => insert.run('x'.repeat(50_000)))
  }
  return { handle, path, walSize, burst }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await Bun.sleep(25)
  return check()
}

afterEach(() => {
  for (const { handle, remove } of opened.splice(0)) {
    handle.close()
    remove()
  }
})

describe('checkpointer worker', () => {
  test('folds the WAL into the database file without the main connection checkpointing', async () => {
    const { path, burst } = setUp({})
    const before = statSync(path).size
    burst()
    // The backstop (100,000 pages) is far off: only the worker can have grown the file.
    expect(await waitUntil(() => statSync(path).size > before + 900_000, 3000)).toBe(true)
  })

  test('once writes pause, a WAL file over the kept size is truncated', async () => {
    const { walSize, burst } = setUp({ keepBytes: 100_000, idleMs: 200 })
    burst()
    expect(walSize()).toBeGreaterThan(900_000)
    expect(await waitUntil(() => walSize() === 0, 3000)).toBe(true)
  })

  test('a WAL file within the kept size is left as it is', async () => {
    const { walSize, burst } = setUp({ keepBytes: 64 * 1024 * 1024, idleMs: 200 })
    burst()
    const size = walSize()
    expect(size).toBeGreaterThan(900_000)
    await Bun.sleep(800)
    // SQLite reuses the file from the start; its size stays.
    expect(walSize()).toBe(size)
  })
})
