import { Elysia } from 'elysia'
import type { Services } from '../services'

/** Liveness (process up) and readiness (database writable), for load balancers and systemd. */
export const healthRoutes = (s: Services) =>
  new Elysia()
    .get('/healthz', () => ({ status: 'ok' }), { detail: { hide: true } })
    .get('/readyz', ({ set }) => {
      try {
        s.database.transaction(() => s.stores.settings.set('ready_probe', String(s.clock.now())))
        return { status: 'ready' }
      } catch (error) {
        set.status = 503
        return { status: 'unavailable', reason: String((error as Error).message) }
      }
    }, { detail: { hide: true } })
