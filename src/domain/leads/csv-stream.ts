import { CsvError, Parser } from 'csv-parse'
import { invalid } from '../../errors'

/**
 * A lead CSV file read as a stream: its bytes in slices, parsed record by record (csv-parse's
 * stream API, its Parser written a slice at a time and read dry at once: no promise per
 * record), handed on in batches between which the caller gives the event loop back. Neither
 * the file as one string nor all its records are ever held; the file's bytes are held only by
 * `holdFile` (a real import reads them twice: counted and checked first, then imported).
 */

// Line ends named, not discovered: csv-parse's discovery re-scans its buffer while a line has
// none, which made a long line cost about 1 µs a byte (a 64 KB line, 80 ms of the event loop).
const CSV_OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, max_record_size: 64 * 1024, record_delimiter: ['\r\n', '\n', '\r'] }
/** The parser takes at most this much at once: a slice of one-character lines is ~4,000 records, a ms or two. */
const SLICE = 8 * 1024
/** The event loop is given back at least every this many slices, even inside one long record. */
const SLICES_PER_TURN = 2
/** More columns than a lead can use: empty cells cost the parser without counting toward max_record_size. */
export const MAX_COLUMNS = 1000
const tooManyColumns = () => invalid(`A line of the file has more than ${MAX_COLUMNS.toLocaleString('en-US')} columns; a lead file has a column per lead field.`, 'body')

export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** The file as it came (≤ 20 MB, checked by the caller's source), with its SHA-256 computed on the way. */
export interface HeldFile {
  chunks: Uint8Array[]
  bytes: number
  sha256: string
}

export async function holdFile(source: AsyncIterable<Uint8Array>): Promise<HeldFile> {
  const hasher = new Bun.CryptoHasher('sha256')
  const chunks: Uint8Array[] = []
  let bytes = 0
  for await (const chunk of source) {
    hasher.update(chunk)
    chunks.push(chunk)
    bytes += chunk.byteLength
  }
  return { chunks, bytes, sha256: hasher.digest('hex') }
}

/** The source in slices of at most SLICE bytes, checked to be UTF-8 on the way (400 otherwise). */
async function* slices(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const check = (bytes?: Uint8Array) => {
    try {
      utf8.decode(bytes, { stream: bytes !== undefined })
    } catch {
      throw invalid('The file is not UTF-8 text; save the spreadsheet as "CSV UTF-8".', 'body')
    }
  }
  for await (const chunk of source) {
    for (let at = 0; at < chunk.byteLength; at += SLICE) {
      const slice = chunk.subarray(at, at + SLICE)
      check(slice)
      yield slice
    }
  }
  check()
}

/** A parser error as the 400 that names the line; the source's own refusals (413, UTF-8) as they are. */
function readable(error: unknown): unknown {
  if (!(error instanceof CsvError)) return error
  const line = (error as CsvError & { lines?: number }).lines
  return invalid(`The file is not CSV this service can read${line ? ` (line ${line})` : ''}: ${error.message.slice(0, 200)}`, 'body')
}

/**
 * The file's records in batches of `size` rows, the header riding with the first batch (so it
 * holds size + 1). The caller stops reading when it likes (a row limit): the rest of the source
 * is then never read.
 */
export async function* csvBatches(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number): AsyncGenerator<string[][]> {
  const parser = new Parser(CSV_OPTIONS)
  // Failures are read from `errored` after each write; the event would otherwise go unhandled.
  parser.on('error', () => {})
  let batch: string[][] = []
  let full = size + 1
  // Everything the parser holds, in batches; then its error, if it failed.
  function* drain(): Generator<string[][]> {
    for (let record: string[] | null; (record = parser.read() as string[] | null) !== null;) {
      if (record.length > MAX_COLUMNS) throw tooManyColumns()
      batch.push(record)
      if (batch.length >= full) {
        yield batch
        batch = []
        full = size
      }
    }
    if (parser.errored) throw readable(parser.errored)
  }
  try {
    // A slice goes in only once the records before it are taken: the source is read no further ahead.
    let written = 0
    for await (const slice of slices(source)) {
      parser.write(slice)
      // The record being read (csv-parse's state): a line of a million commas is refused while it is read.
      if ((parser as unknown as { state: { record: unknown[] } }).state.record.length > MAX_COLUMNS) throw tooManyColumns()
      yield* drain()
      if (++written % SLICES_PER_TURN === 0) await nextTurn()
    }
    parser.end()
    // The last record and an unclosed quote come from the parser's flush.
    await nextTurn()
    yield* drain()
    if (batch.length > 0) yield batch
  } finally {
    parser.destroy()
  }
}
