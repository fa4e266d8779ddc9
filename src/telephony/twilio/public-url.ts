import { logger } from '../../log'

/**
 * Twilio reaches the service only at DIALER_PUBLIC_URL: a loopback address there (the default,
 * the address the service listens on) means no callback can arrive, and every call it places
 * ends failed. Warned once a process: at start when an organization has Twilio settings, else
 * at the first Twilio dial.
 */
let warned = false

export function isLoopbackUrl(url: string): boolean {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return false
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || host === '0.0.0.0' || host === '::'
}

export function warnIfLoopback(publicUrl: string): void {
  if (warned || !isLoopbackUrl(publicUrl)) return
  warned = true
  logger.warn('twilio_public_url_loopback', {
    public_url: publicUrl,
    message: 'DIALER_PUBLIC_URL is a loopback address: Twilio cannot reach its callbacks there. Set it to the public https URL of this service (docs/telephony.md).',
  })
}
