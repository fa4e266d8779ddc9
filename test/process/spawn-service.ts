import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

/** A `dialer serve` child process for the process-level tests. */
export type ServiceProcess = Bun.Subprocess<'ignore', 'pipe', 'pipe'>

export interface RunningService {
  proc: ServiceProcess
  /** http://host:port as the service printed it. */
  base: string
  /** Everything it wrote to stdout so far (the banner and the JSON log). */
  output(): string
}

/**
 * Spawns `command serve --port 0 --data-dir DIR` and resolves once it prints "listening on".
 * Stdout keeps being read (and kept for `output()`) so the log never blocks the process.
 */
export async function spawnService(options: { command: string[]; dataDir: string; cwd: string; env: Record<string, string> }): Promise<RunningService> {
  const proc = Bun.spawn([...options.command, 'serve', '--port', '0', '--data-dir', options.dataDir], {
    cwd: options.cwd,
    env: options.env,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let output = ''
  const deadline = Date.now() + 15_000
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`)
    const { value, done } = await reader.read()
    if (done) throw new Error(`server exited before listening: ${output}${await new Response(proc.stderr).text()}`)
    output += decoder.decode(value, { stream: true })
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) break
      output += decoder.decode(value, { stream: true })
    }
  })()
  return { proc, base: /listening on (http:\/\/\S+)/.exec(output)![1]!, output: () => output }
}

/**
 * The compiled service at `binary`, as the binary tests run it: a copy of DIALER_TEST_BINARY
 * (CI builds dist/dialer first), else built here from the sources.
 */
export function placeBinary(binary: string): void {
  const prebuilt = process.env.DIALER_TEST_BINARY
  if (prebuilt && existsSync(prebuilt)) return copyFileSync(prebuilt, binary)
  const root = join(import.meta.dir, '../..')
  const build = Bun.spawnSync([process.execPath, 'run', join(root, 'scripts/build.ts'), binary], { cwd: root })
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
}

/**
 * The command that runs the service under test: a copy of DIALER_TEST_BINARY alone in
 * `workDir` (an empty folder, as users run it; CI points it at dist/dialer), else the source.
 */
export function serviceCommand(workDir: string): string[] {
  const prebuilt = process.env.DIALER_TEST_BINARY
  if (!prebuilt) return [process.execPath, 'run', join(import.meta.dir, '../../src/main.ts')]
  if (!existsSync(prebuilt)) throw new Error(`DIALER_TEST_BINARY=${prebuilt} does not exist`)
  const binary = join(workDir, 'dialer')
  copyFileSync(prebuilt, binary)
  return [binary]
}
