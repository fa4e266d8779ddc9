/**
 * The spec's permissions, plus webhooks:write (DESIGN.md). A key made with defaults has all.
 * A module of its own: the console's browser code imports it too.
 */
export const PERMISSIONS = [
  'leads:read', 'leads:write',
  'calls:read', 'calls:write',
  'campaigns:read', 'campaigns:write',
  'dnc:read', 'dnc:write',
  'events:read', 'usage:read',
  'webhooks:write',
] as const

export type Permission = (typeof PERMISSIONS)[number]
