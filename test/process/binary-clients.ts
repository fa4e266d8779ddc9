/**
 * What several binary tests use to reach the service under test as its users do: the admin CLI
 * (the same binary, pointed at the running service), the external API with one key, and the
 * fake clock moved through the admin API.
 */
export interface BinaryTarget {
  command: string[]
  cwd: string
  adminToken: string
  /** The running service's base URL (known once it has started). */
  base: () => string
  /** The environment the CLI runs with besides DIALER_ADMIN_URL and DIALER_ADMIN_TOKEN. */
  env?: () => Record<string, string>
}

export function binaryClients(target: BinaryTarget) {
  let authorization = ''
  const admin = (args: string[]) => {
    const env = { PATH: process.env.PATH ?? '', HOME: target.cwd, ...target.env?.(), DIALER_ADMIN_URL: target.base(), DIALER_ADMIN_TOKEN: target.adminToken }
    const r = Bun.spawnSync([...target.command, 'admin', ...args], { cwd: target.cwd, env })
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
  }
  return {
    admin,
    /** The CLI's reply `data`; a non-zero exit fails the test with its stderr. */
    json(args: string[]): any {
      const r = admin(args)
      if (r.code !== 0) throw new Error(`dialer admin ${args.join(' ')}: exit ${r.code} ${r.err}`)
      return JSON.parse(r.out).data
    },
    /** Later `api` calls send this Authorization header. */
    useKey(value: string): void {
      authorization = value
    },
    async api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      const r = await fetch(`${target.base()}/api/v1/external${path}`, {
        method, headers: { authorization, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: r.status, body: await r.json() }
    },
    /** Moves the fake clock (DIALER_FAKE_CLOCK=1); returns the reply's status. */
    async clock(body: { now?: string; advance_seconds?: number }): Promise<number> {
      const r = await fetch(`${target.base()}/api/v1/admin/clock`, {
        method: 'POST', headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      })
      await r.arrayBuffer()
      return r.status
    },
  }
}
