import { expect, setDefaultTimeout, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Issue 15: bunfig.toml's `timeout` was silently ignored, and a preloaded setDefaultTimeout
// reaches only the first file, so any test past Bun's own 5 s default failed on a loaded
// machine. Each file sets its own default; these tests keep it that way.
const testDir = join(import.meta.dir, '..')

test('every test file sets its default timeout', () => {
  const files = (readdirSync(testDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts'))
  expect(files.length).toBeGreaterThan(50)
  const missing = files.filter((f) => !/^setDefaultTimeout\(\d[\d_]*\)$/m.test(readFileSync(join(testDir, f), 'utf8')))
  expect(missing).toEqual([])
})

test('the default in force here is above Bun\'s 5 s', async () => {
  const started = performance.now()
  await Bun.sleep(5_200)
  expect(performance.now() - started).toBeGreaterThan(5_000)
})
