/**
 * The calling-rules table: every rule as data, with its source and the date it took
 * effect. Where sources disagree the stricter reading is taken and the row's note says so.
 * docs/calling-rules.md lists these rows; change both together and bump RULES_VERSION.
 * Not legal advice: the sources are statutes where the text was found, else the compliance
 * summaries named in the note (see docs/calling-rules.md "Sources").
 */
import type { RuleView } from './contract'

/** Shown in replies as rules_version: bump on any change to the rows below. */
export const RULES_VERSION = '2026-11-27.1'

/** The federal floor (47 CFR 64.1200(c)(1)): no call outside it, whatever the campaign says. */
export const FLOOR = { start: '08:00', end: '21:00' } as const

export const FEDERAL_HOURS: RuleView = {
  id: 'US-hours',
  kind: 'hours',
  state: null,
  source: '47 CFR 64.1200(c)(1)',
  effective: '1992-12-20',
  hours: [{ start: '08:00', end: '21:00', days: 'all' }],
  note: 'Applied to every call the service places, in every zone of the lead (Canadian numbers too), as the floor no campaign can widen.',
}

export const CANADA_HOURS: RuleView = {
  id: 'CA-hours',
  kind: 'hours',
  state: null,
  source: 'CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules)',
  effective: '2008-09-30',
  hours: [
    { start: '09:00', end: '21:30', days: 'weekdays' },
    { start: '10:00', end: '18:00', days: 'weekends' },
  ],
  note: 'Applies to Canadian numbers and addresses in a province; with the federal floor the weekday end is 21:00.',
}

const hours = (state: string, start: string, end: string, source: string, effective: string | null, note?: string): RuleView => ({
  id: `${state}-hours`, kind: 'hours', state, source, effective, hours: [{ start, end, days: 'all' }], ...(note ? { note } : {}),
})
const sunday = (state: string, source: string, effective: string | null, note?: string): RuleView => ({
  id: `${state}-sunday`, kind: 'day', state, source, effective, days: [0], ...(note ? { note } : {}),
})
const holidays = (state: string, source: string, effective: string | null, note: string): RuleView => ({
  id: `${state}-holidays`, kind: 'holiday', state, source, effective, note,
})
const cap = (state: string, max: number, periodHours: number, source: string, effective: string | null, note?: string): RuleView => ({
  id: `${state}-cap`, kind: 'cap', state, source, effective, max, period_hours: periodHours, ...(note ? { note } : {}),
})

/** Hours and/or a cap for calls with a prerecorded message or an artificial (AI) voice only (EvaluateInput.automated). */
const automated = (state: string, rule: Partial<RuleView>, source: string, note: string): RuleView => ({
  id: `${state}-automated`, kind: 'automated', state, source, effective: null, ...rule, note,
})
const all = (start: string, end: string) => [{ start, end, days: 'all' as const }]
/** An AI voice is an artificial voice (FCC Declaratory Ruling 24-17, 2024): these rows apply to AI calls too. */
const AI_NOTE = 'Applies to campaigns marked automated_voice (prerecorded or artificial voice; an AI voice is one, FCC 24-17).'

const HOLIDAY_NOTE = 'State public holidays as date-holidays lists them; a holiday and its observed day (Friday before a Saturday, Monday after a Sunday) are both barred.'

/** State rows by two-letter code. A state missing here has no rule beyond the federal floor. */
export const STATE_RULES: Readonly<Record<string, readonly RuleView[]>> = {
  AL: [
    hours('AL', '08:00', '20:00', 'Ala. Admin. Code r. 770-X-5-.17(1)(b)', null,
      'The rule is written for automated solicitation calls, which covers AI voice calls.'),
    sunday('AL', 'Ala. Admin. Code r. 770-X-5-.17(1)(b)', null),
    holidays('AL', 'Ala. Admin. Code r. 770-X-5-.17(1)(b); legal holidays Ala. Code 1-3-8', null,
      `${HOLIDAY_NOTE} Mardi Gras, a holiday in Baldwin and Mobile counties only, is barred state-wide (the county is not known; stricter).`),
  ],
  CA: [automated('CA', { hours: all('09:00', '21:00') }, 'Cal. Pub. Util. Code 2872(c)',
    `${AI_NOTE} No automatic dialing-announcing device call between 21:00 and 09:00 California time; 2874's natural-voice announcement before the message is the campaign's to make.`)],
  CT: [hours('CT', '09:00', '20:00', 'Conn. Gen. Stat. 42-288a (as amended by Public Act 23-98)', '2023-10-01',
    'One summary [L6b] gives 09:00-21:00 (the law before 2023); the stricter 20:00 end [L6] is taken.')],
  FL: [
    hours('FL', '08:00', '20:00', 'Fla. Stat. 501.616(6)(a)', '2021-07-01'),
    cap('FL', 3, 24, 'Fla. Stat. 501.616(6)(b)', '2021-07-01',
      'The statute counts calls "on the same subject matter or issue"; the service counts every call to the number (stricter).'),
  ],
  IL: [automated('IL', { hours: all('09:00', '21:00') }, '815 ILCS 305/15(a) (Automatic Telephone Dialers Act)',
    `${AI_NOTE} No autodialer call with a recorded message between 21:00 and 09:00.`)],
  KY: [hours('KY', '10:00', '21:00', 'KRS 367.46955(15)', null)],
  LA: [
    hours('LA', '08:00', '20:00', 'LPSC General Order R-29617 (La. R.S. 45:844.11 et seq.)', null),
    sunday('LA', 'LPSC General Order R-29617 (La. R.S. 45:844.11 et seq.)', null),
    holidays('LA', 'LPSC General Order R-29617; legal holidays La. R.S. 1:55', null,
      `${HOLIDAY_NOTE} The PSC bars only the holidays it lists [L6d]; every state public holiday is taken (stricter).`),
  ],
  MA: [hours('MA', '08:00', '20:00', '201 CMR 12.02(2) (M.G.L. c. 159C)', '2003-01-01')],
  MD: [
    hours('MD', '08:00', '20:00', 'Md. Code, Com. Law 14-4502 (Stop the Spam Calls Act of 2023, SB 90)', '2024-01-01'),
    cap('MD', 3, 24, 'Md. Code, Com. Law 14-4502 (Stop the Spam Calls Act of 2023, SB 90)', '2024-01-01',
      'The act counts calls or texts "on the same subject"; the service counts every call to the number (stricter).'),
  ],
  ME: [automated('ME', { hours: [{ start: '09:00', end: '17:00', days: 'weekdays' }], max: 1, period_hours: 8 }, '10 M.R.S. 1498(3)',
    `${AI_NOTE} Automated telephone calling devices playing recorded messages: weekdays 09:00-17:00 only, and at most one solicitation call per number in each 8-hour period, counted as one call started per rolling 8 hours (stricter).`)],
  MI: [hours('MI', '09:00', '21:00', 'MCL 445.111 et seq. (Home Solicitation Sales Act)', null,
    'Hours from compliance summaries [L6][L6b]; the section was not found in the statute text consulted.')],
  MN: [
    hours('MN', '09:00', '21:00', 'summaries [L6] (Minn. Stat. 325E.27)', null,
      'The statute limits automatic dialing-announcing devices only; summaries [L6] apply its hours to every solicitation call: kept for every call (stricter).'),
    automated('MN', { hours: all('09:00', '21:00') }, 'Minn. Stat. 325E.27',
      `${AI_NOTE} Automatic dialing-announcing devices (a prerecorded or synthesized voice message).`),
  ],
  MS: [
    {
      id: 'MS-hours', kind: 'hours', state: 'MS', source: 'Miss. Code 77-3-723(1); 77-3-603(a)', effective: null,
      hours: all('08:00', '20:00'), timezone: 'Etc/GMT+6',
      note: 'Central Standard Time all year (UTC-6): in summer 08:00-09:00 CDT is early. 77-3-603(a) allows until 21:00; 77-3-723(1) (Telephone Solicitation Act) ends authorized solicitations at 20:00: the stricter 20:00 is taken.',
    },
    sunday('MS', 'Miss. Code 77-3-723(1)', null,
      'No holiday row: the PSC rule barring holidays (39 Miss. Admin. Code Pt. I, R. 1:28) was repealed after 2023 HB 1225 moved enforcement to the Attorney General, whose office confirmed holidays are not barred [L6d].'),
  ],
  NE: [automated('NE', {
    hours: [{ start: '08:00', end: '21:00', weekdays: [1, 2, 3, 4, 5, 6] }, { start: '13:00', end: '21:00', weekdays: [0] }],
    holiday_hours: { start: '13:00', end: '21:00' },
  }, 'Neb. Rev. Stat. 86-256(2)(c) (Automatic Dialing-Announcing Devices Act)',
    `${AI_NOTE} 86-256(2)(c) allows 08:00-21:00 at the called person's location; Sundays and state holidays only 13:00-21:00 as the compliance summaries give (the section's text was not found: taken, stricter).`)],
  NM: [hours('NM', '09:00', '21:00', 'NMSA 1978, 57-12-22(B)(5)', null)],
  NV: [
    hours('NV', '09:00', '20:00', 'summaries [L6] (NRS 597.814(2)(a))', null,
      'The statute bars automatic dialing-announcing calls between 21:00 and 09:00; summaries [L6] give 09:00-20:00 for every solicitation call: kept for every call (stricter).'),
    automated('NV', { hours: all('09:00', '21:00') }, 'NRS 597.814(2)(a)',
      `${AI_NOTE} No automatic dialing-announcing call received in Nevada between 21:00 and 09:00.`),
  ],
  OK: [
    hours('OK', '08:00', '20:00', '15 O.S. 775C.4 (Oklahoma Telephone Solicitation Act of 2022)', '2022-11-01'),
    cap('OK', 3, 24, '15 O.S. 775C.4 (Oklahoma Telephone Solicitation Act of 2022)', '2022-11-01',
      'The act counts calls "on the same subject matter or issue"; the service counts every call to the number (stricter).'),
  ],
  PA: [
    holidays('PA', '73 P.S. 2245(a)(10) (Telemarketer Registration Act, as amended by Act 73 of 2019)', '2019-12-03',
      `${HOLIDAY_NOTE} Good Friday and Election Day, in the act's list but not in date-holidays' Pennsylvania calendar, are added.`),
  ],
  RI: [
    {
      id: 'RI-hours', kind: 'hours', state: 'RI', source: 'R.I. Gen. Laws 5-61-2(2), 5-61-3.6', effective: null,
      hours: [
        { start: '09:00', end: '18:00', days: 'weekdays' },
        { start: '10:00', end: '17:00', weekdays: [6] },
      ],
    },
    sunday('RI', 'R.I. Gen. Laws 5-61-2(2), 5-61-3.6', null),
    holidays('RI', 'R.I. Gen. Laws 5-61-2(2), 5-61-3.6', null,
      `${HOLIDAY_NOTE} The statute excepts state and federal holidays from the weekday hours; they are barred on Saturdays too (stricter).`),
  ],
  SC: [automated('SC', { hours: all('08:00', '19:00') }, 'S.C. Code 16-17-446(C)(3)',
    `${AI_NOTE} Automatically dialed announcing device calls are prohibited after 19:00 or before 08:00.`)],
  TX: [{
    id: 'TX-hours', kind: 'hours', state: 'TX', source: 'Tex. Bus. & Com. Code 301.051', effective: '2009-04-01',
    hours: [
      { start: '09:00', end: '21:00', weekdays: [1, 2, 3, 4, 5, 6] },
      { start: '12:00', end: '21:00', weekdays: [0] },
    ],
  }],
  UT: [
    sunday('UT', 'Utah Code 13-25a-103(3)', null),
    holidays('UT', 'Utah Code 13-25a-103(3)', null, HOLIDAY_NOTE),
  ],
  WA: [hours('WA', '08:00', '20:00', 'RCW 19.158.040(2); RCW 80.36.390', null)],
}

/** Canadian provinces and territories: the CRTC rules apply to them. */
export const PROVINCES: ReadonlySet<string> = new Set(['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT'])
