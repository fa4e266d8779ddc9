/** The spec's event types (a module of its own: the console's browser code imports it too). */
export const EVENT_TYPES = [
  'lead.created', 'lead.queued', 'lead.interested', 'lead.opted_out', 'lead.late',
  'call.started', 'call.answered', 'call.completed', 'handover.accepted', 'voicemail.left', 'callback.booked',
  'call.supervised',
] as const

export type EventType = (typeof EVENT_TYPES)[number]
