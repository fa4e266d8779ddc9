import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'

/** scripts/systemd/dialer.service: well formed, and what it sets is what the service reads. */
const unit = readFileSync(join(import.meta.dir, '../../scripts/systemd/dialer.service'), 'utf8')
const lines = unit.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))

describe('systemd unit', () => {
  test('every line is a [Section] or Key=value in one of the three sections', () => {
    const sections: string[] = []
    for (const line of lines) {
      if (line.startsWith('[')) sections.push(line)
      else expect(line).toMatch(/^[A-Za-z]+=/)
    }
    expect(sections).toEqual(['[Unit]', '[Service]', '[Install]'])
  })

  test('runs `dialer serve` as its own user, restarts on failure, stops with SIGTERM after the grace', () => {
    const get = (key: string) => lines.find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1)
    expect(get('ExecStart')).toBe('/usr/local/bin/dialer serve')
    expect(get('User')).toBe('dialer')
    expect(get('Restart')).toBe('on-failure')
    expect(get('KillSignal')).toBe('SIGTERM')
    // The stop timeout leaves room for the default 10-second grace.
    const config = loadConfig({})
    expect(Number.parseInt(get('TimeoutStopSec')!, 10) * 1000).toBeGreaterThan(config.shutdownGraceMs)
    expect(get('ReadWritePaths')).toBe(get('Environment')!.split('=')[1])
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=yes/m)
  })

  test('the environment it sets is valid config', () => {
    const env: Record<string, string> = {}
    for (const line of lines.filter((l) => l.startsWith('Environment='))) {
      const [name, value] = line.slice('Environment='.length).split('=') as [string, string]
      expect(name).toStartWith('DIALER_')
      env[name] = value
    }
    expect(loadConfig(env).dataDir).toBe('/var/lib/dialer')
  })
})
