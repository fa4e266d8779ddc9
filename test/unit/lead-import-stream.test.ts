import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { PERMISSIONS, type Principal } from '../../src/domain/access/permissions'
import { personPrincipal } from '../../src/domain/console/console-access'
import { csvBatches, holdFile, MAX_COLUMNS } from '../../src/domain/leads/csv-stream'
import { IMPORT_CHUNK_ROWS, MAX_IMPORT_ROWS } from '../../src/domain/leads/lead-import'
import { ApiError, errorBody } from '../../src/errors'
import { createHarness, type Harness } from '../harness'

setDefaultTimeout(60_000)

// Issue 25: the lead CSV import streamed (csv-stream.ts), its record's counters and a resume.

const bytes = (text: string) => new TextEncoder().encode(text)

async function collect(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, size = 2): Promise<string[][][]> {
  const out: string[][][] = []
  for await (const batch of csvBatches(source, size)) out.push(batch)
  return out
}

async function refusal(work: () => Promise<unknown>): Promise<ApiError> {
  try {
    await work()
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('csvBatches', () => {
  test('the same reading as before: BOM, quotes, trimmed cells, empty lines skipped, ragged rows; in batches', async () => {
    const out = await collect([bytes('\ufeffphone,name\n"212, 555",Ann\n\n 2125553002 , Bob ,extra\n3\n')])
    // The header rides with the first batch.
    expect(out).toEqual([[['phone', 'name'], ['212, 555', 'Ann'], ['2125553002', 'Bob', 'extra']], [['3']]])
  })

  test('a multi-byte character split between two chunks is read whole', async () => {
    const all = bytes('name\nJosé Müller\n')
    const cut = all.indexOf(0xc3) + 1
    expect((await collect([all.subarray(0, cut), all.subarray(cut)], 10))[0]).toEqual([['name'], ['José Müller']])
  })

  test('bad CSV names the line; bytes that are not UTF-8 are refused; both 400 on body', async () => {
    const quote = await refusal(() => collect([bytes('phone\n2125553001\n"2125553002\n')]))
    expect([quote.code, quote.param]).toEqual(['invalid_request', 'body'])
    expect(quote.message).toContain('line 3')
    const latin1 = await refusal(() => collect([new Uint8Array([0x6e, 0x0a, 0x4a, 0x6f, 0x73, 0xe9, 0x0a])]))
    expect(latin1.message).toContain('UTF-8')
  })

  test('stopping early stops reading the source: 20 MB of one-character lines is not read past what was asked', async () => {
    const line = bytes('1\n'.repeat(32 * 1024))
    let handed = 0
    let closed = false
    async function* source() {
      try {
        yield bytes('phone\n')
        for (let i = 0; i < 320; i++) {
          handed++
          yield line
        }
      } finally {
        closed = true
      }
    }
    let rows = 0
    for await (const batch of csvBatches(source(), 5000)) {
      rows += batch.length
      if (rows > MAX_IMPORT_ROWS + 1) break
    }
    expect(closed).toBe(true)
    // 200,001 rows are about 7 of the 320 chunks; the parser reads a little ahead, never the whole file.
    expect(handed).toBeLessThan(10)
  })

  test('a line of more than MAX_COLUMNS cells is refused while it is read (empty cells too), and a never-ending record once it passes 64 KB', async () => {
    expect((await collect([bytes(`phone${','.repeat(MAX_COLUMNS - 1)}\n1\n`)]))[0]![0]!.length).toBe(MAX_COLUMNS)
    const wide = await refusal(() => collect([bytes(`phone\n${','.repeat(1_000_000)}\n`)]))
    expect([wide.code, wide.param]).toEqual(['invalid_request', 'body'])
    expect(wide.message).toContain('1,000 columns')
    // A record that never ends (one 3 MB field) is refused once it passes 64 KB, not at the end of the file.
    const started = performance.now()
    const long = await refusal(() => collect([bytes(`phone\n"${'x'.repeat(3_000_000)}`)]))
    expect(long.code).toBe('invalid_request')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test('holdFile hashes the bytes as they come', async () => {
    const parts = [bytes('phone\n'), bytes('2125553001\n')]
    const file = await holdFile((async function* () { yield* parts })())
    expect(file.sha256).toBe(createHash('sha256').update('phone\n2125553001\n').digest('hex'))
    expect(file.bytes).toBe(17)
  })

  test('the row limit message keeps its count readable through the envelope masking (no ******00)', () => {
    const message = `The file has more than ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows`
    expect(errorBody(new ApiError('invalid_request', message), null).message).toContain('200,000')
    expect(errorBody(new ApiError('invalid_request', `The file has ${10_400_000} rows`), null).message).toContain('*****')
  })
})

describe('an import record: counters per chunk, resume', () => {
  let h: Harness
  let principal: Principal
  let campaignId = ''
  beforeEach(async () => {
    h = createHarness()
    const orgId = (await h.admin('POST', '/orgs', { name: 'Acme' })).body.data.id
    campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
    principal = personPrincipal(h.services.orgs.get(orgId), { keyId: 'admin', keyName: 'operator', permissions: PERMISSIONS })
  })
  afterEach(() => h.close())

  // Two and a half chunks of rows: unique numbers, but every 10th row a bad number.
  const ROWS = IMPORT_CHUNK_ROWS * 2.5
  const csv = ['phone,name', ...Array.from({ length: ROWS }, (_, i) => (i % 10 === 9 ? `nope${i},Bad` : `+1212${200 + Math.floor(i / 1000)}${String(i % 1000).padStart(4, '0')},Lead ${i}`))].join('\n')
  const run = (text: string) => h.services.leads.importCsv(principal, campaignId, [bytes(text)] as unknown as AsyncIterable<Uint8Array>, { dryRun: false })
  const leadCount = () => (h.services.database.sqlite.query('SELECT count(*) AS n FROM leads').get() as { n: number }).n

  test('a failure mid-file leaves an interrupted record whose counters match the leads written; the same file resumes after them', async () => {
    const insert = h.services.stores.leads.insert
    let inserts = 0
    h.services.stores.leads.insert = (row) => {
      // In the second chunk: the first has committed.
      if (++inserts > IMPORT_CHUNK_ROWS * 1.5) throw new Error('disk gone')
      return insert(row)
    }
    await expect(run(csv)).rejects.toThrow('disk gone')
    h.services.stores.leads.insert = insert
    await h.services.database.pendingCommit()
    const [record] = h.services.imports.list(principal.orgId, 10)
    // The chunk that failed rolled back with its counters: the record counts whole chunks, each matching its leads.
    const done = record!.rowsDone
    expect(record).toMatchObject({ state: 'interrupted', rowsTotal: ROWS, rowsDone: IMPORT_CHUNK_ROWS, rowsImported: done * 0.9, rowsFailed: done * 0.1 })
    expect(leadCount()).toBe(done * 0.9)

    const again = await run(csv)
    expect(again).toMatchObject({ import_id: record!.id, resumed_rows: done, rows: ROWS, imported: ROWS * 0.9, failed: ROWS * 0.1 })
    // Only this run's rows are checked and listed: the first refused is data row done + 9, on line done + 11.
    expect(again.errors[0]!.row).toBe(done + 11)
    expect(again.error_counts).toEqual({ invalid_phone: (ROWS - done) / 10 })
    expect(h.services.imports.get(record!.id)).toMatchObject({ state: 'done', rowsDone: ROWS, rowsImported: ROWS * 0.9, rowsFailed: ROWS * 0.1 })
    expect(leadCount()).toBe(ROWS * 0.9)
  })

  test('a done import sent again is a new import (its rows duplicates); another mapping does not resume', async () => {
    const first = await run('phone\n+12122000001\n')
    const second = await run('phone\n+12122000001\n')
    expect(second.import_id).not.toBe(first.import_id)
    expect(second).toMatchObject({ imported: 0, failed: 1, error_counts: { duplicate_lead: 1 } })
    expect(h.services.imports.list(principal.orgId, 10).map((r) => r.state)).toEqual(['done', 'done'])
  })

  test('a dry run keeps no record; a file refused whole (too many rows) keeps none either', async () => {
    await h.services.leads.importCsv(principal, campaignId, [bytes(csv)] as unknown as AsyncIterable<Uint8Array>, { dryRun: true })
    const tooMany = bytes(`phone\n${'1\n'.repeat(MAX_IMPORT_ROWS + 1)}`)
    const refused = await refusal(() => h.services.leads.importCsv(principal, campaignId, [tooMany] as unknown as AsyncIterable<Uint8Array>, { dryRun: false }))
    expect(refused.message).toContain('200,000')
    expect(h.services.imports.list(principal.orgId, 10)).toEqual([])
  })
})
