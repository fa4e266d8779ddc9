import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The layering, read from the source (docs/architecture.md "Import rules"): the domain imports
 * no HTTP, API, console, admin or CLI module and not the service wiring, and no two src/ modules
 * import each other, even through others. Type-only imports count: the rule is about which
 * layer knows which, not about what runs.
 */

const ROOT = resolve(import.meta.dir, '../..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** Static imports and re-exports (type-only ones too), side-effect imports and import('...') of a literal. */
export function importsOf(code: string): string[] {
  const found: string[] = []
  const patterns = [
    /^\s*import\s+(?:type\s+)?[^'";]*?\s+from\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /^\s*export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.push(match[1]!)
  return found
}

/** The src/ file a relative specifier names, or null for a package (or a non-source asset). */
function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null
  const base = resolve(dirname(from), specifier)
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return null
}

const files = sourceFiles(SRC)
const rel = (path: string) => relative(ROOT, path)
const graph = new Map<string, string[]>(
  files.map((file) => [rel(file), [...new Set(importsOf(readFileSync(file, 'utf8')).map((s) => resolveImport(file, s)).filter((p): p is string => p !== null).map(rel))]]),
)

/** Strongly connected components of more than one module (or a module importing itself): the cycles. */
function cycles(edges: Map<string, string[]>): string[][] {
  let index = 0
  const indexOf = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string) => {
    indexOf.set(node, index)
    low.set(node, index)
    index++
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indexOf.get(next)!))
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || edges.get(node)?.includes(node)) found.push(component.sort())
    }
  }
  for (const node of [...edges.keys()].sort()) if (!indexOf.has(node)) visit(node)
  return found
}

const FORBIDDEN_FOR_DOMAIN = ['src/http/', 'src/api/', 'src/console/', 'src/admin/', 'src/cli/', 'src/services.ts', 'src/app.ts', 'src/main.ts']

describe('import rules', () => {
  test('the scanner reads every form of import the code uses', () => {
    const code = [
      "import { a } from './a'",
      "import type { B } from '../b'",
      'import {\n  c,\n  type D,\n} from "./c"',
      "import * as e from './e'",
      "import './f.css'",
      "export { g } from './g'",
      "export type { H } from './h'",
      "export * from './i'",
      "const j = await import('./j')",
      "import { Elysia } from 'elysia'",
      "export const k = 'from here'",
    ].join('\n')
    expect(importsOf(code)).toEqual(['./a', '../b', './c', './e', 'elysia', './f.css', './g', './h', './i', './j'])
    // Enough of the tree is read for the rules below to mean something.
    expect(files.length).toBeGreaterThan(200)
    expect(graph.get('src/services.ts')!.length).toBeGreaterThan(20)
  })

  test('the domain imports no HTTP, API, console, admin or CLI module and not the wiring', () => {
    const broken: string[] = []
    for (const [file, imports] of graph) {
      if (!file.startsWith('src/domain/')) continue
      for (const target of imports) {
        if (FORBIDDEN_FOR_DOMAIN.some((layer) => target === layer || target.startsWith(layer))) broken.push(`${file} -> ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  test('no import cycles among src/ modules (type-only imports included)', () => {
    expect(cycles(graph)).toEqual([])
  })

  test('the cycle finder finds a cycle', () => {
    const edges = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', ['e']]])
    expect(cycles(edges)).toEqual([['a', 'b', 'c'], ['e']])
  })
})
