import { t } from 'elysia'
import { iso } from '../../jobs/clock'
import type { DncEntryRow } from '../../db/stores/dnc-store'
import { DateTime, strict, Uuid } from '../shared'

export const DncEntry = t.Object({
  id: Uuid,
  phone: t.String(),
  source: t.String(),
  createdAt: DateTime,
  livemode: t.Boolean(),
})

export const DncCheckResult = t.Object({
  phone: t.String(),
  normalizedPhone: t.Nullable(t.String()),
  onDncList: t.Boolean(),
  livemode: t.Boolean(),
})

export const DncBatchResult = t.Object({
  succeeded: t.Integer(),
  failed: t.Integer(),
  errors: t.Array(t.String()),
  livemode: t.Boolean(),
})

// Spec "Limits": phone at most 32 characters, DNC search at most 200, 100 numbers a batch.
export const PhoneField = t.String({ minLength: 1, maxLength: 32, examples: ['+14155550123'] })

export const AddDncBody = t.Object({ phone: PhoneField }, strict)
export const AddDncBatchBody = t.Object({ phones: t.Array(t.String({ maxLength: 32 }), { maxItems: 100, examples: [['+14155550123', '+14155550124']] }) }, strict)

export const presentDncEntry = (row: DncEntryRow) => ({
  id: row.id,
  phone: row.phone,
  source: row.source,
  createdAt: iso(row.created),
  livemode: row.livemode,
})
