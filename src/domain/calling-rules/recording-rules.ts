/**
 * States where every party must consent before a call is recorded (rule kind "recording"). These
 * rows never block a call: the carrier reads them to start a call unrecorded, play the notice,
 * and record only after it. Where sources disagree (DE, MI, NV) the stricter all-party reading is
 * taken and the note says why. docs/calling-rules.md lists these rows; bump RULES_VERSION with them.
 */
import type { LeadReach, RuleView } from './contract'

const row = (state: string, source: string, note?: string): RuleView => Object.freeze({
  id: `${state}-recording`, kind: 'recording', state, source, effective: null, ...(note ? { note } : {}),
})

/** All-party consent rows by state. A state missing here records with one party's consent (federal 18 U.S.C. 2511(2)(d)). */
export const RECORDING_RULES: Readonly<Record<string, RuleView>> = {
  CA: row('CA', 'Cal. Penal Code 632(a)', 'Confidential communications; a call is treated as one (stricter).'),
  CT: row('CT', 'Conn. Gen. Stat. 52-570d(a)', 'Telephone recording needs every party\'s consent, a recorded verbal notice, or a tone; the notice is taken.'),
  DE: row('DE', '11 Del. C. 1335(a)(4)', 'The wiretap act (11 Del. C. 2402(c)(4)) allows one-party consent, the privacy statute does not: all-party taken (stricter).'),
  FL: row('FL', 'Fla. Stat. 934.03(2)(d)'),
  IL: row('IL', '720 ILCS 5/14-2(a) (as amended by Public Act 98-1142)', 'Private conversations; a call is treated as one (stricter).'),
  MA: row('MA', 'M.G.L. c. 272, 99(B)(4), 99(C)(1)'),
  MD: row('MD', 'Md. Code, Cts. & Jud. Proc. 10-402(c)(3)'),
  MI: row('MI', 'MCL 750.539a, 750.539c', 'Courts read the eavesdropping act to let a participant record (Sullivan v. Gray, 1982); some summaries list MI as all-party: all-party taken (stricter).'),
  MT: row('MT', 'Mont. Code Ann. 45-8-213(1)(c)'),
  NH: row('NH', 'RSA 570-A:2, I'),
  NV: row('NV', 'NRS 200.620', 'Wire communications need every party\'s consent (Lane v. Allstate, 1998; Ditech v. Buckles, 2017); in-person ones one party\'s (NRS 200.650): all-party taken for calls.'),
  PA: row('PA', '18 Pa.C.S. 5703, 5704(4)'),
  WA: row('WA', 'RCW 9.73.030(1)(a)'),
}

export interface RecordingConsent {
  /** States of the reach that require every party's consent, sorted. */
  requiredBy: string[]
  /** Their rows, in the same order. */
  rules: RuleView[]
}

/** Whether a call to this reach needs every party's consent before recording, and by whose law. */
export function recordingConsent(reach: LeadReach): RecordingConsent {
  // reach.states is sorted, so the rows come out sorted by state.
  const rules = reach.states.flatMap((state) => (RECORDING_RULES[state] ? [RECORDING_RULES[state]] : []))
  return { requiredBy: rules.map((r) => r.state!), rules }
}
