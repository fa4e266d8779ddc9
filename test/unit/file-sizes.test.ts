import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * No src/ module over MAX_LINES lines (generated tables, `*.generated.*`, aside): a file that
 * grows past it is split by concern (docs/architecture.md, "Layers").
 */

const ROOT = resolve(import.meta.dir, '../..')
const SRC = join(ROOT, 'src')
const MAX_LINES = 300

/**
 * Files allowed over the limit for now, each with why. Empty it: a file listed here that is
 * back under the limit fails the test too, so the list only shrinks.
 */
const ALLOWED_OVER: Record<string, string> = {}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') && !name.includes('.generated.') ? [path] : []
  })
}

/** Lines as `wc -l` counts them (a last line without a newline counts too). */
function linesOf(path: string): number {
  const text = readFileSync(path, 'utf8')
  if (text.length === 0) return 0
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

const sizes = sourceFiles(SRC).map((path) => ({ file: relative(ROOT, path), lines: linesOf(path) }))

describe('file sizes', () => {
  test('the walk finds the source and skips the generated tables', () => {
    const files = sizes.map((s) => s.file)
    expect(files).toContain('src/app.ts')
    expect(files).toContain('src/domain/queue/ranked-queue.ts')
    expect(files.some((f) => f.includes('.generated.'))).toBe(false)
  })

  test(`no src/ file is over ${MAX_LINES} lines outside the allow-list`, () => {
    const over = sizes.filter((s) => s.lines > MAX_LINES && !(s.file in ALLOWED_OVER)).map((s) => `${s.file}: ${s.lines} lines`)
    expect(over).toEqual([])
  })

  test('every allow-listed file exists and is still over the limit (else remove its entry)', () => {
    const stale = Object.keys(ALLOWED_OVER).filter((file) => {
      const size = sizes.find((s) => s.file === file)
      return size === undefined || size.lines <= MAX_LINES
    })
    expect(stale).toEqual([])
  })
})
