import { setDefaultTimeout } from 'bun:test'
import { describe, expect, test } from 'bun:test'
import { migrate, openDatabase } from '../../src/db/client'
import type { TranscriptLine } from '../../src/db/schema'
import { createStores } from '../../src/db/stores'
import { newId } from '../../src/domain/ids'

setDefaultTimeout(60_000)

function setUp() {
  const database = openDatabase(':memory:')
  migrate(database)
  // Transcripts without their calls: this is about call_transcripts alone.
  database.sqlite.run('PRAGMA foreign_keys = OFF')
  return { database, calls: createStores(database).calls }
}

const line = (at: number, text: string, speaker: TranscriptLine['speaker'] = 'lead'): TranscriptLine => ({ speaker, name: speaker, text, at })

describe('call store: appendTranscript', () => {
  test('the first lines of a call are stored as they are, sorted by time', () => {
    const { calls } = setUp()
    const id = newId()
    expect(calls.transcript(id)).toEqual([])
    expect(calls.appendTranscript(id, [line(20, 'b'), line(10, 'a', 'ai')])).toBe(2)
    expect(calls.transcript(id)).toEqual([line(10, 'a', 'ai'), line(20, 'b')])
  })

  test('later lines merge with the stored ones in time order; the total is returned', () => {
    const { calls } = setUp()
    const id = newId()
    calls.appendTranscript(id, [line(10, 'a'), line(30, 'c')])
    // A carrier may send a line late: it lands in its place.
    expect(calls.appendTranscript(id, [line(40, 'd'), line(20, 'b')])).toBe(4)
    expect(calls.transcript(id).map((l) => l.text)).toEqual(['a', 'b', 'c', 'd'])
    expect(calls.appendTranscript(id, [])).toBe(4)
    expect(calls.transcript(id).map((l) => l.text)).toEqual(['a', 'b', 'c', 'd'])
  })

  test('lines of the same instant keep their arrival order (stored ones first)', () => {
    const { calls } = setUp()
    const id = newId()
    calls.appendTranscript(id, [line(10, 'first'), line(10, 'second')])
    calls.appendTranscript(id, [line(10, 'third'), line(5, 'earlier'), line(10, 'fourth')])
    expect(calls.transcript(id).map((l) => l.text)).toEqual(['earlier', 'first', 'second', 'third', 'fourth'])
  })

  test('after saveTranscript, and only the call\u2019s own lines', () => {
    const { calls } = setUp()
    const id = newId()
    const other = newId()
    calls.saveTranscript(id, [line(10, 'saved')])
    calls.appendTranscript(other, [line(1, 'other')])
    expect(calls.appendTranscript(id, [line(5, 'appended')])).toBe(2)
    expect(calls.transcript(id).map((l) => l.text)).toEqual(['appended', 'saved'])
    expect(calls.transcript(other).map((l) => l.text)).toEqual(['other'])
  })

  test('inside a transaction that rolls back, nothing is appended', () => {
    const { database, calls } = setUp()
    const id = newId()
    calls.appendTranscript(id, [line(10, 'kept')])
    expect(() =>
      database.transaction(() => {
        calls.appendTranscript(id, [line(20, 'lost')])
        throw new Error('rolled back')
      }),
    ).toThrow('rolled back')
    expect(calls.transcript(id).map((l) => l.text)).toEqual(['kept'])
  })
})
