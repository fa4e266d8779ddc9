import type { Server, ServerWebSocket, WebSocketHandler } from 'bun'
import { MAX_AGENT_FRAME_BYTES } from '../telephony/media-stream/contract'

/**
 * WebSocket upgrades through the gateway. Elysia's own `.ws` needs Elysia to run the server; here
 * Bun.serve calls the gateway, so a route that takes an upgrade asks for it with
 * `upgradeToSocket` (the gateway remembers each request's server) and Bun.serve is given
 * `socketHandler`, which passes each socket's frames to what the route opened.
 */

/** What a route attaches to an upgraded socket. */
export interface SocketHandlers {
  message(data: string): void
  closed(): void
}

/** The server side of an upgraded socket as routes see it. */
export interface OpenSocket {
  send(data: string): void
  close(code?: number, reason?: string): void
}

interface SocketData {
  open: (socket: OpenSocket, from: string) => SocketHandlers
  from: string
  handlers: SocketHandlers | null
}

const servers = new WeakMap<Request, { server: Server<unknown>; from: string }>()

/** The gateway: the server that took this upgrade request, and the client's address (behind trusted proxies: the forwarded one). */
export function rememberServer(request: Request, server: Server<unknown>, from: string): void {
  servers.set(request, { server, from })
}

/** Upgrades the request when it asks to and a server took it; false otherwise (nothing happened). */
export function upgradeToSocket(request: Request, open: (socket: OpenSocket, from: string) => SocketHandlers): boolean {
  const taken = servers.get(request)
  if (!taken || request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return false
  return (taken.server as Server<SocketData>).upgrade(request, { data: { open, from: taken.from, handlers: null } })
}

const decoder = new TextDecoder()
const sockets = new Set<ServerWebSocket<SocketData>>()

/**
 * The service is stopping: every upgraded socket closes (1001) without telling its route, so the
 * server's drain does not wait on them; what owns the sockets stops on its own (the relay's stop).
 */
export function closeSockets(): void {
  for (const ws of sockets) {
    ws.data.handlers = null
    ws.close(1001, 'going away')
  }
  sockets.clear()
}

/** Bun.serve's `websocket` option. Frames over the agent frame limit close the socket (1009). */
export const socketHandler: WebSocketHandler<SocketData> = {
  maxPayloadLength: MAX_AGENT_FRAME_BYTES,
  open(ws: ServerWebSocket<SocketData>) {
    sockets.add(ws)
    ws.data.handlers = ws.data.open({
      send: (data) => void ws.send(data),
      close: (code, reason) => ws.close(code, reason),
    }, ws.data.from)
  },
  message(ws, message) {
    ws.data.handlers?.message(typeof message === 'string' ? message : decoder.decode(message))
  },
  close(ws) {
    sockets.delete(ws)
    const handlers = ws.data.handlers
    ws.data.handlers = null
    handlers?.closed()
  },
}
