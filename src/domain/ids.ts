/** uuid v7: time-ordered, so "newest first" is "largest id first". */
export const newId = (): string => Bun.randomUUIDv7()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: string): boolean => UUID.test(value)
