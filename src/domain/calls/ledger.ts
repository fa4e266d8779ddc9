/**
 * The abandonment ledger's rule (47 CFR 64.1200(a)(7); 16 CFR 310.4(b)(1)(iv), safe harbour
 * 310.4(b)(4)): a call a person answered is abandoned when no representative is connected within
 * 2 seconds. Measured from the carrier's answer (the rule says "the completed greeting"; the
 * answer is earlier, so the ledger is stricter, never looser). docs/calling-rules.md.
 */

/** A live representative must be on the line within this many milliseconds of the answer. */
export const CONNECT_WITHIN_MS = 2_000

/** The most a campaign may abandon of its person-answered calls over 30 days (the rule's 3 %). */
export const ABANDON_RATE_BOUND = 0.03

/** Connected at `connectedAt`: abandoned when that was more than 2 s after the answer. */
export const abandonedOnConnect = (answeredAt: number, connectedAt: number): boolean => connectedAt - answeredAt > CONNECT_WITHIN_MS

/** Ended at `endedAt` with nobody connected: abandoned unless the person hung up inside the 2 s. */
export const abandonedOnEnd = (answeredAt: number, endedAt: number): boolean => endedAt - answeredAt > CONNECT_WITHIN_MS
