import { createHandler } from '../app'
import { withBoundPort, type Config } from '../config'
import { synchronousOf } from '../db/client'
import { logger } from '../log'
import { createServices, type Services } from '../services'
import { VERSION } from '../version'
import { demoBanner, seedDemo } from './demo'
import { listenFailure, storageFailure } from './startup-errors'
import { closeSockets, socketHandler } from '../http/websocket-door'

/** `dialer serve [--demo]`: runs the API until SIGTERM or SIGINT. */
export async function serve(config: Readonly<Config>, options: { demo: boolean }): Promise<void> {
  // Listen before opening the database: a second instance on the same port stops here, before
  // it migrates or starts jobs, and a first start that fails does not mint a token nobody sees.
  // Nothing is served until `handle` is set: everything up to there runs in this one turn.
  let handle: ReturnType<typeof createHandler>['handle'] | undefined
  let server: ReturnType<typeof Bun.serve>
  try {
    server = Bun.serve({ port: config.port, hostname: config.host, fetch: (request, srv) => handle!(request, srv), websocket: socketHandler })
  } catch (error) {
    throw listenFailure(error, config.host, config.port) ?? error
  }
  const port = server.port ?? config.port
  let services: Services
  try {
    // With DIALER_PORT=0 the public URL (signed links, the served OpenAPI servers) names the port bound.
    services = createServices(withBoundPort(config, port))
  } catch (error) {
    void server.stop(true)
    throw storageFailure(error, config.databasePath) ?? error
  }
  const gateway = createHandler(services).handle
  handle = gateway
  const base = `http://${config.host}:${port}`
  logger.info('listening', {
    url: base, version: VERSION, data_dir: config.dataDir, fake_clock: config.fakeClock, synchronous: synchronousOf(services.database.sqlite),
  })

  const out: string[] = [`Dialer ${VERSION} listening on ${base}`, `  API docs:     ${base}/docs`]
  // The one secret the service ever prints: the admin token it minted on first boot, once, on
  // stderr (stdout is the JSON log). The demo's key secrets below are what --demo is for.
  if (services.adminToken.minted) {
    process.stderr.write(`Admin token (shown once; keep it, or set DIALER_ADMIN_TOKEN): ${services.adminToken.minted}\n`)
  }
  if (options.demo) {
    const demo = seedDemo(services)
    out.push('', ...demoBanner(demo, base))
  }
  process.stdout.write(out.join('\n') + '\n\n')

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal })
    // Stop taking new connections; requests already in flight finish first (within the grace):
    // the server's connections closed and every request the gateway took answered (a reply
    // may still wait for its grouped commit).
    const answered = async () => {
      // Stream sockets never finish on their own; the next boot takes their calls back.
      closeSockets()
      await server.stop(false)
      while (gateway.inFlight() > 0) await Bun.sleep(5)
      return true
    }
    const drained = await Promise.race([answered(), Bun.sleep(config.shutdownGraceMs).then(() => false)])
    if (!drained) {
      logger.warn('shutdown_grace_over', { grace_ms: config.shutdownGraceMs })
      await server.stop(true)
    }
    // Then the background work stops, counted usage is written and the database closed.
    services.close()
    logger.info('stopped', {})
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}
