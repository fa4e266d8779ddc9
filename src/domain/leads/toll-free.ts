/** DIALER_TOLL_FREE=refuse: toll-free and non-geographic numbers are refused at intake and POST /calls. */
import { ApiError } from '../../errors'
import { isNonGeographic } from '../calling-hours/lead-zones'

export function refusesTollFree(mode: 'strictest_zone' | 'refuse' | undefined, e164: string | null | undefined): boolean {
  return mode === 'refuse' && typeof e164 === 'string' && isNonGeographic(e164)
}

export function tollFreeRefusal(param: string | null): ApiError {
  return new ApiError('number_not_allowed', 'Toll-free and non-geographic numbers are not dialed here (DIALER_TOLL_FREE=refuse).', {
    ...(param ? { param } : {}),
    extras: { reason: 'toll_free' },
  })
}
