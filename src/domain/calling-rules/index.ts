/**
 * The calling-rules engine. Import `callingRules` (one shared engine: its memos are
 * process-wide) or `createCallingRulesEngine()`; types from ./contract. See docs/calling-rules.md.
 */
import { createCallingRulesEngine } from './engine'

export type { Block, BlockReason, CallingRulesEngine, EvaluateInput, LeadReach, RuleKind, RuleView, Verdict } from './contract'
export { createCallingRulesEngine } from './engine'
export { RULES_VERSION } from './state-rules'

export const callingRules = createCallingRulesEngine()
