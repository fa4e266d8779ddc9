/**
 * `bun run build`: one self-contained executable at dist/dialer (or the path given).
 * Migrations, the docs page assets and phone metadata are embedded through imports, so the
 * binary runs from an empty folder.
 */
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const outfile = process.argv[2] ?? join(root, 'dist/dialer')

const proc = Bun.spawnSync(
  [
    process.execPath, 'build', '--compile', '--minify', '--sourcemap=none',
    // Only @elysiajs/openapi's `fromTypes` (unused here) loads the TypeScript compiler.
    '--external', 'typescript',
    // The WAL checkpointer runs as a Worker: its entrypoint must be in the executable too.
    join(root, 'src/main.ts'), join(root, 'src/db/checkpointer.worker.ts'), '--outfile', outfile,
  ],
  { cwd: root, stdout: 'inherit', stderr: 'inherit' },
)
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1)
console.log(`built ${outfile}`)
