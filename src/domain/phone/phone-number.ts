import { ParseError, parsePhoneNumberWithError } from 'libphonenumber-js/max'
import { describeCache, registerPureMemo } from '../../cache-registry'
import { BoundedMemo } from '../../memo'
import { NANP_CLASSES, NANP_COUNTRIES } from './nanp-classes.generated'

/**
 * What a phone number string turned out to be.
 * - unreadable: no number could be read from it at all ("hello")
 * - invalid: a number, but not a real one (wrong length, unassigned area code)
 * - fictional: NANP 555-0100..555-0199, reserved for fiction; test keys' magic numbers
 * - domestic: a valid US or Canadian number
 * - international: valid, but not US/CA (other +1 countries included)
 * - premium: premium-rate (+1 900, or a 976 exchange)
 */
export type PhoneClass =
  | { kind: 'unreadable' }
  | { kind: 'invalid'; e164: string | null }
  | { kind: 'fictional'; e164: string; areaCode: string }
  | { kind: 'domestic'; e164: string; country: 'US' | 'CA'; areaCode: string }
  | { kind: 'international'; e164: string; country: string | null }
  | { kind: 'premium'; e164: string }

const NANP_AREA_CODE = /^[2-9]\d\d$/

// The answer depends only on the string and libphonenumber is slow: recent ones are kept.
const memo = new BoundedMemo<string, PhoneClass>(10_000)
registerPureMemo(describeCache({
  name: 'phone-classes',
  holds: 'phone classifications by the string as sent',
  bound: '10,000 to 20,000 strings (two generations)',
  clearedBy: 'nothing (pure); new numbers push out the oldest generation',
  gain: '+1 E.164 0.13–0.15 vs 0.36–0.38 µs; other formats 0.3–0.5 vs 15–19 µs',
  source: 'pure',
}), () => memo.clear())

/** Normalizes any common format (default country US) and classifies the number. */
export function classifyPhone(raw: string): PhoneClass {
  const known = memo.get(raw)
  if (known) return known
  const result = Object.freeze(classifyFromTable(raw) ?? classifyWithLibrary(raw))
  memo.set(raw, result)
  return result
}

const CANONICAL_NANP = /^\+1[2-9]\d{9}$/
const exchangesByArea = new Map<string, string>()
registerPureMemo(describeCache({
  name: 'phone-exchanges',
  holds: "an area code's expanded per-exchange codes from the generated table",
  bound: 'one per area code split by exchange (a few hundred)',
  clearedBy: 'nothing (pure)',
  gain: '0.06–0.14 vs 2.4–2.6 µs a number in a split area code',
  source: 'pure',
}), () => exchangesByArea.clear())

/** The table's code for an area code and exchange ('?' when the library must decide). */
function tableCode(areaCode: string, exchange: string): string {
  const entry = NANP_CLASSES[areaCode]
  if (entry === undefined) return '?'
  if (entry.length === 1) return entry
  let codes = exchangesByArea.get(areaCode)
  if (codes === undefined) {
    codes = entry.replace(/(\D)(\d+)/g, (_run, code: string, count: string) => code.repeat(Number(count)))
    exchangesByArea.set(areaCode, codes)
  }
  return codes[Number(exchange)] ?? '?'
}

/**
 * A number already in E.164 (+1 and ten digits, as API clients mostly send them) classified
 * from the generated table of what libphonenumber says of each area code and exchange; null
 * for anything else (the library reads it). Same answers as classifyWithLibrary (tested).
 */
export function classifyFromTable(raw: string): PhoneClass | null {
  if (!CANONICAL_NANP.test(raw)) return null
  const areaCode = raw.slice(2, 5)
  const exchange = raw.slice(5, 8)
  const line = Number(raw.slice(8))
  if (exchange === '555' && line >= 100 && line <= 199) return { kind: 'fictional', e164: raw, areaCode }
  const code = tableCode(areaCode, exchange)
  switch (code) {
    case '?':
      return null
    case '.':
      return { kind: 'invalid', e164: raw }
    case 'P':
      return { kind: 'premium', e164: raw }
    case 'U':
      return { kind: 'domestic', e164: raw, country: 'US', areaCode }
    case 'C':
      return { kind: 'domestic', e164: raw, country: 'CA', areaCode }
    default:
      return { kind: 'international', e164: raw, country: NANP_COUNTRIES[code.charCodeAt(0) - 97] ?? null }
  }
}

/** The classification by libphonenumber alone (the generated prefix table is built from it). */
export function classifyWithLibrary(raw: string): PhoneClass {
  const input = raw.trim()
  if (input === '' || !/\d/.test(input)) return { kind: 'unreadable' }
  let parsed
  try {
    parsed = parsePhoneNumberWithError(input, 'US')
  } catch (error) {
    if (error instanceof ParseError && error.message === 'NOT_A_NUMBER') return { kind: 'unreadable' }
    return { kind: 'invalid', e164: null }
  }
  const e164 = parsed.number
  if (parsed.countryCallingCode !== '1') {
    return parsed.isValid() ? { kind: 'international', e164, country: parsed.country ?? null } : { kind: 'invalid', e164 }
  }
  const national = parsed.nationalNumber
  if (national.length !== 10) return { kind: 'invalid', e164 }
  const areaCode = national.slice(0, 3)
  const exchange = national.slice(3, 6)
  const line = Number(national.slice(6))
  // Checked before validity: libphonenumber accepts these, and test keys need any area code.
  if (NANP_AREA_CODE.test(areaCode) && exchange === '555' && line >= 100 && line <= 199) {
    return { kind: 'fictional', e164, areaCode }
  }
  if (!parsed.isValid()) return { kind: 'invalid', e164 }
  // NANP premium-rate is area code 900 (libphonenumber's PREMIUM_RATE for +1) or a 976 exchange;
  // deciding it here spares getType(), which tests every number type's pattern.
  if (areaCode === '900' || exchange === '976') {
    return { kind: 'premium', e164 }
  }
  if (parsed.country === 'US' || parsed.country === 'CA') {
    return { kind: 'domestic', e164, country: parsed.country, areaCode }
  }
  return { kind: 'international', e164, country: parsed.country ?? null }
}

/** The E.164 form when a number could be read, else null (DNC check's `normalizedPhone`). */
export function normalizedOrNull(phone: PhoneClass): string | null {
  return phone.kind === 'unreadable' ? null : phone.e164
}

/**
 * A leading plus that was not URL-encoded arrives as a space (`?phone=+1415...`);
 * read it as the plus the caller meant.
 */
export function restoreQueryPlus(value: string): string {
  return /^ \d/.test(value) ? '+' + value.slice(1) : value
}

/** The phone number as a dialable lead must be: +1 and 10 digits, domestic. */
export type DialablePhone = Extract<PhoneClass, { kind: 'domestic' | 'fictional' }>
