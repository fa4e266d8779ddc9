import { eventKeyMaker } from '../../db/event-keys'
import type { EventRow, EventStore } from '../../db/stores/event-store'
import type { Clock } from '../../jobs/clock'
import { iso } from '../../jobs/clock'
import { newId } from '../ids'

import type { EventType } from './event-types'

export { EVENT_TYPES, type EventType } from './event-types'

export interface EventEnvelope {
  id: string
  type: EventType
  created: string
  livemode: boolean
  api_version: string
  data: { object: Record<string, unknown> }
  sample?: true
}

export interface NewEvent {
  type: EventType
  orgId: string
  livemode: boolean
  campaignId: string | null
  objectId: string
  /** The lead or call as GET returns it, plus the event's own fields. */
  object: Record<string, unknown>
  /** `object` already as JSON, when several events of one change carry the same object. */
  objectJson?: string
}

/** Told of every stored event inside its transaction (the webhook outbox subscribes here). */
export type EventListener = (event: EventRow, envelope: EventEnvelope) => void

/**
 * `evt_` and the 32 hex digits of a uuid v7, so ids sort by time like every other id. For an
 * event that is not stored (a webhook test send); stored events take theirs from eventKeyMaker.
 */
export const newEventId = (): string => {
  const id = newId()
  return `evt_${id.slice(0, 8)}${id.slice(9, 13)}${id.slice(14, 18)}${id.slice(19, 23)}${id.slice(24)}`
}

export function eventLog(deps: { events: EventStore; clock: Clock; apiVersion: string }) {
  const listeners: EventListener[] = []
  const nextKey = eventKeyMaker(deps.events.lastSeq())
  const apiVersionJson = JSON.stringify(deps.apiVersion)
  return {
    onRecorded(listener: EventListener): void {
      listeners.push(listener)
    },

    /** Stores an event; call it inside the transaction that makes the change it reports. */
    record(input: NewEvent): EventEnvelope {
      const created = deps.clock.now()
      const key = nextKey(created)
      const envelope: EventEnvelope = {
        id: key.id,
        type: input.type,
        created: iso(created),
        livemode: input.livemode,
        api_version: deps.apiVersion,
        data: { object: input.object },
      }
      const row: EventRow = {
        seq: key.seq,
        id: key.id,
        orgId: input.orgId,
        livemode: input.livemode,
        type: input.type,
        campaignId: input.campaignId,
        objectId: input.objectId,
        created,
        body: input.objectJson === undefined ? JSON.stringify(envelope) : envelopeJson(envelope, input.objectJson, apiVersionJson),
      }
      deps.events.insert(row)
      for (const listener of listeners) listener(row, envelope)
      return envelope
    },
  }
}

export type EventLog = ReturnType<typeof eventLog>

/**
 * JSON.stringify(envelope), with the object's JSON given: the same text, key for key. The id
 * (evt_ and hex), the type (one of EVENT_TYPES) and `created` (an ISO instant) never need
 * escaping, so they are quoted as they are (a JSON.stringify each is measurable at intake:
 * docs/architecture.md, "Where the time goes"); the configured api_version comes already as JSON.
 */
function envelopeJson(envelope: EventEnvelope, objectJson: string, apiVersionJson: string): string {
  return `{"id":"${envelope.id}","type":"${envelope.type}","created":"${envelope.created}","livemode":${envelope.livemode}` +
    `,"api_version":${apiVersionJson},"data":{"object":${objectJson}}}`
}
