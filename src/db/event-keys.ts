/**
 * Stored event ids. An event's id and its place in the events table (`seq`, the table's
 * integer key) are made together: `seq` is the millisecond since EVENT_EPOCH_MS times
 * IDS_PER_MS plus a counter, and the id is a uuid v7 carrying that millisecond and counter, so
 * ids sort as their `seq` does. The table then needs no index on the text id (an id is found
 * by its millisecond's range of `seq`) and none on `created` (old events go by `seq` range):
 * two fewer b-trees written per event (docs/decisions.md, "Events keyed by time").
 * No Drizzle here: the event log makes keys with it and the event store finds them.
 */

/** 2020-01-01: `seq` stays below 2^53 (a JS integer) until 2089. */
export const EVENT_EPOCH_MS = Date.UTC(2020, 0, 1)
export const IDS_PER_MS = 4096

export interface EventKey {
  id: string
  seq: number
}

const STORED_ID = /^evt_[0-9a-f]{32}$/
/** Each counter value as its three hex digits. */
const COUNTERS = Array.from({ length: IDS_PER_MS }, (_, n) => n.toString(16).padStart(3, '0'))

/** The first `seq` of a millisecond (earlier than the epoch counts as the epoch). */
export const firstSeqOf = (ms: number): number => (Math.max(ms, EVENT_EPOCH_MS) - EVENT_EPOCH_MS) * IDS_PER_MS

/**
 * The `seq` range of the millisecond an id names (its first 48 bits, as in any uuid v7):
 * the event with this id, if stored, is in it. Null for a value that is not an event id.
 */
export function seqRangeOf(id: string): { from: number; to: number } | null {
  if (!STORED_ID.test(id)) return null
  const from = firstSeqOf(parseInt(id.slice(4, 16), 16))
  return { from, to: from + IDS_PER_MS - 1 }
}

const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, '0')

/**
 * The ids' last 16 hex digits: the uuid variant (binary 10) then 62 random bits. Taken from a
 * page of random hex made at once, since formatting each id's bits cost as much as its insert's
 * bookkeeping.
 */
function randomTails(): () => string {
  let page = ''
  let next = 0
  return () => {
    if (next + 16 > page.length) {
      page = Buffer.from(crypto.getRandomValues(new Uint8Array(4096))).toString('hex')
      next = 0
    }
    const tail = page.slice(next, next + 16)
    next += 16
    return VARIANT_DIGIT[tail.charCodeAt(0)]! + tail.slice(1)
  }
}
/** A random hex digit (by character code) as the variant digit 8, 9, a or b: its value's two low bits. */
const VARIANT_DIGIT: string[] = []
for (let value = 0; value < 16; value++) VARIANT_DIGIT[value.toString(16).charCodeAt(0)] = (8 + (value & 3)).toString(16)

/**
 * Makes event keys for events stored at a time (the service clock's `created`), never in a
 * millisecond before it. Never goes back either: when the clock does, or a millisecond's
 * IDS_PER_MS are used up, it carries on in the next millisecond. `lastSeq` is the largest
 * stored; the maker starts after that millisecond, so a new id never shares a millisecond with
 * one made by an earlier process (or an older id format).
 */
export function eventKeyMaker(lastSeq: number | null): (created: number) => EventKey {
  let ms = lastSeq === null ? 0 : EVENT_EPOCH_MS + Math.floor(lastSeq / IDS_PER_MS)
  let count = IDS_PER_MS
  /** `evt_`, the millisecond and the version digit: the same for every id of the millisecond. */
  let head = ''
  const tail = randomTails()
  return (created) => {
    const at = Math.max(Math.floor(created), EVENT_EPOCH_MS)
    if (at > ms || count >= IDS_PER_MS) {
      ms = at > ms ? at : ms + 1
      count = 0
      head = `evt_${hex(ms, 12)}7`
    }
    const n = count++
    return { id: head + COUNTERS[n] + tail(), seq: (ms - EVENT_EPOCH_MS) * IDS_PER_MS + n }
  }
}
