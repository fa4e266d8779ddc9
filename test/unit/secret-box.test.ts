import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/config'
import { keyIdOf, parseSecretKey, SECRET_KEY_FORMAT, secretBox, SecretBoxError } from '../../src/domain/secrets/secret-box'
import { loadSecretKey, SECRET_KEY_FILE } from '../../src/domain/secrets/secret-key-file'
import { inScratch as inScratchOf, thrownBy } from './thrown'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Issue 18: carrier tokens sealed at rest under the service's secret key, and where that key comes from.

const KEY = Buffer.alloc(32, 0x11)
const OTHER_KEY = Buffer.alloc(32, 0x22)
const box = secretBox(KEY)

/** The SecretBoxError `work` throws; fails the test when it returns or throws anything else. */
const boxErrorOf = (work: () => unknown) => thrownBy(SecretBoxError, work)

/** The ConfigError `work` throws; fails the test when it returns or throws anything else. */
const configErrorOf = (work: () => unknown) => thrownBy(ConfigError, work)

/** A sealed value's four parts, the nonce and body decoded. */
function partsOf(sealed: string) {
  const [version, keyId, nonce, body] = sealed.split('.') as [string, string, string, string]
  return { version, keyId, nonce: Buffer.from(nonce, 'base64url'), body: Buffer.from(body, 'base64url') }
}

const joinParts = (version: string, keyId: string, nonce: Buffer, body: Buffer) =>
  `${version}.${keyId}.${nonce.toString('base64url')}.${body.toString('base64url')}`

// Any code point but lone surrogates (those cannot survive UTF-8, by design of UTF-8).
const unicodeText = fc.string({ unit: 'binary', maxLength: 120 })
const context = fc.string({ unit: 'binary', maxLength: 60 })

describe('secretBox: seal and open', () => {
  test('property: any text sealed for a context opens for that context', () => {
    fc.assert(fc.property(unicodeText, context, (plain, ctx) => {
      expect(box.open(box.seal(plain, ctx), ctx)).toBe(plain)
    }), { numRuns: 300 })
  })

  test('a sealed value is v1.<key id>.<nonce>.<data>, stamped with the key id and never holding the text', () => {
    const plain = 'a-plain-token-0123456789'
    const sealed = box.seal(plain, 'org:1')
    const parts = partsOf(sealed)
    expect(parts.version).toBe('v1')
    expect(parts.keyId).toBe(box.keyId)
    expect(box.keyId).toBe(keyIdOf(KEY))
    expect(parts.nonce.length).toBe(12)
    expect(sealed).not.toContain(plain)
    expect(sealed).not.toContain(Buffer.from(plain).toString('base64url'))
  })

  test('two seals of the same text differ (a fresh nonce each time) and both open', () => {
    const a = box.seal('same text', 'org:1')
    const b = box.seal('same text', 'org:1')
    expect(a).not.toBe(b)
    expect(partsOf(a).nonce.equals(partsOf(b).nonce)).toBe(false)
    expect(box.open(a, 'org:1')).toBe('same text')
    expect(box.open(b, 'org:1')).toBe('same text')
  })

  test('property: a value sealed for one context does not open for another: tampered', () => {
    fc.assert(fc.property(unicodeText, context, context, (plain, sealedFor, openedFor) => {
      fc.pre(sealedFor !== openedFor)
      expect(boxErrorOf(() => box.open(box.seal(plain, sealedFor), openedFor)).reason).toBe('tampered')
    }), { numRuns: 200 })
  })

  test('another key: wrong_key, naming both key ids and never the text', () => {
    const plain = 'the-plain-secret-4242'
    const other = secretBox(OTHER_KEY)
    expect(other.keyId).not.toBe(box.keyId)
    const error = boxErrorOf(() => box.open(other.seal(plain, 'org:1'), 'org:1'))
    expect(error.reason).toBe('wrong_key')
    expect(error.message).toContain(other.keyId)
    expect(error.message).toContain(box.keyId)
    expect(error.message).not.toContain(plain)
    expect(error.message).not.toContain(KEY.toString('hex'))
    expect(error.message).not.toContain(OTHER_KEY.toString('hex'))
  })

  test('property: flipping any bits of any byte of the nonce or data: tampered', () => {
    fc.assert(fc.property(
      unicodeText, fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 255 }),
      (plain, inNonce, at, mask) => {
        const { version, keyId, nonce, body } = partsOf(box.seal(plain, 'org:1'))
        const target = inNonce ? nonce : body
        target[at % target.length]! ^= mask
        const error = boxErrorOf(() => box.open(joinParts(version, keyId, nonce, body), 'org:1'))
        expect(error.reason).toBe('tampered')
      },
    ), { numRuns: 300 })
  })

  test('property: changing any character of the nonce or data text: tampered or malformed', () => {
    const chars = fc.constantFrom(...'AQgw09azAZ-_+/=.!~ é')
    fc.assert(fc.property(unicodeText, fc.nat(), chars, (plain, at, ch) => {
      const sealed = box.seal(plain, 'org:1')
      const start = sealed.indexOf('.', sealed.indexOf('.') + 1) + 1
      const i = start + (at % (sealed.length - start))
      fc.pre(sealed[i] !== '.' && sealed[i] !== ch)
      const changed = sealed.slice(0, i) + ch + sealed.slice(i + 1)
      // A last base64 character carries spare bits: a change there may decode to the same bytes.
      const before = partsOf(sealed)
      const after = changed.split('.').length === 4 ? partsOf(changed) : null
      fc.pre(after === null || !after.nonce.equals(before.nonce) || !after.body.equals(before.body))
      expect(['tampered', 'malformed']).toContain(boxErrorOf(() => box.open(changed, 'org:1')).reason)
    }), { numRuns: 300 })
  })

  test.each<[string, (sealed: string) => string]>([
    ['empty', () => ''],
    ['garbage', () => 'not a sealed value'],
    ['plain base64', () => Buffer.from('hello').toString('base64')],
    ['another version', (s) => s.replace(/^v1\./, 'v2.')],
    ['no version', (s) => s.slice(3)],
    ['a fifth part', (s) => `${s}.AAAA`],
    ['three parts', (s) => s.split('.').slice(0, 3).join('.')],
    ['the data cut below the tag', (s) => s.slice(0, s.lastIndexOf('.') + 20)],
    ['no data', (s) => s.slice(0, s.lastIndexOf('.') + 1)],
    ['the nonce cut short', (s) => { const p = s.split('.'); return [p[0], p[1], p[2]!.slice(0, 8), p[3]].join('.') }],
    ['a nonce too long', (s) => { const p = s.split('.'); return [p[0], p[1], `${p[2]}AAAA`, p[3]].join('.') }],
    ['no nonce', (s) => { const p = s.split('.'); return [p[0], p[1], '', p[3]].join('.') }],
  ])('%s: malformed', (_, make) => {
    const value = make(box.seal('0123456789abcdef0123456789abcdef', 'org:1'))
    expect(boxErrorOf(() => box.open(value, 'org:1')).reason).toBe('malformed')
  })

  test('the box keeps its own copy of the key: changing the caller’s buffer changes nothing', () => {
    const key = Buffer.alloc(32, 0x33)
    const own = secretBox(key)
    const sealed = own.seal('kept', 'c')
    key.fill(0)
    expect(own.open(sealed, 'c')).toBe('kept')
    expect(own.keyId).toBe(keyIdOf(Buffer.alloc(32, 0x33)))
  })

  test.each([0, 16, 31, 33, 64])('a key of %p bytes is refused', (length) => {
    expect(() => secretBox(Buffer.alloc(length, 1))).toThrow(`got ${length}`)
  })
})

describe('parseSecretKey', () => {
  test('property: any 32 bytes as hex (either case), base64 or base64url, padded or not, parse back to themselves', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (raw) => {
      const bytes = Buffer.from(raw)
      const b64 = bytes.toString('base64')
      for (const text of [
        bytes.toString('hex'), bytes.toString('hex').toUpperCase(), b64, b64.replace(/=$/, ''),
        bytes.toString('base64url'), `${bytes.toString('base64url')}=`, `  ${bytes.toString('hex')}\n`,
      ]) {
        expect(parseSecretKey(text)?.equals(bytes)).toBe(true)
      }
    }), { numRuns: 200 })
  })

  const hex = 'ab'.repeat(32)
  const b64 = Buffer.alloc(32, 0xfb).toString('base64')
  test.each([
    ['empty', ''],
    ['62 hex characters', hex.slice(2)],
    ['63 hex characters', hex.slice(1)],
    ['65 hex characters', `${hex}a`],
    ['66 hex characters', `${hex}ab`],
    ['64 characters with a non-hex one', `${hex.slice(1)}g`],
    ['hex with a space inside', `${hex.slice(0, 32)} ${hex.slice(32)}`],
    ['base64 of 16 bytes', Buffer.alloc(16, 1).toString('base64')],
    ['base64 of 31 bytes', Buffer.alloc(31, 1).toString('base64')],
    ['base64 of 33 bytes', Buffer.alloc(33, 1).toString('base64')],
    ['base64 with two padding characters', `${b64}=`],
    ['base64 with a character outside the alphabet', `${b64.slice(0, 10)}*${b64.slice(11)}`],
    ['a passphrase', 'correct horse battery staple'],
  ])('%s is refused', (_, raw) => {
    expect(parseSecretKey(raw)).toBeNull()
  })
})

describe('loadSecretKey', () => {
  const HEX = 'cd'.repeat(32)

  const inScratch = (work: (root: string) => void) => inScratchOf('dialer-secret-key-', work)

  const onDisk = (dataDir: string) => ({ secretKey: null, dataDir, databasePath: join(dataDir, 'dialer.db') })

  test('DIALER_SECRET_KEY wins over a key file; nothing is written', () => {
    inScratch((root) => {
      const path = join(root, SECRET_KEY_FILE)
      writeFileSync(path, `${'ef'.repeat(32)}\n`, { mode: 0o600 })
      const loaded = loadSecretKey({ ...onDisk(root), secretKey: HEX })
      expect(loaded.source).toBe('env')
      expect(loaded.path).toBeNull()
      expect(loaded.key.toString('hex')).toBe(HEX)
      expect(readFileSync(path, 'utf8')).toBe(`${'ef'.repeat(32)}\n`)
    })
  })

  test('DIALER_SECRET_KEY with no key file: no file or data dir is made', () => {
    inScratch((root) => {
      const dataDir = join(root, 'data')
      const loaded = loadSecretKey({ ...onDisk(dataDir), secretKey: Buffer.from(HEX, 'hex').toString('base64') })
      expect(loaded.source).toBe('env')
      expect(loaded.key.toString('hex')).toBe(HEX)
      expect(existsSync(dataDir)).toBe(false)
    })
  })

  test('a malformed DIALER_SECRET_KEY is a ConfigError that does not echo it', () => {
    const error = configErrorOf(() => loadSecretKey({ secretKey: 'not-a-key-at-all', dataDir: '/nonexistent', databasePath: ':memory:' }))
    expect(error.message).toBe(SECRET_KEY_FORMAT)
    expect(error.message).not.toContain('not-a-key-at-all')
  })

  test('a database in memory gets a throwaway key of 32 bytes and no file', () => {
    inScratch((root) => {
      const dataDir = join(root, 'data')
      const first = loadSecretKey({ secretKey: null, dataDir, databasePath: ':memory:' })
      const second = loadSecretKey({ secretKey: null, dataDir, databasePath: ':memory:' })
      expect(first).toMatchObject({ source: 'memory', path: null })
      expect(first.key.length).toBe(32)
      expect(first.key.equals(second.key)).toBe(false)
      expect(existsSync(dataDir)).toBe(false)
    })
  })

  test('first boot in an empty data dir mints secret.key: mode 0600, 64 hex and a newline, the key returned', () => {
    inScratch((root) => {
      const loaded = loadSecretKey(onDisk(root))
      const path = join(root, SECRET_KEY_FILE)
      expect(loaded.source).toBe('minted')
      expect(loaded.path).toBe(path)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      const text = readFileSync(path, 'utf8')
      expect(text).toMatch(/^[0-9a-f]{64}\n$/)
      expect(text.trim()).toBe(loaded.key.toString('hex'))
    })
  })

  test('the next boot reads the same key from the file', () => {
    inScratch((root) => {
      const minted = loadSecretKey(onDisk(root))
      const again = loadSecretKey(onDisk(root))
      expect(again.source).toBe('file')
      expect(again.path).toBe(join(root, SECRET_KEY_FILE))
      expect(again.key.equals(minted.key)).toBe(true)
      // What the first boot sealed, the next one opens.
      expect(secretBox(again.key).open(secretBox(minted.key).seal('token', 'org:1'), 'org:1')).toBe('token')
    })
  })

  test('a missing data dir is made (with its parents) before the key is minted', () => {
    inScratch((root) => {
      const dataDir = join(root, 'a', 'b', 'data')
      const loaded = loadSecretKey(onDisk(dataDir))
      expect(loaded.source).toBe('minted')
      expect(statSync(dataDir).isDirectory()).toBe(true)
      expect(statSync(join(dataDir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600)
    })
  })

  const OPEN_MODES: [string, number][] = [['0644', 0o644], ['0640', 0o640], ['0604', 0o604], ['0660', 0o660], ['0666', 0o666]]
  test.each(OPEN_MODES)('a key file of mode %s stops the start: ConfigError naming chmod 600', (_, mode) => {
    inScratch((root) => {
      const path = join(root, SECRET_KEY_FILE)
      writeFileSync(path, `${HEX}\n`)
      chmodSync(path, mode)
      const error = configErrorOf(() => loadSecretKey(onDisk(root)))
      expect(error.message).toContain(`chmod 600 ${path}`)
      expect(error.message).not.toContain(HEX)
      // Refused, not replaced: the file is as it was.
      expect(readFileSync(path, 'utf8')).toBe(`${HEX}\n`)
    })
  })

  test('a key file of mode 0400 (owner only) is read', () => {
    inScratch((root) => {
      const path = join(root, SECRET_KEY_FILE)
      writeFileSync(path, `${HEX}\n`)
      chmodSync(path, 0o400)
      expect(loadSecretKey(onDisk(root)).key.toString('hex')).toBe(HEX)
    })
  })

  test.each([
    ['empty', ''],
    ['a word', 'hello\n'],
    ['63 hex characters', `${HEX.slice(1)}\n`],
    ['two keys', `${HEX}\n${HEX}\n`],
  ])('a key file that holds %s stops the start with a ConfigError, and is left as it was', (_, content) => {
    inScratch((root) => {
      const path = join(root, SECRET_KEY_FILE)
      writeFileSync(path, content, { mode: 0o600 })
      chmodSync(path, 0o600)
      const error = configErrorOf(() => loadSecretKey(onDisk(root)))
      expect(error.message).toContain('does not hold a key')
      if (content.trim() !== '') expect(error.message).not.toContain(content.trim())
      expect(readFileSync(path, 'utf8')).toBe(content)
    })
  })

  test('a directory where the key file goes stops the start with a ConfigError', () => {
    inScratch((root) => {
      mkdirSync(join(root, SECRET_KEY_FILE), { mode: 0o700 })
      expect(configErrorOf(() => loadSecretKey(onDisk(root))).message).toContain('not a regular file')
      expect(statSync(join(root, SECRET_KEY_FILE)).isDirectory()).toBe(true)
    })
  })
})
