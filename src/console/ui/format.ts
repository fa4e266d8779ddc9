/** Times in the organization's zone, with the UTC instant for a title; phone numbers as people write them. */

export function localTime(isoOrMs: string | number, zone: string): { text: string; utc: string } {
  const date = new Date(isoOrMs)
  // The zone's abbreviation (CST, EDT; GMT+1 where English has none) beside each time.
  const text = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(date)
  return { text, utc: date.toISOString() }
}

/** +14155550123 -> (415) 555-0123; anything else as given. */
export function formatPhone(e164: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164)
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164
}
