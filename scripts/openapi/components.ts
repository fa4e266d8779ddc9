/**
 * Named reply schemas of the OpenAPI document: each reply object the routes return gets one
 * entry in components.schemas, and every reply that holds it refers to it, so a generated
 * client names its types `Lead`, `Call`, ... rather than inlining each reply's copy.
 */
import type { TSchema } from '@sinclair/typebox'
import { Call, CallNowReply, RecordingLink, Transcript } from '../../src/api/calls/model'
import { Campaign, CampaignAction } from '../../src/api/campaigns/model'
import { DncBatchResult, DncCheckResult, DncEntry } from '../../src/api/dnc/model'
import { Event } from '../../src/api/events/model'
import { Export, ExportDownload } from '../../src/api/exports/model'
import { Contactability } from '../../src/api/leads/contactability-model'
import { BatchReply, IntakeReply, Lead, LegacyLead, OptedOutLead } from '../../src/api/leads/model'
import { Usage } from '../../src/api/usage/model'
import { Delivery, Endpoint } from '../../src/api/webhooks/model'
import { ListMetaSchema } from '../../src/http/paging'
import { fromTypeBox, type Json } from './schema'

/** Component name -> the TypeBox model the routes reply with. Names are part of the published contract: keep them. */
export const NAMED_REPLIES: Record<string, TSchema> = {
  Lead,
  Call,
  Campaign,
  Event,
  DncEntry,
  WebhookEndpoint: Endpoint,
  WebhookDelivery: Delivery,
  Export,
  Usage,
  LeadIntakeResult: IntakeReply,
  LeadBatchResult: BatchReply,
  OptedOutLead,
  LegacyLead,
  Contactability,
  CampaignAction,
  CallNowResult: CallNowReply,
  RecordingLink,
  Transcript,
  DncCheckResult,
  DncBatchResult,
  ExportDownload,
  ListMeta: ListMetaSchema,
}

/** Key order does not change a schema's meaning. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v))

/**
 * The named schemas as JSON, and `paths` rewritten in place: every reply schema (or part of
 * one) equal to a named schema becomes a `$ref` to it. Throws when two names have the same
 * schema or a name is never referenced (a model changed and no longer matches what the routes send).
 */
export function nameReplySchemas(paths: Json): Record<string, Json> {
  const schemas: Record<string, Json> = {}
  const byShape = new Map<string, string>()
  for (const [name, model] of Object.entries(NAMED_REPLIES)) {
    const json = fromTypeBox(model)
    const shape = canonical(json)
    const twin = byShape.get(shape)
    if (twin) throw new Error(`components ${twin} and ${name} have the same schema`)
    byShape.set(shape, name)
    schemas[name] = json
  }
  const used = new Set<string>()
  const replace = (node: Json, root: string | null): Json => {
    const name = byShape.get(canonical(node))
    if (name && name !== root) {
      used.add(name)
      return { $ref: `#/components/schemas/${name}` }
    }
    for (const [key, value] of Object.entries(node)) {
      if (Array.isArray(value)) node[key] = value.map((item) => (item && typeof item === 'object' ? replace(item, null) : item))
      else if (value && typeof value === 'object') node[key] = replace(value, null)
    }
    return node
  }
  for (const item of Object.values<Json>(paths)) {
    for (const op of Object.values<Json>(item)) {
      for (const response of Object.values<Json>(op.responses ?? {})) {
        for (const media of Object.values<Json>(response.content ?? {})) media.schema = replace(media.schema, null)
      }
    }
  }
  // A named schema inside another (ListMeta in none yet, Export in ExportDownload).
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = replace(schema, name)
  const unused = Object.keys(schemas).filter((name) => !used.has(name))
  if (unused.length) throw new Error(`named reply schemas no reply uses: ${unused.join(', ')}`)
  return schemas
}
