import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/config'
import { keyIdOf, secretBox } from '../../src/domain/secrets/secret-box'
import { loadSecretKey, SECRET_KEY_FILE, type SealedValue } from '../../src/domain/secrets/secret-key-file'
import { inScratch as inScratchOf, thrownBy } from './thrown'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// A start whose secret key cannot open the carrier tokens sealed in the database stops, naming
// the key, instead of minting a new one (a restore that did not bring secret.key back).

const KEY = Buffer.alloc(32, 0x11)
const OTHER = Buffer.alloc(32, 0x22)
const sealedWith = (key: Buffer, orgId = 'org-1'): SealedValue => {
  const context = `org:${orgId}:twilio_auth_token`
  return { sealed: secretBox(key).seal('f'.repeat(32), context), context }
}

const configErrorOf = (work: () => unknown) => thrownBy(ConfigError, work)
const inScratch = (work: (root: string) => void) => inScratchOf('dialer-secret-restore-', work)
const onDisk = (dataDir: string) => ({ secretKey: null, dataDir, databasePath: join(dataDir, 'dialer.db') })

describe('loadSecretKey against the sealed values', () => {
  test('no key file and sealed tokens: stops naming the file, writes no new key', () => {
    inScratch((root) => {
      const error = configErrorOf(() => loadSecretKey(onDisk(root), () => [sealedWith(KEY), sealedWith(KEY, 'org-2')]))
      expect(error.message).toContain(join(root, SECRET_KEY_FILE))
      expect(error.message).toContain('missing')
      expect(error.message).toContain('2 carrier auth tokens')
      expect(error.message).toContain(keyIdOf(KEY))
      expect(error.message).toContain('DIALER_SECRET_KEY')
      expect(existsSync(join(root, SECRET_KEY_FILE))).toBe(false)
    })
  })

  test('no key file and nothing sealed: a key is minted as before', () => {
    inScratch((root) => {
      let asked = 0
      const loaded = loadSecretKey(onDisk(root), () => (asked++, []))
      expect(loaded.source).toBe('minted')
      expect(asked).toBe(1)
      expect(existsSync(join(root, SECRET_KEY_FILE))).toBe(true)
    })
  })

  test('a key file with another key: stops naming the file and both key ids', () => {
    inScratch((root) => {
      writeFileSync(join(root, SECRET_KEY_FILE), `${OTHER.toString('hex')}\n`, { mode: 0o600 })
      const error = configErrorOf(() => loadSecretKey(onDisk(root), () => [sealedWith(KEY)]))
      expect(error.message).toContain(`the secret key file ${join(root, SECRET_KEY_FILE)}`)
      expect(error.message).toContain(keyIdOf(OTHER))
      expect(error.message).toContain(keyIdOf(KEY))
      expect(error.message).not.toContain(OTHER.toString('hex'))
    })
  })

  test('the right key file opens them', () => {
    inScratch((root) => {
      writeFileSync(join(root, SECRET_KEY_FILE), `${KEY.toString('hex')}\n`, { mode: 0o600 })
      expect(loadSecretKey(onDisk(root), () => [sealedWith(KEY)]).source).toBe('file')
    })
  })

  test('DIALER_SECRET_KEY that is not the sealing key: stops naming the variable, never echoing it', () => {
    const hex = OTHER.toString('hex')
    const error = configErrorOf(() => loadSecretKey({ secretKey: hex, dataDir: '/nonexistent', databasePath: '/nonexistent/dialer.db' }, () => [sealedWith(KEY)]))
    expect(error.message).toContain('DIALER_SECRET_KEY')
    expect(error.message).not.toContain(hex)
    expect(loadSecretKey({ secretKey: KEY.toString('hex'), dataDir: '/nonexistent', databasePath: '/nonexistent/dialer.db' }, () => [sealedWith(KEY)]).source).toBe('env')
  })

  test('one damaged value under the right key does not stop the start (that organization sets its token again)', () => {
    inScratch((root) => {
      writeFileSync(join(root, SECRET_KEY_FILE), `${KEY.toString('hex')}\n`, { mode: 0o600 })
      const good = sealedWith(KEY)
      const moved = { ...sealedWith(KEY, 'org-2'), context: 'org:org-3:twilio_auth_token' }
      expect(loadSecretKey(onDisk(root), () => [good, moved]).source).toBe('file')
    })
  })
})
