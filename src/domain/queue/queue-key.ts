/** The dial queues' ordering key: priority class, then the time the lead was put in line. */

/** 2**44 ms after the epoch is in the year 2527, and 3 * 2**44 < 2**53 keeps keys exact integers. */
const TIME_SPAN = 2 ** 44

/**
 * Queue key: priority class first (0 call_now, 1 due callback, 2 the rest), then time (unix ms).
 * Throws RangeError if `at` is not an integer in [0, 2**44), or `priority` is not 0, 1 or 2.
 */
export function queueKey(priority: 0 | 1 | 2, at: number): number {
  if (priority !== 0 && priority !== 1 && priority !== 2) {
    throw new RangeError(`queue priority must be 0, 1 or 2, got ${priority}`)
  }
  if (!Number.isInteger(at) || at < 0 || at >= TIME_SPAN) {
    throw new RangeError(`queue time must be an integer in [0, 2**44) unix ms, got ${at}`)
  }
  return priority * TIME_SPAN + at
}
