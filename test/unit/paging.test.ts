import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ApiError } from '../../src/errors'
import { listReply, parseTimeBound } from '../../src/http/paging'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const at = (iso: string) => Date.parse(iso)

describe('parseTimeBound: accepted forms', () => {
  test.each([
    ['2026-01-05T15:00:00Z', '2026-01-05T15:00:00.000Z'],
    ['2026-01-05T15:00:00z', '2026-01-05T15:00:00.000Z'],
    ['2026-01-05T15:00:00.123Z', '2026-01-05T15:00:00.123Z'],
    ['2026-01-05T15:00:00+02:00', '2026-01-05T13:00:00.000Z'],
    ['2026-01-05T15:00:00+05:30', '2026-01-05T09:30:00.000Z'],
    ['2026-01-05T15:00:00-0500', '2026-01-05T20:00:00.000Z'],
    // An offset may carry the instant into the next UTC day; the written date still exists.
    ['2026-12-31T23:30:00-01:00', '2027-01-01T00:30:00.000Z'],
    // No offset: UTC, not the server's zone.
    ['2026-01-05T15:00:00', '2026-01-05T15:00:00.000Z'],
    ['2026-01-05T15:00', '2026-01-05T15:00:00.000Z'],
    // Unix seconds.
    ['1767625200', '2026-01-05T15:00:00.000Z'],
    ['0', '1970-01-01T00:00:00.000Z'],
    [' 1767625200 ', '2026-01-05T15:00:00.000Z'],
    // A plain date is midnight UTC.
    ['2026-01-05', '2026-01-05T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('%p -> %s', (value, expected) => {
    expect(parseTimeBound(value, 'created[gte]')).toBe(at(expected))
  })

  test('no offset is UTC even when the process runs in another zone', () => {
    // The cases above pass by luck on a UTC machine; force a zone where local != UTC.
    const saved = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      expect(new Date(Date.parse('2026-01-05T15:00:00')).getTimezoneOffset()).toBe(300)
      expect(parseTimeBound('2026-01-05T15:00:00', 'created[lte]')).toBe(at('2026-01-05T15:00:00Z'))
      expect(parseTimeBound('2026-01-05', 'created[lte]')).toBe(at('2026-01-05T00:00:00Z'))
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })

  test('undefined means no bound', () => {
    expect(parseTimeBound(undefined, 'created[gte]')).toBeUndefined()
  })
})

describe('parseTimeBound: refused values', () => {
  test.each([
    'yesterday',
    '',
    '   ',
    '2026-1-5',
    '1e9',
    '-5',
    '1767625200.5',
    '2026-01-05T25:00:00Z',
    '2026-01-05T15:00:00+2',
    // Dates that do not exist: Date.parse would roll them over.
    '2026-02-29',
    '2026-02-30',
    '2026-02-30T10:00:00Z',
    '2026-13-01',
    '2026-00-10',
    '2026-01-32',
    '2026-04-31',
  ])('%p throws invalid_request naming the param', (value) => {
    for (const param of ['created[gte]', 'created[lte]']) {
      let thrown: unknown
      try {
        parseTimeBound(value, param)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(ApiError)
      const error = thrown as ApiError
      expect(error.code).toBe('invalid_request')
      expect(error.status).toBe(400)
      expect(error.param).toBe(param)
      expect(error.message).toContain(param)
    }
  })
})

describe('listReply', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `id-${i + 1}`, n: i + 1 }))
  const present = (row: { id: string; n: number }) => ({ id: row.id, double: row.n * 2 })

  test('limit + 1 rows: the extra row is dropped and names more', () => {
    const reply = listReply(rows(4), 3, present)
    expect(reply.data).toEqual([
      { id: 'id-1', double: 2 },
      { id: 'id-2', double: 4 },
      { id: 'id-3', double: 6 },
    ])
    // The cursor is the last row shown, not the extra one.
    expect(reply.meta).toEqual({ has_more: true, next_cursor: 'id-3' })
  })

  test('exactly limit rows: last page', () => {
    const reply = listReply(rows(3), 3, present)
    expect(reply.data.map((r) => r.id)).toEqual(['id-1', 'id-2', 'id-3'])
    expect(reply.meta).toEqual({ has_more: false, next_cursor: null })
  })

  test('short page', () => {
    const reply = listReply(rows(1), 3, present)
    expect(reply.data).toEqual([{ id: 'id-1', double: 2 }])
    expect(reply.meta).toEqual({ has_more: false, next_cursor: null })
  })

  test('empty page', () => {
    expect(listReply([], 20, present)).toEqual({ data: [], meta: { has_more: false, next_cursor: null } })
  })

  test('limit 1 with two rows', () => {
    const reply = listReply(rows(2), 1, present)
    expect(reply.data).toEqual([{ id: 'id-1', double: 2 }])
    expect(reply.meta).toEqual({ has_more: true, next_cursor: 'id-1' })
  })
})
