#!/usr/bin/env bun
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { adminUsage, CliError, runAdmin } from './cli/admin-cli'
import { serve } from './cli/serve'
import { ConfigError, loadConfig } from './config'
import { latestMigration, migrate, openDatabase } from './db/client'
import { settingsStore } from './db/stores/settings-store'
import { resetAdminToken } from './domain/access/admin-token'
import { VERSION } from './version'

const USAGE = `Dialer ${VERSION}: self-hosted lead dialing and call records

Usage:
  dialer serve [--demo] [--port 8080] [--host 127.0.0.1] [--data-dir ./data] [--public-url URL]
               [--fake-clock] [--sim-speed 1] [--webhook-allow-private]
  dialer migrate [--data-dir DIR]          apply database migrations and exit
  dialer backup FILE [--data-dir DIR]      online, consistent copy of the database (safe while serving)
  dialer admin-token reset [--data-dir DIR] mint a new admin token (printed once)
  dialer admin RESOURCE ACTION ...         admin API from the shell ("dialer admin help")
  dialer version

Every flag has an environment twin (--data-dir = DIALER_DATA_DIR); flags win. See README.md.`

const CONFIG_FLAGS = {
  port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' }, database: { type: 'string' },
  'public-url': { type: 'string' }, 'admin-token': { type: 'string' }, 'fake-clock': { type: 'boolean' },
  'sim-speed': { type: 'string' }, 'webhook-allow-private': { type: 'boolean' }, synchronous: { type: 'string' },
  'log-requests': { type: 'string' }, 'check-replies': { type: 'string' }, 'group-commits': { type: 'string' }, 'shutdown-grace-seconds': { type: 'string' },
  'sqlite-cache-mb': { type: 'string' },
} as const

function configFrom(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }> = {}) {
  const { values, positionals } = parseArgs({ args: argv, options: { ...CONFIG_FLAGS, ...extra }, allowPositionals: true, strict: true })
  const flags: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(values)) flags[k] = typeof v === 'boolean' ? (v ? '1' : '0') : (v as string | undefined)
  return { config: loadConfig(process.env, flags), values, positionals }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  switch (command) {
    case 'serve': {
      const { config, values } = configFrom(rest, { demo: { type: 'boolean' } })
      await serve(config, { demo: Boolean((values as Record<string, unknown>).demo) })
      return -1 // keeps running
    }
    case 'migrate': {
      const { config } = configFrom(rest)
      const database = openDatabase(config.databasePath, { synchronous: config.synchronous })
      const applied = migrate(database)
      database.close()
      console.log(`${config.databasePath}: ${applied} migration(s) applied; schema at ${latestMigration()}`)
      return 0
    }
    case 'backup': {
      const { config, positionals } = configFrom(rest)
      const target = positionals[0]
      if (!target) throw new CliError('Usage: dialer backup FILE')
      if (existsSync(target)) throw new CliError(`${target} exists; choose a new file name`)
      if (!existsSync(config.databasePath)) throw new CliError(`No database at ${config.databasePath}`)
      const database = openDatabase(config.databasePath)
      // VACUUM INTO reads one consistent snapshot (WAL), so the service can keep writing.
      database.sqlite.query('VACUUM INTO ?').run(target)
      database.sqlite.close()
      console.log(`Backed up ${config.databasePath} to ${target}`)
      return 0
    }
    case 'admin-token': {
      const { config, positionals } = configFrom(rest)
      if (positionals[0] !== 'reset') throw new CliError('Usage: dialer admin-token reset')
      const database = openDatabase(config.databasePath)
      migrate(database)
      const token = resetAdminToken(settingsStore(database.db))
      database.close()
      console.log(`New admin token (shown once): ${token}`)
      if (config.adminToken) console.log('Note: DIALER_ADMIN_TOKEN is set and takes precedence over the stored token.')
      return 0
    }
    case 'admin': {
      if (rest.length === 0 || rest[0] === 'help' || rest.includes('--help')) {
        console.log(adminUsage())
        return 0
      }
      const urlFlag = flagValue(rest, '--url')
      const tokenFlag = flagValue(rest, '--token')
      const host = process.env.DIALER_HOST ?? '127.0.0.1'
      const url = (urlFlag ?? process.env.DIALER_ADMIN_URL ?? `http://${host}:${process.env.DIALER_PORT ?? '8080'}`).replace(/\/+$/, '')
      const reply = await runAdmin(rest, { url, token: tokenFlag ?? process.env.DIALER_ADMIN_TOKEN ?? null })
      console.log(JSON.stringify(reply, null, 2))
      return 0
    }
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
      throw new CliError(`Unknown command "${command}".\n\n${USAGE}`)
  }
}

function flagValue(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`))
  if (i < 0) return undefined
  const arg = args[i]!
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1]
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (error) => {
    if (error instanceof CliError || error instanceof ConfigError) {
      console.error(error.message)
      process.exit(2)
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(error as Error).message}\n\n${USAGE}`)
      process.exit(2)
    }
    console.error(error)
    process.exit(1)
  },
)
