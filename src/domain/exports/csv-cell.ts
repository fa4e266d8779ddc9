/**
 * Spreadsheet formula injection in CSV exports. Excel, LibreOffice and Google Sheets run a cell
 * that starts with one of these characters as a formula (`=HYPERLINK(...)`, `+cmd|...`,
 * `@SUM(...)`), so free text a lead or an API client sent could run in the operator's
 * spreadsheet. Such a cell gets a leading `'`, which the spreadsheet shows as text (OWASP
 * "CSV Injection").
 */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r'])

/** An E.164 number: its leading `+` is not a formula, and rewriting it would break the column. */
const E164 = /^\+[1-9]\d{1,14}$/

/** `text`: escaped when it starts with a trigger. `phone`: left as it is when E.164, else as text. */
export type CellKind = 'text' | 'phone'

/** Whether a spreadsheet would read `value` as a formula. */
export const startsFormula = (value: string): boolean => value.length > 0 && TRIGGERS.has(value[0]!)

/** The cell as written to the file: numbers, booleans and null untouched; risky text prefixed with `'`. */
export function safeCell(value: unknown, kind: CellKind = 'text'): unknown {
  if (typeof value !== 'string') return value
  if (kind === 'phone' && E164.test(value)) return value
  return startsFormula(value) ? `'${value}` : value
}

/** A row's cells made safe, given each column's kind (columns named `phone` hold E.164 numbers). */
export function safeRow(columns: readonly string[]): (values: readonly unknown[]) => unknown[] {
  const kinds: CellKind[] = columns.map((name) => (name === 'phone' ? 'phone' : 'text'))
  return (values) => values.map((value, i) => safeCell(value, kinds[i]))
}
