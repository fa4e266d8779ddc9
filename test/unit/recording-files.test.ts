import { setDefaultTimeout } from 'bun:test'
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { recordingFiles } from '../../src/domain/calls/recording-files'
import { newId } from '../../src/domain/ids'

setDefaultTimeout(60_000)

const dirs: string[] = []
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dialer-recordings-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const audio = (n: number, fill = 7) => new Uint8Array(n).fill(fill)

describe('recording files', () => {
  test('save, read and remove a call\u2019s recording; the folder is made on first save', () => {
    const data = dataDir()
    const files = recordingFiles(data)
    const id = newId()
    expect(existsSync(join(data, 'recordings'))).toBe(false)
    expect(files.read(id)).toBeNull()
    files.save(id, audio(300_000))
    expect(files.path(id)).toBe(join(data, 'recordings', `${id}.wav`))
    const back = files.read(id)!
    expect(back.byteLength).toBe(300_000)
    expect(back[0]).toBe(7)
    expect(back[299_999]).toBe(7)
    expect(files.remove(id)).toBe(true)
    expect(files.read(id)).toBeNull()
    // A file already gone (a simulator call, a second purge) is not an error.
    expect(files.remove(id)).toBe(false)
  })

  test('the folder is 0700 and the files 0600', () => {
    const data = dataDir()
    const files = recordingFiles(data)
    const id = newId()
    files.save(id, audio(10))
    expect(statSync(join(data, 'recordings')).mode & 0o777).toBe(0o700)
    expect(statSync(files.path(id)).mode & 0o777).toBe(0o600)
  })

  test('saving again replaces the file whole, and leaves no temporary file behind', () => {
    const data = dataDir()
    const files = recordingFiles(data)
    const id = newId()
    files.save(id, audio(1000, 1))
    files.save(id, audio(10, 2))
    expect([...files.read(id)!]).toEqual([...audio(10, 2)])
    files.save(newId(), new Uint8Array(0))
    const names = readdirSync(join(data, 'recordings'))
    expect(names.length).toBe(2)
    for (const name of names) expect(name).toMatch(/^[0-9a-f-]{36}\.wav$/)
  })

  test('a failed write leaves neither the real name nor a temporary file', () => {
    const data = dataDir()
    const files = recordingFiles(data)
    const id = newId()
    // Not a byte array: the write fails after the temporary file was opened.
    expect(() => files.save(id, { byteLength: 5 } as unknown as Uint8Array)).toThrow()
    expect(readdirSync(join(data, 'recordings'))).toEqual([])
    expect(files.read(id)).toBeNull()
  })

  test('an upper-case id names the same file', () => {
    const files = recordingFiles(dataDir())
    const id = newId()
    files.save(id.toUpperCase(), audio(3))
    expect(files.read(id)!.byteLength).toBe(3)
  })

  test('anything but a call id is refused: no path outside the folder can be reached', () => {
    const data = dataDir()
    const files = recordingFiles(data)
    // A file next to the folder that a traversal would reach.
    writeFileSync(join(data, 'secret.wav'), 'secret')
    const bad = [
      '../secret', '../../etc/passwd', `${newId()}/../../secret`, `../${newId()}`, `${newId()}\0`, `${newId()}.wav`,
      '', '.', '..', '/etc/passwd', 'call_123', `${newId()} `, `x${newId()}`, newId().replaceAll('-', ''),
    ]
    for (const id of bad) {
      expect(() => files.path(id)).toThrow('not a call id')
      expect(() => files.save(id, audio(1))).toThrow('not a call id')
      expect(() => files.read(id)).toThrow('not a call id')
      expect(() => files.remove(id)).toThrow('not a call id')
    }
    expect(existsSync(join(data, 'secret.wav'))).toBe(true)
    expect(existsSync(join(data, 'recordings'))).toBe(false)
  })
})
