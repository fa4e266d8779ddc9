/**
 * The fake clock of a service started with DIALER_FAKE_CLOCK=1, moved at real speed.
 *
 * The calling rules (issue 17) allow a call only between 08:00 and 21:00 in every zone of the
 * lead, so a test that runs the service and waits for real calls cannot use the real clock: at
 * night nothing is dialed. Such a test sets the fake clock to a daytime instant and keeps it
 * moving while it runs, so the simulated calls (timers on the service clock) go on as usual.
 */

const HOUR = 3_600_000

/** Minutes since local midnight in `zone` at `ms`. */
export function localMinutes(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms)
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  return part('hour') * 60 + part('minute')
}

/**
 * `now`, or the next whole hour at which all (or, with `match` 'any', one) of `zones` are
 * between 09:00 and 20:00 local (a margin on the 08:00-21:00 floor). Never before `now`, so
 * a fake clock started there stays ahead of the real one: what a test compares with the real
 * time (a link's expiry) still holds.
 */
export function daytimeStart(now: number, zones: readonly string[], match: 'all' | 'any' = 'all'): number {
  const open = (at: number, zone: string) => localMinutes(at, zone) >= 9 * 60 && localMinutes(at, zone) < 20 * 60
  let at = now
  while (!(match === 'all' ? zones.every((zone) => open(at, zone)) : zones.some((zone) => open(at, zone)))) {
    at = (Math.floor(at / HOUR) + 1) * HOUR
  }
  return at
}

export interface RunningClock {
  /** The fake time last set (unix ms). */
  now(): number
  /** Stops moving the clock; resolves once the last move has answered. */
  stop(): Promise<void>
}

/** POST /api/v1/admin/clock { now }; throws on anything but 200. */
export async function setClock(base: string, adminToken: string, ms: number): Promise<void> {
  const reply = await fetch(`${base}/api/v1/admin/clock`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ now: new Date(ms).toISOString() }),
  })
  if (reply.status !== 200) throw new Error(`moving the fake clock answered ${reply.status}: ${await reply.text()}`)
}

/** GET /api/v1/admin/clock, in unix ms. */
export async function readClock(base: string, adminToken: string): Promise<number> {
  const reply = await fetch(`${base}/api/v1/admin/clock`, { headers: { authorization: `Bearer ${adminToken}` } })
  if (reply.status !== 200) throw new Error(`reading the fake clock answered ${reply.status}: ${await reply.text()}`)
  return Date.parse(((await reply.json()) as { data: { now: string } }).data.now)
}

/**
 * Sets the service's fake clock to `start` (default: where it stands), then moves it every
 * 100 ms to `start` plus the real time elapsed, until `stop()`. A failed move while the
 * service is going away (killed by the test) is ignored; the first one is not.
 */
export async function startClock(base: string, adminToken: string, start?: number): Promise<RunningClock> {
  const from = start ?? (await readClock(base, adminToken))
  await setClock(base, adminToken, from)
  let last = from
  let ticking = true
  const t0 = performance.now()
  const ticker = (async () => {
    while (ticking) {
      await Bun.sleep(100)
      if (!ticking) break
      const at = from + Math.round(performance.now() - t0)
      await setClock(base, adminToken, at).then(() => (last = at), () => {})
    }
  })()
  return {
    now: () => last,
    stop: async () => {
      ticking = false
      await ticker
    },
  }
}
