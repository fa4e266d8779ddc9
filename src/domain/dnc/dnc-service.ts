import type { DncEntryRow, DncScope, DncStore } from '../../db/stores/dnc-store'
import { ApiError, invalid, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { newId } from '../ids'
import { classifyPhone, normalizedOrNull, type PhoneClass } from '../phone/phone-number'

export type DncSource = 'api' | 'ai' | 'outcome' | 'manual' | 'bulk' | 'sms'

/**
 * Told of every number added to a Do Not Call list, inside the transaction that adds it
 * (the leads module takes that number's leads out of the queue).
 */
export type NumberBlockedListener = (scope: DncScope, e164: string, source: DncSource, at: number) => void

export interface DncCheck {
  phone: string
  normalizedPhone: string | null
  onDncList: boolean
}

export function dncService(deps: { dnc: DncStore; clock: Clock; transaction: <T>(work: () => T) => T }) {
  const { dnc, clock, transaction } = deps
  const listeners: NumberBlockedListener[] = []

  /** The E.164 number to list, or the reason it cannot be listed. */
  function listable(phone: PhoneClass, livemode: boolean): string | null {
    if (phone.kind === 'unreadable' || phone.kind === 'invalid') return null
    // 555-01XX is made up for live keys and the magic range for test keys.
    if (phone.kind === 'fictional' && livemode) return null
    return phone.e164
  }

  function insert(scope: DncScope, e164: string, source: DncSource, reason: string | null): DncEntryRow | undefined {
    const at = clock.now()
    const entry = dnc.insert({ id: newId(), orgId: scope.orgId, livemode: scope.livemode, phone: e164, source, reason, created: at })
    if (entry) for (const listener of listeners) listener(scope, e164, source, at)
    return entry
  }

  return {
    onNumberBlocked(listener: NumberBlockedListener): void {
      listeners.push(listener)
    },

    /** `phone` as sent; unreadable values are matched exactly as sent (spec: normalizedPhone null). */
    check(scope: DncScope, phone: string): DncCheck {
      const classified = classifyPhone(phone)
      if (classified.kind === 'unreadable') {
        return { phone, normalizedPhone: null, onDncList: dnc.isListed(scope, phone) }
      }
      const e164 = listable(classified, scope.livemode)
      if (e164 === null) throw new ApiError('invalid_phone', 'Not a valid phone number.', { param: 'phone' })
      return { phone, normalizedPhone: normalizedOrNull(classified), onDncList: dnc.isListed(scope, e164) }
    },

    isListed(scope: DncScope, e164: string): boolean {
      return dnc.isListed(scope, e164)
    },

    add(scope: DncScope, phone: string, source: DncSource = 'api', reason: string | null = null): DncEntryRow {
      const e164 = listable(classifyPhone(phone), scope.livemode)
      if (e164 === null) throw new ApiError('invalid_phone', 'Not a valid phone number.', { param: 'phone' })
      const entry = transaction(() => insert(scope, e164, source, reason))
      if (!entry) throw new ApiError('duplicate_dnc_entry', 'This number is already on the Do Not Call list.', { param: 'phone' })
      return entry
    },

    /** Adds the number unless listed already; returns the entry either way (opt-out is idempotent). */
    ensureListed(scope: DncScope, e164: string, source: DncSource, reason: string | null = null): DncEntryRow {
      return transaction(() => dnc.findByPhone(scope, e164) ?? insert(scope, e164, source, reason)!)
    },

    /** Each number on its own; `errors` lists the numbers, as sent, that were bad or already there. */
    addBatch(scope: DncScope, phones: string[]): { succeeded: number; failed: number; errors: string[] } {
      const errors: string[] = []
      let succeeded = 0
      transaction(() => {
        for (const phone of phones) {
          const e164 = listable(classifyPhone(phone), scope.livemode)
          if (e164 !== null && insert(scope, e164, 'api', null)) succeeded++
          else errors.push(phone)
        }
      })
      return { succeeded, failed: errors.length, errors }
    },

    list(scope: DncScope, limit: number, options: { startingAfter?: string; search?: string }): DncEntryRow[] {
      let digits: string | undefined
      if (options.search !== undefined && options.search !== '') {
        digits = options.search.replace(/\D/g, '')
        if (digits === '') throw invalid('search must hold part of a phone number (digits).', 'search')
      }
      return dnc.list(scope, limit, { startingAfter: options.startingAfter, digits })
    },

    remove(scope: DncScope, id: string): DncEntryRow {
      const removed = transaction(() => dnc.delete(scope, id))
      if (!removed) throw notFound('No such Do Not Call entry')
      return removed
    },
  }
}

export type DncService = ReturnType<typeof dncService>
