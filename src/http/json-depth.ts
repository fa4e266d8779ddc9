/**
 * Limits on a JSON body's shape, checked on the text before JSON.parse builds anything: a
 * deep body costs recursion everywhere a value is walked (Elysia's error printing, the
 * fingerprint), and JSON.parse itself is slow on a very wide object or array (docs/decisions.md).
 */

/** The deepest legitimate body (a batch lead's consent) is 4 levels; 32 leaves room for any API shape. */
export const MAX_JSON_DEPTH = 32
/** The widest legitimate object is a lead with its 50 custom fields. */
export const MAX_OBJECT_MEMBERS = 1000
/** Array items and object members in all: a batch of 60 full leads has under 4,000. */
export const MAX_JSON_VALUES = 20_000

export interface JsonLimits {
  depth: number
  members: number
  values: number
}

export const JSON_LIMITS: JsonLimits = { depth: MAX_JSON_DEPTH, members: MAX_OBJECT_MEMBERS, values: MAX_JSON_VALUES }

export interface JsonShape {
  /** Arrays and objects nested in one another: `1` is 0, `[]` is 1, `{"a":[1]}` is 2. */
  depth: number
  /** The most members of any one object. */
  members: number
  /** Array items and object members in all (the top value not counted). */
  values: number
}

const QUOTE = 34
const BACKSLASH = 92
const COLON = 58
const COMMA = 44
const OPEN_ARRAY = 91
const CLOSE_ARRAY = 93
const OPEN_OBJECT = 123
const CLOSE_OBJECT = 125
// Open containers on the stack: an object's member count (>= 0), or an array, empty so far or not.
const EMPTY_ARRAY = -1
const ARRAY = -2

/**
 * One linear pass over the text, counting brackets outside strings. It stops as soon as a
 * limit is passed (the shape returned then shows that count at limit plus one), so a megabyte
 * of `[` costs 33 characters. Malformed JSON gives some shape; JSON.parse refuses it afterwards.
 */
export function jsonShape(text: string, limits: Partial<JsonLimits> = {}): JsonShape {
  const maxDepth = limits.depth ?? Infinity
  const maxMembers = limits.members ?? Infinity
  const maxValues = limits.values ?? Infinity
  const open: number[] = []
  let depth = 0
  let members = 0
  let values = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    // Whitespace, the only bytes outside strings that are not tokens.
    if (c === 32 || c === 10 || c === 13 || c === 9) continue
    const top = open.length > 0 ? open[open.length - 1]! : 0
    // An array's first item: later ones are counted by their commas.
    if (top === EMPTY_ARRAY && c !== CLOSE_ARRAY) {
      open[open.length - 1] = ARRAY
      if (++values > maxValues) return { depth, members, values }
    }
    if (c === QUOTE) {
      i = endOfString(text, i)
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      open.push(c === OPEN_ARRAY ? EMPTY_ARRAY : 0)
      if (open.length > depth) {
        depth = open.length
        if (depth > maxDepth) return { depth, members, values }
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      open.pop()
    } else if (c === COMMA && top < 0) {
      if (++values > maxValues) return { depth, members, values }
    } else if (c === COLON && top >= 0 && open.length > 0) {
      // Each member of an object has exactly one colon outside strings at its own level.
      open[open.length - 1] = top + 1
      if (top + 1 > members) {
        members = top + 1
        if (members > maxMembers) return { depth, members, values }
      }
      if (++values > maxValues) return { depth, members, values }
    }
  }
  return { depth, members, values }
}

/** The index of the quote closing the string opened at `start` (or the text's end). */
function endOfString(text: string, start: number): number {
  let from = start + 1
  for (;;) {
    const quote = text.indexOf('"', from)
    if (quote < 0) return text.length
    // Escaped when an odd number of backslashes stands right before it.
    let slashes = 0
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++
    if (slashes % 2 === 0) return quote
    from = quote + 1
  }
}
