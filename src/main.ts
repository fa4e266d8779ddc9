#!/usr/bin/env bun
import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { adminMain } from './cli/admin-cli'
import { CliError, EXIT } from './cli/cli-error'
import { storageFailure } from './cli/startup-errors'
import { ConfigError, loadConfig } from './config'
import type { OpenOptions } from './db/client'
import { VERSION } from './version'

// The service and the database load only for the commands that use them, so `dialer admin`
// and `--help` start in a fraction of the time.
const database = () => import('./db/client')

const USAGE = `Dialer ${VERSION}: self-hosted lead dialing and call records

Usage:
  dialer serve [--demo] [--port 8080] [--host 127.0.0.1] [--data-dir ./data] [--public-url URL]
               [--fake-clock] [--sim-speed 1] [--webhook-allow-private]
  dialer migrate [--data-dir DIR]          apply database migrations and exit
  dialer backup FILE [--data-dir DIR]      online, consistent copy of the database (safe while serving)
  dialer admin-token reset [--data-dir DIR] mint a new admin token (printed once)
  dialer admin RESOURCE ACTION ...         admin API from the shell ("dialer admin help")
  dialer version

Exit codes: 0 done, 1 unexpected error, 2 usage or configuration error; admin: 3 service
unreachable, 4 refused (4xx), 5 service error (5xx); serve: 73 data directory or database
unusable, 75 cannot listen (port in use).
Every flag has an environment twin (--data-dir = DIALER_DATA_DIR); flags win. See README.md.`

const CONFIG_FLAGS = {
  port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' }, database: { type: 'string' },
  'public-url': { type: 'string' }, 'admin-token': { type: 'string' }, 'fake-clock': { type: 'boolean' },
  'sim-speed': { type: 'string' }, 'webhook-allow-private': { type: 'boolean' }, synchronous: { type: 'string' },
  'log-requests': { type: 'string' }, 'check-replies': { type: 'string' }, 'group-commits': { type: 'string' }, 'shutdown-grace-seconds': { type: 'string' },
  'sqlite-cache-mb': { type: 'string' }, 'auth-failures-per-minute': { type: 'string' }, 'account-failures': { type: 'string' }, 'trust-proxy': { type: 'string' },
  'api-version': { type: 'string' },
} as const

function configFrom(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }> = {}) {
  const { values, positionals } = parseArgs({ args: argv, options: { ...CONFIG_FLAGS, ...extra }, allowPositionals: true, strict: true })
  const flags: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(values)) flags[k] = typeof v === 'boolean' ? (v ? '1' : '0') : (v as string | undefined)
  return { config: loadConfig(process.env, flags), values, positionals }
}

/** openDatabase, with a database that cannot be used as one line (exit 73). */
async function open(path: string, options?: OpenOptions) {
  const { openDatabase } = await database()
  try {
    return openDatabase(path, options)
  } catch (error) {
    throw storageFailure(error, path) ?? error
  }
}

/** Refuses a path with no Dialer database, rather than creating an empty one there. */
function requireDialerDatabase(path: string): void {
  const fix = "point --data-dir (or DIALER_DATA_DIR) at the service's data directory; `dialer serve` creates it on first start"
  if (!existsSync(path)) throw new CliError(`no database at ${path}; ${fix}`)
  let tables: unknown[]
  try {
    const sqlite = new Database(path, { readonly: true })
    tables = sqlite.query("SELECT name FROM sqlite_master WHERE name = '__drizzle_migrations'").all()
    sqlite.close()
  } catch (error) {
    throw storageFailure(error, path) ?? error
  }
  if (tables.length === 0) throw new CliError(`${path} is not a Dialer database; ${fix}`)
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command !== 'admin' && (rest.includes('--help') || rest.includes('-h'))) {
    console.log(USAGE)
    return 0
  }
  switch (command) {
    case 'serve': {
      const { config, values } = configFrom(rest, { demo: { type: 'boolean' } })
      const { serve } = await import('./cli/serve')
      await serve(config, { demo: Boolean((values as Record<string, unknown>).demo) })
      return -1 // keeps running
    }
    case 'migrate': {
      const { config } = configFrom(rest)
      const { latestMigration, migrate } = await database()
      const db = await open(config.databasePath, { synchronous: config.synchronous })
      const applied = migrate(db)
      db.close()
      console.log(`${config.databasePath}: ${applied} migration(s) applied; schema at ${latestMigration()}`)
      return 0
    }
    case 'backup': {
      const { config, positionals } = configFrom(rest)
      const target = positionals[0]
      if (!target) throw new CliError('Usage: dialer backup FILE')
      if (existsSync(target)) throw new CliError(`${target} exists; choose a new file name`)
      if (!existsSync(config.databasePath)) throw new CliError(`No database at ${config.databasePath}`)
      const db = await open(config.databasePath)
      // The copy holds everything the database does: made 0600 before SQLite writes into it
      // (VACUUM INTO takes an empty file), whatever the umask.
      const { writePrivateBackup } = await import('./db/file-modes')
      writePrivateBackup(target, () => db.sqlite.query('VACUUM INTO ?').run(target))
      db.sqlite.close()
      console.log(`Backed up ${config.databasePath} to ${target}`)
      return 0
    }
    case 'admin-token': {
      const { config, positionals } = configFrom(rest)
      if (positionals[0] !== 'reset') throw new CliError('Usage: dialer admin-token reset [--data-dir DIR]')
      requireDialerDatabase(config.databasePath)
      const { migrate } = await database()
      const { settingsStore } = await import('./db/stores/settings-store')
      const { resetAdminToken } = await import('./domain/access/admin-token')
      const db = await open(config.databasePath)
      migrate(db)
      const token = resetAdminToken(settingsStore(db.db))
      // Console sessions signed in with the old token end with it.
      const { consoleStore } = await import('./db/stores/console-store')
      consoleStore(db.db, db.sqlite).deleteOperatorSessions()
      db.close()
      console.log(`New admin token (shown once): ${token}`)
      if (config.adminToken) console.log('Note: DIALER_ADMIN_TOKEN is set and takes precedence over the stored token.')
      return 0
    }
    case 'admin':
      return adminMain(rest, process.env)
    case 'version':
    case '--version':
      console.log(VERSION)
      return 0
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE)
      return 0
    default:
      throw new CliError(`unknown command "${command}"`, EXIT.usage, 'Run `dialer help` for the commands.')
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (error) => {
    // What an operator can fix is one line (and maybe a hint); anything else is a bug: its stack.
    if (error instanceof CliError) {
      console.error(error.hint ? `${error.message}\n${error.hint}` : error.message)
      process.exit(error.exitCode)
    }
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(EXIT.usage)
    }
    const code = (error as { code?: string }).code ?? ''
    if (code.startsWith('ERR_PARSE_ARGS')) {
      const message = (error as Error).message
      const unknown = /^Unknown option '([^']+)'/.exec(message)
      console.error(unknown ? `unknown flag ${unknown[1]} for dialer ${process.argv[2]}` : message.split('. ')[0]!.replace(/\.$/, ''))
      console.error('Run `dialer help` for the flags.')
      process.exit(EXIT.usage)
    }
    console.error((error as Error)?.stack ?? error)
    process.exit(EXIT.failure)
  },
)
