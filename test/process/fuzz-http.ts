/**
 * A raw HTTP/1.1 client for the fuzz test (test/process/fuzz.test.ts). fetch() would normalise
 * what the fuzzer wants to send as is: dot segments and odd bytes in the path, the Host header,
 * unknown methods, duplicate headers, chunked bodies. Every request is one connection
 * (`Connection: close`); the reply is complete once its framing says so, or, for a server-sent
 * event stream (which never ends), once its head has come.
 */
import { connect } from 'node:net'

export interface RawRequest {
  method: string
  /** The request-target as bytes, one character per byte (latin1): path and query. */
  target: string
  /** Sent in this order, duplicates allowed. Host is one of them (or missing). */
  headers: [string, string][]
  body: Uint8Array | null
  /** Send the body with Transfer-Encoding: chunked (in `chunks` pieces) instead of Content-Length. */
  chunked?: number
}

export interface RawReply {
  status: number
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>
  body: Buffer
  /** From connect to the last byte of the reply. */
  ms: number
}

export type SendResult =
  | { kind: 'reply'; reply: RawReply }
  /** The connection ended (or failed) with no complete reply. */
  | { kind: 'closed'; ms: number; partial: string; error: string | null }
  | { kind: 'timeout'; ms: number; partial: string }

/** The bytes of a request, framing included. */
export function encodeRequest(r: RawRequest): Buffer {
  let head = `${r.method} ${r.target} HTTP/1.1\r\n`
  for (const [name, value] of r.headers) head += `${name}: ${value}\r\n`
  const parts: Buffer[] = []
  if (r.body !== null && r.chunked) {
    head += 'Transfer-Encoding: chunked\r\n'
  } else if (r.body !== null) {
    head += `Content-Length: ${r.body.byteLength}\r\n`
  }
  head += 'Connection: close\r\n\r\n'
  parts.push(Buffer.from(head, 'latin1'))
  if (r.body !== null && r.chunked) {
    const size = Math.max(1, Math.ceil(r.body.byteLength / r.chunked))
    for (let at = 0; at < r.body.byteLength; at += size) {
      const piece = r.body.subarray(at, at + size)
      parts.push(Buffer.from(`${piece.byteLength.toString(16)}\r\n`, 'latin1'), Buffer.from(piece), Buffer.from('\r\n', 'latin1'))
    }
    parts.push(Buffer.from('0\r\n\r\n', 'latin1'))
  } else if (r.body !== null) {
    parts.push(Buffer.from(r.body))
  }
  return Buffer.concat(parts)
}

/** Parses one reply from the bytes read so far; null while incomplete. Skips 1xx replies. */
function parseReply(data: Buffer, headRequest: boolean, ended: boolean): Omit<RawReply, 'ms'> | null {
  let offset = 0
  for (;;) {
    const end = data.indexOf('\r\n\r\n', offset, 'latin1')
    if (end < 0) return null
    const lines = data.subarray(offset, end).toString('latin1').split('\r\n')
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')
    if (!match) throw new Error(`not an HTTP reply: ${JSON.stringify(lines[0]?.slice(0, 100))}`)
    const status = Number(match[1])
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':')
      if (colon <= 0) continue
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value
    }
    const bodyStart = end + 4
    if (status >= 100 && status < 200) {
      offset = bodyStart
      continue
    }
    if (headRequest || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) }
    // An event stream never ends: its head is the whole reply (the connection is then closed, which ends the stream).
    if (status === 200 && /^text\/event-stream/i.test(headers['content-type'] ?? '')) return { status, headers, body: Buffer.alloc(0) }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = []
      let at = bodyStart
      for (;;) {
        const lineEnd = data.indexOf('\r\n', at, 'latin1')
        if (lineEnd < 0) return null
        const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16)
        if (!Number.isFinite(size)) throw new Error('bad chunk size in reply')
        if (size === 0) return data.indexOf('\r\n', lineEnd + 2, 'latin1') < 0 ? null : { status, headers, body: Buffer.concat(chunks) }
        if (data.byteLength < lineEnd + 2 + size + 2) return null
        chunks.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
        at = lineEnd + 2 + size + 2
      }
    }
    const length = headers['content-length']
    if (length !== undefined) {
      const n = Number(length)
      if (data.byteLength - bodyStart < n) return null
      return { status, headers, body: data.subarray(bodyStart, bodyStart + n) }
    }
    // No framing: the body runs to the end of the connection.
    return ended ? { status, headers, body: data.subarray(bodyStart) } : null
  }
}

/** Sends one request on a new connection and reads one reply. */
export function send(port: number, request: RawRequest, timeoutMs = 10_000): Promise<SendResult> {
  const bytes = encodeRequest(request)
  const headRequest = request.method === 'HEAD'
  return new Promise((resolve) => {
    const started = performance.now()
    const chunks: Buffer[] = []
    let settled = false
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes)
    })
    const settle = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(result)
    }
    const attempt = (ended: boolean, error: string | null) => {
      const data = Buffer.concat(chunks)
      let parsed: Omit<RawReply, 'ms'> | null = null
      try {
        parsed = parseReply(data, headRequest, ended)
      } catch (e) {
        settle({ kind: 'closed', ms: performance.now() - started, partial: data.subarray(0, 300).toString('latin1'), error: (e as Error).message })
        return
      }
      if (parsed) settle({ kind: 'reply', reply: { ...parsed, ms: performance.now() - started } })
      else if (ended) settle({ kind: 'closed', ms: performance.now() - started, partial: data.subarray(0, 300).toString('latin1'), error })
    }
    const timer = setTimeout(() => {
      settle({ kind: 'timeout', ms: performance.now() - started, partial: Buffer.concat(chunks).subarray(0, 300).toString('latin1') })
    }, timeoutMs)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      attempt(false, null)
    })
    socket.on('end', () => attempt(true, null))
    socket.on('close', () => attempt(true, null))
    // A reset after a complete reply (the server closing while the client still sends a large
    // body it refused) is not a failure; attempt() parses what arrived first.
    socket.on('error', (e) => attempt(true, e.message))
  })
}
