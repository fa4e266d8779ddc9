/**
 * One raw HTTP/1.1 request over a fresh socket, written byte for byte (fetch will not send an
 * odd Host header or a path it would normalize). Resolves with the status code, or 0 when the
 * server closed the connection without a status line.
 */
export async function rawStatus(port: number, method: string, target: string, host: string | null): Promise<number> {
  const head = `${method} ${target} HTTP/1.1\r\n${host === null ? '' : `Host: ${host}\r\n`}Connection: close\r\nContent-Length: 0\r\n\r\n`
  let received = ''
  await new Promise<void>((resolve) => {
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open: (socket) => void socket.write(head),
        data: (_socket, chunk) => void (received += chunk.toString()),
        close: () => resolve(),
        error: () => resolve(),
      },
    }).catch(() => resolve())
  })
  const match = /^HTTP\/1\.1 (\d{3})/.exec(received)
  return match ? Number(match[1]) : 0
}

/** Short and odd Host headers (null: none at all) and path prefixes an attacker tries. */
export const ODD_HOSTS = [null, '', 'x', 'ab', 'abc', 'x:1', '[::1]', 'a/b', 'a?b', 'h#f', 'a b', '%2F', 'x@y', 'é']
export const PATH_PREFIXES = ['', '/abc', '/a']

/**
 * Every method + path pair sent with every odd host and prefix, no credentials; the ones that
 * answered 2xx, 3xx or 5xx (a 0 means Bun refused the request outright, which leaks nothing).
 */
export async function leakingRoutes(port: number, routes: Array<{ method: string; path: string }>): Promise<string[]> {
  const leaks: string[] = []
  for (const { method, path } of routes) {
    for (const host of ODD_HOSTS) {
      for (const prefix of PATH_PREFIXES) {
        const status = await rawStatus(port, method, `${prefix}${path}`, host)
        if (status !== 0 && (status < 400 || status >= 500)) leaks.push(`${status} ${method} ${prefix}${path} Host: ${host}`)
      }
    }
  }
  return leaks
}
