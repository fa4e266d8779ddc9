/**
 * What one delivery try came to (the delivery worker reports it; the metrics count it):
 * `sent`; `failed` (a retry is scheduled); `gave_up` (the last try failed); `skipped_paused`
 * (the endpoint was paused when its turn came); `expired` (the event was purged before a retry).
 */
export const DELIVERY_RESULTS = ['sent', 'failed', 'gave_up', 'skipped_paused', 'expired'] as const
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number]
