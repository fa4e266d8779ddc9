// The Drizzle schema, one module a table group (drizzle.config.ts reads this file; migrations come from it).
// Times are unix milliseconds (integers); ids are uuid v7 unless a prefix is named.
// JSON columns hold small documents that are always read whole.
export * from './schema/access'
export * from './schema/campaigns'
export * from './schema/leads'
export * from './schema/calls'
export * from './schema/events'
export * from './schema/usage'
export * from './schema/dnc-registry'
export * from './schema/dial-decisions'
export * from './schema/carriers'
export * from './schema/console'
export * from './schema/imports'
export * from './schema/lead-search'
export * from './schema/seats'
