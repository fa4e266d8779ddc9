/** Phone numbers, wrk scripts and measured runs of the intake benchmark (scripts/bench/intake.ts). */
import { join } from 'node:path'
import { batchSize, connections, INTAKE_AREAS, PER_AREA, PHONE_CAPACITY, THREADS, work } from './intake-setup'
import { lua, rotatingGets, runLatencyClient, runWrk, wrkCommon } from './lib'

// ---- phone numbers: the mapping of intake-setup.ts, in Lua ----

const luaPhones = `
local T = ${THREADS}
local PER_AREA = ${PER_AREA}
local AREAS = {${INTAKE_AREAS.map(lua).join(',')}}
function next_phone()
  local g = BASE + used * T + tid
  used = used + 1
  local a = math.floor(g / PER_AREA)
  local h = g - a * PER_AREA
  local l = h % 9900
  if l >= 100 then l = l + 100 end
  return "+1" .. AREAS[a + 1] .. string.format("%03d%04d", 200 + math.floor(h / 9900), l)
end
`
let phoneBase = 0

// ---- wrk scripts ----

export interface KeyInfo {
  auth: string
  org: number
  campaigns: string[]
}

function keysLua(keys: KeyInfo[]): string {
  const rows = keys.map((k) => `{${lua(k.auth)},{${k.campaigns.map(lua).join(',')}}}`).join(',\n')
  return `local keys = {${rows}}\nlocal k = 0\nlocal r = 0\n` +
    `function init(args) k = math.random(#keys) end\n` +
    // Next key; its organization's campaigns in turn, one step per full round of the keys.
    `function pick()\n  k = (k % #keys) + 1\n  r = r + 1\n  local key = keys[k]\n  local camps = key[2]\n` +
    `  return key[1], camps[(math.floor(r / #keys) + k + tid) % #camps + 1]\nend\n`
}

export function singleScript(keys: KeyInfo[]): string {
  return `${wrkCommon}\nBASE = ${phoneBase}\n${luaPhones}\n${keysLua(keys)}
function request()
  local auth, campaign = pick()
  local body = '{"campaign_id":"' .. campaign .. '","phone":"' .. next_phone() .. '","name":"Bench Lead"}'
  return wrk.format("POST", "/api/v1/external/leads", {["Authorization"] = auth, ["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status ~= 201 then note_bad(status, body) end
end
`
}

export function batchScript(keys: KeyInfo[]): string {
  return `${wrkCommon}\nBASE = ${phoneBase}\n${luaPhones}\n${keysLua(keys)}
local parts = {}
function request()
  local auth, campaign = pick()
  for j = 1, ${batchSize} do parts[j] = '{"phone":"' .. next_phone() .. '"}' end
  local body = '{"campaign_id":"' .. campaign .. '","leads":[' .. table.concat(parts, ",") .. ']}'
  return wrk.format("POST", "/api/v1/external/leads/batch", {["Authorization"] = auth, ["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status ~= 200 or string.match(body, '"failed":(%d+)') ~= "0" then note_bad(status, body) end
end
`
}

export const getScript = (requests: { path: string; auth: string }[]) =>
  rotatingGets(requests, `status ~= 200 or not string.find(body, '"place_in_line":%d')`)

export const bareScript = `${wrkCommon}
function response(status, headers, body)
  if status ~= 200 then note_bad(status, body) end
end
`

export interface Result {
  name: string
  /** Requests a second. */
  rps: number
  /** Leads a second (requests for GET and bare). */
  perSecond: number
  p50: number
  p99: number
  bad: number
  socketErrors: number
  sample: string
}

/**
 * Waits until the service has worked off what the last wrk run left in flight (up to 64 slow
 * requests): /healthz answering in under 20 ms twice in a row.
 */
export async function drain(base: string): Promise<void> {
  let quick = 0
  for (let i = 0; i < 600 && quick < 2; i++) {
    const start = performance.now()
    await fetch(`${base}/healthz`).catch(() => undefined)
    quick = performance.now() - start < 20 ? quick + 1 : 0
    if (quick < 2) await Bun.sleep(25)
  }
}

export function measure(name: string, url: string, script: string, duration: number, leadsPerRequest: number, conns = connections): Result {
  if (leadsPerRequest > 0 && phoneBase >= PHONE_CAPACITY - 2_000_000) throw new Error('out of unique phone numbers; use fewer --seconds or --rounds')
  const r = runWrk({ url, script, scriptFile: join(work, `${name.replace(/\W+/g, '_')}.lua`), seconds: duration, connections: conns, threads: THREADS, timeoutSeconds: 10 })
  // The next run's numbers start past every number any thread of this one took.
  if (leadsPerRequest > 0) phoneBase += (r.used + 1) * THREADS
  return toResult(name, r, leadsPerRequest)
}

/** A run's figures from the object wrk's script or latency-client.ts printed (same fields, times in µs). */
function toResult(name: string, r: Record<string, any>, leadsPerRequest: number): Result {
  const rps = r.requests / r.seconds
  return {
    name,
    rps,
    perSecond: rps * Math.max(1, leadsPerRequest),
    p50: r.p50 / 1000,
    p99: r.p99 / 1000,
    bad: r.bad,
    socketErrors: r.socket_errors,
    sample: r.bad > 0 ? `${r.first_status} ${r.first_body}` : '',
  }
}

/** GETs from latency-client.ts: keep-alive connections timed with the monotonic clock. */
export function measureClient(name: string, url: string, requests: { path: string; auth: string }[], duration: number, conns: number): Result {
  const r = runLatencyClient({
    url, requests, requestsFile: join(work, `${name.replace(/\W+/g, '_')}.json`), seconds: duration, connections: conns, expect: '"place_in_line":\\d',
  })
  return toResult(name, r, 0)
}
