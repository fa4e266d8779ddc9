/** The spec's outcome words. `other` stands for a label the service does not know. */
export const OUTCOMES = [
  'interested', 'not_interested', 'callback', 'voicemail', 'no_answer', 'busy', 'failed', 'dnc',
  'wrong_number', 'hung_up', 'screened', 'language_barrier', 'not_qualified', 'undetermined', 'other',
] as const

export type Outcome = (typeof OUTCOMES)[number]

export const isOutcome = (value: string): value is Outcome => (OUTCOMES as readonly string[]).includes(value)

// The label shown when the organization has none of its own for an outcome.
const DEFAULT_LABELS: Record<Outcome, string> = {
  interested: 'Interested',
  not_interested: 'Not interested',
  callback: 'Callback',
  voicemail: 'Voicemail',
  no_answer: 'No answer',
  busy: 'Busy',
  failed: 'Failed',
  dnc: 'Do not call',
  wrong_number: 'Wrong number',
  hung_up: 'Hung up',
  screened: 'Screened',
  language_barrier: 'Language barrier',
  not_qualified: 'Not qualified',
  undetermined: 'Undetermined',
  other: 'Other',
}

/** The organization's name for an outcome: its own label mapped to it (the first), else the default. */
export function outcomeLabel(orgLabels: Record<string, string>, outcome: Outcome): string {
  for (const [label, word] of Object.entries(orgLabels)) if (word === outcome) return label
  return DEFAULT_LABELS[outcome]
}

/** The outcome word for a label: the organization's mapping, a default label or the word itself, else `other`. */
export function outcomeForLabel(orgLabels: Record<string, string>, label: string): Outcome {
  const mapped = orgLabels[label]
  if (mapped && isOutcome(mapped)) return mapped
  for (const [word, defaultLabel] of Object.entries(DEFAULT_LABELS)) {
    if (defaultLabel.toLowerCase() === label.toLowerCase()) return word as Outcome
  }
  return isOutcome(label) ? label : 'other'
}
