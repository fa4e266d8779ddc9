import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readBasicCredentials } from '../../src/http/basic-auth'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

describe('readBasicCredentials', () => {
  test('a valid header', () => {
    expect(readBasicCredentials(`Basic ${b64('dk_live_abc:s3cret')}`)).toEqual({ keyId: 'dk_live_abc', secret: 's3cret' })
  })

  test.each(['basic', 'BASIC', 'bAsIc'])('scheme %p is case-insensitive', (scheme) => {
    expect(readBasicCredentials(`${scheme} ${b64('dk_test_x:y')}`)).toEqual({ keyId: 'dk_test_x', secret: 'y' })
  })

  test('surrounding whitespace is tolerated', () => {
    expect(readBasicCredentials(`  Basic   ${b64('id:secret')}  `)).toEqual({ keyId: 'id', secret: 'secret' })
  })

  test('a colon inside the secret belongs to the secret', () => {
    expect(readBasicCredentials(`Basic ${b64('id:se:cr:et')}`)).toEqual({ keyId: 'id', secret: 'se:cr:et' })
  })

  test('non-ASCII secret decodes as UTF-8', () => {
    expect(readBasicCredentials(`Basic ${b64('id:päss')}`)).toEqual({ keyId: 'id', secret: 'päss' })
  })

  test.each<[string, string | null]>([
    ['null', null],
    ['empty header', ''],
    ['Bearer scheme', `Bearer ${b64('id:secret')}`],
    ['scheme only', 'Basic'],
    ['scheme and space only', 'Basic '],
    ['no colon', `Basic ${b64('idsecret')}`],
    ['empty secret', `Basic ${b64('id:')}`],
    ['empty key id', `Basic ${b64(':secret')}`],
    ['garbage that is not base64', 'Basic !!!not*base64!!!'],
    ['base64 of bytes with no colon', `Basic ${Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64')}`],
    ['two tokens', `Basic ${b64('id:secret')} extra`],
    ['key id over 200 characters', `Basic ${b64(`${'k'.repeat(201)}:secret`)}`],
    ['secret over 500 characters', `Basic ${b64(`id:${'s'.repeat(501)}`)}`],
  ])('%s -> null', (_, header) => {
    expect(readBasicCredentials(header)).toBeNull()
  })

  test('the length limits themselves are accepted', () => {
    const keyId = 'k'.repeat(200)
    const secret = 's'.repeat(500)
    expect(readBasicCredentials(`Basic ${b64(`${keyId}:${secret}`)}`)).toEqual({ keyId, secret })
  })
})
