import type { CallRow } from '../../db/stores/call-store'
import type { Stores } from '../../db/stores'
import type { CallSteps } from './call-steps'
import { abandonedOnConnect, abandonedOnEnd } from './ledger'

/**
 * The abandonment ledger of each call (ledger.ts has the rule): `answered_at` once the carrier
 * says a person answered, `connected_at` once a representative reached them, `abandoned` decided
 * at the connection or, when nobody connected, at the end. Carriers may tell these late, twice or
 * in either order (power mode joins the conference before detection says "person"): the first of
 * each is kept and a decision, once made, stands.
 */
export function callLedger(deps: { stores: Pick<Stores, 'calls' | 'transaction'>; update: CallSteps['update'] }) {
  const { stores, update } = deps

  /** What an answer and a connection known together decide (null: not yet). */
  function decided(answeredAt: number | null, connectedAt: number | null, endedAt: number | null): boolean | null {
    if (answeredAt === null) return null
    if (connectedAt !== null) return abandonedOnConnect(answeredAt, connectedAt)
    return endedAt !== null ? abandonedOnEnd(answeredAt, endedAt) : null
  }

  return {
    /** A person answered at `at` (the carrier's answer). A call already over is decided at once. */
    personAnswered(callId: string, at: number): void {
      const row = stores.calls.get(callId)
      // A call the lead made is no telemarketing call: the ledger counts the calls we place.
      if (!row || row.answeredAt !== null || row.direction === 'inbound') return
      stores.transaction(() => update(row, { answeredAt: at, abandoned: decided(at, row.connectedAt, row.status === 'ended' ? row.ended : null) }))
    },

    /** A representative reached the person at `at`. Too late to change a call decided at its end. */
    connected(callId: string, at: number): void {
      const row = stores.calls.get(callId)
      if (!row || row.connectedAt !== null || row.abandoned !== null) return
      stores.transaction(() => update(row, { connectedAt: at, abandoned: decided(row.answeredAt, at, null) }))
    },

    /** The ledger's part of a call's end (written with it): nobody connected decides by the end time. */
    atEnd(row: Pick<CallRow, 'answeredAt' | 'connectedAt' | 'abandoned'>, endedAt: number): Partial<CallRow> {
      if (row.abandoned !== null || row.answeredAt === null) return {}
      return { abandoned: decided(row.answeredAt, row.connectedAt, endedAt) }
    },
  }
}

export type CallLedger = ReturnType<typeof callLedger>
