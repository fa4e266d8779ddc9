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
    process.execPath, 'build', '--compile', '--sourcemap=none',
    // Not --minify: renamed identifiers change behaviour. Elysia compiles each route with
    // `catch(error){if(error.constructor.name === 'TransformDecodeError') throw ...}` and
    // swallows anything else, so with TypeBox's classes renamed every t.Integer bound (limit,
    // offset, ...) was skipped; it also maps replies by constructor.name. Bun 1.4's
    // --keep-names does not keep class names, so identifiers stay as they are.
    '--minify-syntax', '--minify-whitespace',
    // Bun inlines process.env.NODE_ENV at build time ("development" unless told). Elysia reads
    // Bun.env.NODE_ENV at run time instead, so this does not change how it validates.
    '--define', 'process.env.NODE_ENV="production"',
    // Only @elysiajs/openapi's `fromTypes` (unused here) loads the TypeScript compiler.
    '--external', 'typescript',
    // The WAL checkpointer runs as a Worker: its entrypoint must be in the executable too.
    join(root, 'src/main.ts'), join(root, 'src/db/checkpointer.worker.ts'), '--outfile', outfile,
  ],
  { cwd: root, stdout: 'inherit', stderr: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
)
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1)
console.log(`built ${outfile}`)
