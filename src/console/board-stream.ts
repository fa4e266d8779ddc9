/**
 * The campaign board's live stream (server-sent events), shared per organization: one timer
 * and one board computation a tick for all of an organization's open streams, however many
 * pages show it. Each tick every stream first re-checks its session (signed out, expired,
 * account disabled, role changed, permission gone) and ends if it no longer holds.
 */
export interface BoardSubscriber {
  /** Whether the stream may still receive the board (its session still holds). */
  stillAllowed(): boolean
  /** Sends one message; false once the stream is gone. */
  send(bytes: Uint8Array): boolean
  /** Ends the stream (the response body ends); called once. */
  end(): void
}

interface OrgBoard {
  subscribers: Set<BoardSubscriber>
  timer: ReturnType<typeof setInterval> | null
  /** The last message and when it was made (performance.now()): a stream opened since the last tick gets it as it is. */
  message: Uint8Array | null
  madeAt: number
}

const encoder = new TextEncoder()

/** `event`: the name of each message (the campaign board's `campaigns`, the floor view's `floor`). */
export function boardHub(deps: { board: (orgId: string) => unknown; at: () => string; everyMs: number; timers?: boolean; event?: string }) {
  const event = deps.event ?? 'campaigns'
  const orgs = new Map<string, OrgBoard>()
  let computed = 0

  const messageOf = (orgId: string, entry: OrgBoard, fresh: boolean): Uint8Array => {
    const now = performance.now()
    if (!fresh && entry.message && now - entry.madeAt < deps.everyMs) return entry.message
    computed++
    entry.message = encoder.encode(`event: ${event}\ndata: ${JSON.stringify({ data: deps.board(orgId), at: deps.at() })}\n\n`)
    entry.madeAt = now
    return entry.message
  }

  const drop = (orgId: string, entry: OrgBoard, subscriber: BoardSubscriber) => {
    if (!entry.subscribers.delete(subscriber)) return
    subscriber.end()
    if (entry.subscribers.size === 0) {
      if (entry.timer) clearInterval(entry.timer)
      orgs.delete(orgId)
    }
  }

  const deliver = (orgId: string, entry: OrgBoard, targets: Iterable<BoardSubscriber>, fresh: boolean) => {
    const allowed = [...targets].filter((subscriber) => {
      let ok = false
      try {
        ok = subscriber.stillAllowed()
      } catch {
        ok = false
      }
      if (!ok) drop(orgId, entry, subscriber)
      return ok
    })
    if (allowed.length === 0) return
    let message: Uint8Array
    try {
      message = messageOf(orgId, entry, fresh)
    } catch {
      // The organization is gone (or the board cannot be read): its streams end.
      for (const subscriber of [...entry.subscribers]) drop(orgId, entry, subscriber)
      return
    }
    for (const subscriber of allowed) if (!subscriber.send(message)) drop(orgId, entry, subscriber)
  }

  /** One tick of an organization's streams (its timer calls it; tests may too). */
  const tick = (orgId: string) => {
    const entry = orgs.get(orgId)
    if (entry) deliver(orgId, entry, entry.subscribers, true)
  }

  return {
    /** Adds a stream: it gets the board now and each tick until it ends; returns its unsubscribe. */
    subscribe(orgId: string, subscriber: BoardSubscriber): () => void {
      let entry = orgs.get(orgId)
      if (!entry) {
        entry = { subscribers: new Set(), timer: null, message: null, madeAt: 0 }
        orgs.set(orgId, entry)
        if (deps.timers !== false) entry.timer = setInterval(() => tick(orgId), deps.everyMs)
      }
      entry.subscribers.add(subscriber)
      deliver(orgId, entry, [subscriber], false)
      return () => {
        const current = orgs.get(orgId)
        if (current) drop(orgId, current, subscriber)
      }
    },
    tick,
    /** Streams open for an organization, and boards computed so far (tests, metrics). */
    open: (orgId: string) => orgs.get(orgId)?.subscribers.size ?? 0,
    computed: () => computed,
  }
}

export type BoardHub = ReturnType<typeof boardHub>
