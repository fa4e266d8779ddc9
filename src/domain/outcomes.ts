/** The spec's outcome words. `other` stands for a label the service does not know. */
export const OUTCOMES = [
  'interested', 'not_interested', 'callback', 'voicemail', 'no_answer', 'busy', 'failed', 'dnc',
  'wrong_number', 'hung_up', 'screened', 'language_barrier', 'not_qualified', 'undetermined', 'other',
] as const

export type Outcome = (typeof OUTCOMES)[number]

export const isOutcome = (value: string): value is Outcome => (OUTCOMES as readonly string[]).includes(value)
