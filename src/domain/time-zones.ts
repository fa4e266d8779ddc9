/** Whether the runtime knows this IANA zone name (e.g. America/New_York). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return name.includes('/') || name === 'UTC'
  } catch {
    return false
  }
}
