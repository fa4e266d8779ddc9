/**
 * Schema clean-up for the OpenAPI 3.1 document: what TypeBox and @elysiajs/openapi write that
 * a 3.1 reader (openapi-typescript, redocly, Ajv 2020) takes differently from what the service
 * does. Each rewrite keeps the meaning of the TypeBox model it comes from.
 */
import type { TSchema } from '@sinclair/typebox'

export type Json = Record<string, any>

/** A TypeBox schema as plain JSON (symbols and functions dropped), cleaned like the rest. */
export const fromTypeBox = (schema: TSchema): Json => normalizeSchema(JSON.parse(JSON.stringify(schema)))

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SCHEMA_ONES = ['items', 'additionalProperties', 'unevaluatedProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']
/** Keywords of our own (read by the service's error wording), not part of the published document. */
const INTERNAL = ['x-param']

const isNumeric = (s: Json) => s.type === 'integer' || s.type === 'number'
/** Elysia's query/path coercion: `anyOf [string (format integer|numeric, default 0), integer|number]`. */
const isCoercedNumber = (s: Json) =>
  Array.isArray(s.anyOf) && s.anyOf.length === 2 &&
  s.anyOf.some((b: Json) => b.type === 'string' && (b.format === 'integer' || b.format === 'numeric')) &&
  s.anyOf.some(isNumeric)

/**
 * Rewrites one schema (in place, children first) and returns it:
 * - no `nullable` (an OpenAPI 3.0 keyword): null is a type (`type: [T, "null"]`) or an `anyOf` branch;
 * - a null-able `enum`/`const` lists null among its values, so `null` validates;
 * - the string branch Elysia adds to a query integer is dropped: the parameter is an integer;
 * - a union of literals of one type becomes an `enum`.
 */
export function normalizeSchema(s: Json): Json {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return s
  delete s.nullable
  for (const key of INTERNAL) delete s[key]
  for (const key of SCHEMA_MAPS) {
    if (s[key] && typeof s[key] === 'object') for (const name of Object.keys(s[key])) normalizeSchema(s[key][name])
  }
  for (const key of SCHEMA_LISTS) if (Array.isArray(s[key])) s[key].forEach(normalizeSchema)
  for (const key of SCHEMA_ONES) if (s[key] && typeof s[key] === 'object') normalizeSchema(s[key])

  if (isCoercedNumber(s)) {
    const { anyOf, ...outer } = s
    const numeric = anyOf.find(isNumeric)
    for (const key of Object.keys(s)) delete s[key]
    Object.assign(s, outer, numeric)
  }
  if (Array.isArray(s.anyOf)) {
    const branches: Json[] = s.anyOf
    const literals = branches.filter((b) => 'const' in b)
    const nulls = branches.filter((b) => b.type === 'null' && Object.keys(b).length === 1)
    const types = new Set(literals.map((b) => b.type))
    if (literals.length > 0 && literals.length + nulls.length === branches.length && types.size === 1) {
      // ['a', 'b'] or ['a', 'b', null]: one enum.
      const [type] = [...types]
      delete s.anyOf
      s.type = nulls.length ? [type, 'null'] : type
      s.enum = [...literals.map((b) => b.const), ...(nulls.length ? [null] : [])]
    } else if (branches.length === 2 && nulls.length === 1) {
      // Nullable(X) with X a plain typed schema (no reference, no union): `type: [X, "null"]`.
      const other = branches.find((b) => !nulls.includes(b))!
      if (typeof other.type === 'string' && !other.$ref && !other.anyOf && !other.oneOf && !other.allOf) {
        delete s.anyOf
        const { type, ...rest } = other
        Object.assign(s, rest, { ...s, type: [type, 'null'] })
        if (Array.isArray(other.enum)) s.enum = [...other.enum, null]
        if ('const' in other) {
          s.enum = [other.const, null]
          delete s.const
        }
      }
    }
  }
  const nullable = Array.isArray(s.type) && s.type.includes('null')
  if (nullable && Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null]
  if (nullable && 'const' in s) {
    s.enum = s.const === null ? [null] : [s.const, null]
    delete s.const
  }
  return s
}

/** Every `default` in a schema tree, with the schema it sits on (for the tests). */
export function* defaultsIn(node: unknown, path = '#'): Generator<{ path: string; schema: Json }> {
  if (!node || typeof node !== 'object') return
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* defaultsIn(node[i], `${path}/${i}`)
    return
  }
  const obj = node as Json
  if ('default' in obj && ('type' in obj || 'enum' in obj || 'anyOf' in obj)) yield { path, schema: obj }
  for (const [key, value] of Object.entries(obj)) yield* defaultsIn(value, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
}
