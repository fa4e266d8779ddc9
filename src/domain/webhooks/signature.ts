import { createHmac, randomBytes } from 'node:crypto'

/** A signing secret: `whsec_` + base64 of 24 random bytes (DESIGN.md "Signature"). */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`

/**
 * The Standard Webhooks signature header: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
 * under each secret (the key is the base64 after `whsec_`), space-separated when two secrets
 * sign during a roll.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64')
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
    })
    .join(' ')
}
