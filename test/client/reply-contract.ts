/**
 * Checks a reply of the external API against the published OpenAPI document
 * (src/api/openapi.generated.json, the file GET /api/v1/external/openapi.json serves), not
 * against the TypeBox models the routes are written with: a client generated from the
 * document must be able to read every reply the test suite sees (issue 15).
 *
 * test/harness.ts calls `checkReply` after every request; a mismatch throws, so the test
 * fails. For debugging only: DIALER_TEST_CHECK_DOCUMENT=0 turns the check off, =report lists
 * every distinct mismatch when the process exits instead of throwing;
 * DIALER_TEST_CHECK_DOCUMENT_STATS=FILE keeps the counts written to FILE.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const DOCUMENT_FILE = join(import.meta.dir, '../../src/api/openapi.generated.json')
const EXTERNAL_PREFIX = '/api/v1/external'
const OPENAPI_PATH = `${EXTERNAL_PREFIX}/openapi.json`
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

const mode = process.env.DIALER_TEST_CHECK_DOCUMENT ?? '1'
export const documentCheckEnabled = mode !== '0'
const reportOnly = mode === 'report'
/** Mismatches throw (the default). */
export const documentCheckThrows = documentCheckEnabled && !reportOnly
/** report mode: distinct mismatches (route, status, first lines of the reason) and how often. */
const reported = new Map<string, number>()

export const documentCheckStats = {
  /** Replies of documented operations whose status, headers and body were checked. */
  validated: 0,
  /** External API replies to a method and path the document does not have (unknown routes). */
  notInDocument: 0,
  byOperation: new Map<string, number>(),
  notInDocumentRoutes: new Map<string, number>(),
}

interface Operation {
  method: string
  template: string
  pattern: RegExp
  /** Literal segments first when two templates match (`/leads/batch` before `/leads/{id}`). */
  literalSegments: number
  responses: Record<string, any>
  pointer: string
}

interface Loaded {
  document: any
  ajv: Ajv2020
  operations: Operation[]
  validators: Map<string, ValidateFunction>
}

let loaded: Loaded | null = null

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

function load(): Loaded {
  if (loaded) return loaded
  const document = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'))
  // OpenAPI 3.1 schemas are JSON Schema 2020-12. The document is added whole under one id so
  // that `#/components/...` references resolve as they do for any client reading it.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false })
  addFormats(ajv)
  ajv.addSchema(document, 'openapi.json')
  const operations: Operation[] = []
  for (const [template, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method]
      if (!op?.responses) continue
      const segments = template.split('/')
      const pattern = new RegExp(
        '^' + segments.map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/') + '$',
      )
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern,
        literalSegments: segments.filter((seg) => !seg.startsWith('{')).length,
        responses: op.responses,
        pointer: `openapi.json#/paths/${escapePointer(template)}/${method}/responses`,
      })
    }
  }
  operations.sort((a, b) => b.literalSegments - a.literalSegments)
  loaded = { document, ajv, operations, validators: new Map() }
  return loaded
}

/**
 * Follows `$ref`s inside the document (responses and headers may be references); answers the
 * object and the JSON pointer where it lives, so schemas below it can be compiled by reference.
 */
function resolveRef(document: any, value: any, pointer: string): { node: any; pointer: string } {
  let node = value
  for (let depth = 0; node && typeof node.$ref === 'string' && depth < 10; depth++) {
    const ref: string = node.$ref
    if (!ref.startsWith('#/')) throw new Error(`reply check: cannot follow ${ref}`)
    pointer = `openapi.json${ref}`
    node = ref
      .slice(2)
      .split('/')
      .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((parent: any, key) => parent?.[key], document)
  }
  return { node, pointer }
}

const deref = (document: any, value: any) => resolveRef(document, value, '').node

function pickResponse(responses: Record<string, any>, status: number): { key: string; response: any } | null {
  const exact = String(status)
  if (responses[exact]) return { key: exact, response: responses[exact] }
  const range = `${String(status)[0]}XX`
  for (const key of Object.keys(responses)) if (key.toUpperCase() === range) return { key, response: responses[key] }
  if (responses.default) return { key: 'default', response: responses.default }
  return null
}

const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase()

function findMedia(content: Record<string, any>, type: string): { key: string; media: any } | null {
  if (content[type]) return { key: type, media: content[type] }
  const [major] = type.split('/')
  for (const key of Object.keys(content)) {
    const k = key.toLowerCase()
    if (k === `${major}/*` || k === '*/*') return { key, media: content[key] }
  }
  return null
}

function excerpt(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}... (${text.length} characters)` : text
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 12)
    .map((e) => `  ${e.instancePath || '(root)'} ${e.message ?? ''}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''} [${e.schemaPath}]`)
    .join('\n')
}

/** Header values are strings; the simple schemas headers use are checked by hand. */
function headerProblem(value: string, schema: any): string | null {
  if (!schema || typeof schema !== 'object') return null
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
  if (types.includes('integer') || types.includes('number')) {
    const re = types.includes('integer') ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/
    if (!re.test(value)) return `is not ${types.includes('integer') ? 'an integer' : 'a number'}`
    if (typeof schema.minimum === 'number' && Number(value) < schema.minimum) return `is below ${schema.minimum}`
    if (typeof schema.maximum === 'number' && Number(value) > schema.maximum) return `is above ${schema.maximum}`
  }
  if (types.includes('boolean') && value !== 'true' && value !== 'false') return 'is not a boolean'
  if (Array.isArray(schema.enum) && !schema.enum.map(String).includes(value)) return `is not one of ${schema.enum.join(', ')}`
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return `does not match ${schema.pattern}`
  if (typeof schema.const !== 'undefined' && String(schema.const) !== value) return `is not ${schema.const}`
  return null
}

export interface CheckedReply {
  method: string
  /** Path with query, as requested. */
  path: string
  status: number
  headers: Headers
  text: string
}

/**
 * Throws when the reply does not match what the document publishes for its operation:
 * a status it does not list, a required header missing, a body it does not describe or that
 * breaks the schema. Replies outside the external API (admin, health, metrics, signed
 * download links) and to routes the document does not have are not checked.
 */
export function checkReply(reply: CheckedReply): void {
  if (!documentCheckEnabled) return
  try {
    checkAgainstDocument(reply)
  } catch (error) {
    if (!(error instanceof ReportedMismatch)) throw error
  }
}

class ReportedMismatch extends Error {}

function checkAgainstDocument(reply: CheckedReply): void {
  const method = reply.method.toUpperCase()
  const path = reply.path.split('?')[0]!.split('#')[0]!
  if (!path.startsWith(`${EXTERNAL_PREFIX}/`) || path === OPENAPI_PATH) return
  const { document, ajv, operations, validators } = load()
  const operation = operations.find((op) => op.method === method && op.pattern.test(path))
  if (!operation) {
    documentCheckStats.notInDocument++
    const k = `${method} ${path} ${reply.status}`
    documentCheckStats.notInDocumentRoutes.set(k, (documentCheckStats.notInDocumentRoutes.get(k) ?? 0) + 1)
    writeStats()
    return
  }
  const route = `${method} ${operation.template}`
  const fail = (what: string) => {
    if (reportOnly) {
      const k = `${route} ${reply.status}: ${what.split('\n').slice(0, 4).join(' | ')}`
      if (!reported.has(k)) console.warn(`reply mismatch: ${k}`)
      reported.set(k, (reported.get(k) ?? 0) + 1)
      writeStats()
      throw new ReportedMismatch()
    }
    throw new Error(`Reply does not match the published OpenAPI document: ${route} (requested ${method} ${reply.path}) answered ${reply.status}: ${what}\nbody: ${excerpt(reply.text)}`)
  }
  const picked = pickResponse(operation.responses, reply.status)
  if (!picked) return fail(`status ${reply.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`)
  const { node: response, pointer: responsePointer } = resolveRef(document, picked.response, `${operation.pointer}/${escapePointer(picked.key)}`)

  for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
    const h = deref(document, header)
    const value = reply.headers.get(name)
    if (value === null) {
      if (h?.required) fail(`required header ${name} is missing`)
      continue
    }
    const problem = headerProblem(value, deref(document, h?.schema))
    if (problem) fail(`header ${name}: ${JSON.stringify(value)} ${problem}`)
  }

  const content: Record<string, any> | undefined = response.content
  const type = mediaType(reply.headers.get('content-type'))
  if (!content || Object.keys(content).length === 0) {
    if (reply.text.length > 0) fail(`the document describes no body for ${picked.key}, but one came (${type || 'no content type'})`)
    count(route, picked.key)
    return
  }
  const found = findMedia(content, type)
  if (!found) return fail(`content type ${type || '(none)'} is not documented for ${picked.key} (documented: ${Object.keys(content).join(', ')})`)
  if (type === 'application/json' || type.endsWith('+json')) {
    let body: unknown
    try {
      body = JSON.parse(reply.text)
    } catch {
      return fail('the body is not JSON although its content type says so')
    }
    if (found.media.schema !== undefined) {
      const ref = `${responsePointer}/content/${escapePointer(found.key)}/schema`
      let validate = validators.get(ref)
      if (!validate) {
        validate = ajv.compile({ $ref: ref })
        validators.set(ref, validate)
      }
      if (!validate(body)) fail(`${ref.replace('openapi.json#', '')}\n${describeErrors(validate.errors)}`)
    }
  }
  count(route, picked.key)
}

function count(route: string, key: string): void {
  documentCheckStats.validated++
  const k = `${route} ${key}`
  documentCheckStats.byOperation.set(k, (documentCheckStats.byOperation.get(k) ?? 0) + 1)
  writeStats()
}

/**
 * DIALER_TEST_CHECK_DOCUMENT_STATS=FILE: the counts (and, in report mode, the mismatches) are
 * kept written to FILE; `bun test` prints nothing from exit hooks, so a file it is.
 */
const statsFile = process.env.DIALER_TEST_CHECK_DOCUMENT_STATS
function writeStats(): void {
  if (!statsFile) return
  const { validated, notInDocument, byOperation, notInDocumentRoutes } = documentCheckStats
  const lines = [
    `replies checked against the OpenAPI document: ${validated} (${byOperation.size} operation+status pairs); external replies to routes not in it: ${notInDocument}`,
    ...(reportOnly ? [`mismatches: ${reported.size} distinct`, ...[...reported.entries()].sort().map(([k, n]) => `  ${n}\t${k}`)] : []),
    'external replies to routes not in the document (not checked):',
    ...[...notInDocumentRoutes.entries()].sort().map(([k, n]) => `  ${n}\t${k}`),
    'by operation and status:',
    ...[...byOperation.entries()].sort().map(([k, n]) => `  ${n}\t${k}`),
  ]
  writeFileSync(statsFile, lines.join('\n') + '\n')
}
