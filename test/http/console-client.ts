import type { Harness } from '../harness'

export interface ConsoleRequestOptions {
  cookie?: string
  csrf?: string
  body?: unknown
}

/**
 * A console request through the whole handler, as the page sends it (session cookie, CSRF
 * header, JSON body), once its transaction has committed: the status, the JSON reply and the
 * cookies it sets (`cookie`: the Set-Cookie header as one string).
 */
export async function consoleRequest(h: Harness, method: string, path: string, options: ConsoleRequestOptions = {}) {
  const headers: Record<string, string> = {}
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.cookie) headers.cookie = options.cookie
  if (options.csrf) headers['x-csrf-token'] = options.csrf
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any, cookie: r.headers.get('set-cookie'), cookies: r.headers.getSetCookie() }
}
