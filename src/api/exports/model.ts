import { t } from 'elysia'
import { DateTime, Uuid } from '../shared'

export const ExportType = t.Union([t.Literal('leads'), t.Literal('call_history'), t.Literal('analytics')])

/** An export as POST /exports and GET /exports return it. */
export const Export = t.Object({
  id: Uuid,
  exportType: ExportType,
  status: t.Union([t.Literal('pending'), t.Literal('ready'), t.Literal('failed'), t.Literal('expired')]),
  rowCount: t.Integer(),
  createdAt: DateTime,
  expiresAt: DateTime,
  livemode: t.Boolean(),
})

/** POST /exports: the export and its signed download link. */
export const ExportDownload = t.Object({ export: Export, downloadUrl: t.String({ format: 'uri' }), livemode: t.Boolean() })
