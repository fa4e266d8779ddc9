import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/config'
import { parseSecretKey, secretBox, SecretBoxError } from '../../src/domain/secrets/secret-box'
import { loadSecretKey, SECRET_KEY_FILE } from '../../src/domain/secrets/secret-key-file'
import { scratchDir } from '../harness'

setDefaultTimeout(60_000)

// Carrier auth tokens at rest (issue 18, item 2): sealed with the service's secret key.

const KEY = Buffer.alloc(32, 7)
const OTHER = Buffer.alloc(32, 9)

function errorOf(work: () => unknown): SecretBoxError {
  try {
    work()
  } catch (error) {
    expect(error).toBeInstanceOf(SecretBoxError)
    return error as SecretBoxError
  }
  throw new Error('expected a SecretBoxError')
}

describe('secretBox', () => {
  test('property: what is sealed opens with the same key and context', () => {
    const box = secretBox(KEY)
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 60 }), (plain, context) => {
      expect(box.open(box.seal(plain, context), context)).toBe(plain)
    }), { numRuns: 300 })
  })

  test('sealing the same text twice gives different values (a fresh nonce), neither holding the text', () => {
    const box = secretBox(KEY)
    const token = 'f'.repeat(32)
    const a = box.seal(token, 'org:1')
    const b = box.seal(token, 'org:1')
    expect(a).not.toBe(b)
    expect(a).not.toContain(token)
    expect(a.split('.')[1]).toBe(box.keyId)
  })

  test('another context (another organization) does not open: tampered', () => {
    const box = secretBox(KEY)
    expect(errorOf(() => box.open(box.seal('secret', 'org:1'), 'org:2')).reason).toBe('tampered')
  })

  test('another key: wrong_key, naming both key ids and never the secret', () => {
    const sealed = secretBox(OTHER).seal('the-plain-secret', 'org:1')
    const error = errorOf(() => secretBox(KEY).open(sealed, 'org:1'))
    expect(error.reason).toBe('wrong_key')
    expect(error.message).toContain(secretBox(OTHER).keyId)
    expect(error.message).toContain(secretBox(KEY).keyId)
    expect(error.message).not.toContain('the-plain-secret')
  })

  test('property: any changed character of the nonce or data does not open', () => {
    const box = secretBox(KEY)
    const sealed = box.seal('0123456789abcdef0123456789abcdef', 'org:1')
    const start = sealed.indexOf('.', sealed.indexOf('.') + 1) + 1
    fc.assert(fc.property(fc.integer({ min: start, max: sealed.length - 1 }), fc.constantFrom(...'ABCabc012-_'), (at, ch) => {
      fc.pre(sealed[at] !== ch && sealed[at] !== '.')
      const changed = sealed.slice(0, at) + ch + sealed.slice(at + 1)
      expect(() => box.open(changed, 'org:1')).toThrow(SecretBoxError)
    }), { numRuns: 300 })
  })

  test.each([
    ['empty', ''],
    ['garbage', 'not sealed at all'],
    ['another version', 'v9.abc.def.ghi'],
    ['truncated data', (box: ReturnType<typeof secretBox>) => box.seal('x', 'c').split('.').slice(0, 3).join('.') + '.AA'],
  ])('%s: refused, never thrown as anything but SecretBoxError', (_, value) => {
    const box = secretBox(KEY)
    const sealed = typeof value === 'function' ? value(box) : value
    expect(() => box.open(sealed, 'c')).toThrow(SecretBoxError)
  })

  test('a key that is not 32 bytes is refused', () => {
    expect(() => secretBox(Buffer.alloc(16))).toThrow('32 bytes')
  })
})

describe('parseSecretKey', () => {
  const hex = 'ab'.repeat(32)
  const b64 = Buffer.alloc(32, 200).toString('base64')
  test.each([
    ['64 hex', hex, true],
    ['64 hex, upper case, with a newline', `${hex.toUpperCase()}\n`, true],
    ['base64 with padding', b64, true],
    ['base64 without padding', b64.replace(/=$/, ''), true],
    ['base64url', Buffer.alloc(32, 251).toString('base64url'), true],
    ['62 hex', hex.slice(2), false],
    ['66 hex', `${hex}ab`, false],
    ['16 bytes of base64', Buffer.alloc(16).toString('base64'), false],
    ['a passphrase', 'correct horse battery staple', false],
  ])('%s: %p', (_, raw, ok) => {
    const key = parseSecretKey(raw)
    expect(key === null ? false : key.length === 32).toBe(ok)
  })
})

describe('loadSecretKey', () => {
  const hex = 'cd'.repeat(32)

  test('DIALER_SECRET_KEY wins; no file is written', () => {
    const dir = scratchDir()
    try {
      const loaded = loadSecretKey({ secretKey: hex, dataDir: dir.path, databasePath: join(dir.path, 'dialer.db') })
      expect(loaded).toMatchObject({ source: 'env', path: null })
      expect(loaded.key.toString('hex')).toBe(hex)
      expect(existsSync(join(dir.path, SECRET_KEY_FILE))).toBe(false)
    } finally {
      dir.remove()
    }
  })

  test('a database in memory gets a throwaway key and no file', () => {
    expect(loadSecretKey({ secretKey: null, dataDir: '/nonexistent', databasePath: ':memory:' }).source).toBe('memory')
  })

  test('first boot mints secret.key (0600, in a data dir it makes); the next boot reads the same key', () => {
    const dir = scratchDir()
    try {
      const dataDir = join(dir.path, 'data')
      const config = { secretKey: null, dataDir, databasePath: join(dataDir, 'dialer.db') }
      const first = loadSecretKey(config)
      expect(first.source).toBe('minted')
      const path = join(dataDir, SECRET_KEY_FILE)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(readFileSync(path, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)
      const second = loadSecretKey(config)
      expect(second.source).toBe('file')
      expect(second.key.equals(first.key)).toBe(true)
    } finally {
      dir.remove()
    }
  })

  test.each([
    ['readable by others', (path: string) => {
      writeFileSync(path, `${hex}\n`)
      chmodSync(path, 0o644)
    }, 'chmod 600'],
    ['not a key', (path: string) => writeFileSync(path, 'hello\n', { mode: 0o600 }), 'does not hold a key'],
    ['a directory', (path: string) => mkdirSync(path), 'not a regular file'],
  ])('a key file %s stops the start with a ConfigError', (_, make, message) => {
    const dir = scratchDir()
    try {
      make(join(dir.path, SECRET_KEY_FILE))
      expect(() => loadSecretKey({ secretKey: null, dataDir: dir.path, databasePath: join(dir.path, 'dialer.db') })).toThrow(message)
      try {
        loadSecretKey({ secretKey: null, dataDir: dir.path, databasePath: join(dir.path, 'dialer.db') })
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError)
        expect(String(error)).not.toContain(hex)
      }
    } finally {
      dir.remove()
    }
  })
})
