import { readFileSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'

/**
 * What every generator does with its output: writes it, or with `--check` (CI) exits 1 when
 * the committed file differs, naming the command that regenerates it.
 */
export function writeOrCheck(target: string, rendered: string, command: string): void {
  const name = relative(`${import.meta.dir}/..`, target)
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== rendered) {
      console.error(`${name} is out of date: run \`${command}\``)
      process.exit(1)
    }
  } else {
    writeFileSync(target, rendered)
    console.log(`wrote ${target}`)
  }
}
