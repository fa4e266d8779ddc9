/** How a command's flag value is read (src/cli/admin-commands.ts, and the carrier and user flags beside it). */
export type FieldKind =
  | 'string' | 'nullable-string' | 'int' | 'number' | 'nullable-number' | 'bool' | 'list' | 'nullable-list' | 'people' | 'json'
  /** A flag without a value (`--twilio`). */
  | 'switch'
