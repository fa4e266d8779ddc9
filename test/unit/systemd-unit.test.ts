import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** scripts/systemd/dialer.service: well formed, and what it sets is what the service reads. */
const unit = readFileSync(join(import.meta.dir, '../../scripts/systemd/dialer.service'), 'utf8')
const lines = unit.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))

/** The keys of one [Section]. */
function section(name: string): string[] {
  const start = lines.indexOf(`[${name}]`)
  const end = lines.findIndex((l, i) => i > start && l.startsWith('['))
  return lines.slice(start + 1, end < 0 ? undefined : end).map((l) => l.slice(0, l.indexOf('=')))
}

const analyze = Bun.which('systemd-analyze')

/** `systemd-analyze verify` on the unit with ExecStart pointed at a file that exists here. */
function verify(text: string): { exitCode: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dialer-unit-'))
  try {
    const file = join(dir, 'dialer.service')
    writeFileSync(file, text.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`))
    const r = Bun.spawnSync([analyze!, 'verify', file], { stderr: 'pipe', stdout: 'pipe' })
    return { exitCode: r.exitCode, output: `${r.stdout.toString()}${r.stderr.toString()}`.trim() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

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

  test('the start limit is in [Unit], where systemd reads it; a bad-config exit (2) is not restarted', () => {
    expect(section('Unit')).toContain('StartLimitIntervalSec')
    expect(section('Unit')).toContain('StartLimitBurst')
    expect(section('Service')).not.toContain('StartLimitIntervalSec')
    expect(section('Service')).not.toContain('StartLimitBurst')
    expect(lines).toContain('RestartPreventExitStatus=2')
  })

  // systemd-analyze is not on every machine that runs the tests (macOS, slim containers).
  test.skipIf(!analyze)('systemd-analyze verify: clean (skipped when systemd-analyze is not installed)', () => {
    expect(verify(unit)).toEqual({ exitCode: 0, output: '' })
    // And it does catch the mistake this unit once had.
    const misplaced = unit.replace(/^StartLimitIntervalSec=.*$/m, '').replace(/^\[Service\]$/m, '[Service]\nStartLimitIntervalSec=120')
    expect(verify(misplaced).output).toContain("Unknown key 'StartLimitIntervalSec' in section [Service]")
  })
})
