import { ApiError } from '../../src/errors'
import { PERMISSIONS, type Permission, type Principal } from '../../src/domain/access/permissions'
import { EXTERNAL_PREFIX, OPENAPI_PATH } from '../../src/http/gateway'
import { startRequest } from '../../src/http/request-state'

/**
 * The external routes as the app itself declares them (issue 16, item 8): every route under
 * /api/v1/external except the OpenAPI document, with the permission its `permission` option
 * enforces and the one its OpenAPI `detail` documents.
 *
 * Elysia expands a macro when the route is added and deletes the option from the route's hooks
 * (elysia `applyMacro`: `delete localHook[key]`), so `route.hooks.permission` does not exist.
 * The value lives on in the closure of the macro's `transform` (src/http/pipeline.ts
 * apiContext): that transform is run here on a request whose key holds no permission at all,
 * and the `missing_permission` it throws is the route's real option. A route whose transforms
 * throw nothing enforces no permission (`permission: null`).
 */
export interface RouteRow {
  method: string
  /** Elysia's pattern, relative to /api/v1/external (`/leads/:id`). */
  path: string
  /** `METHOD /path`, the row's name. */
  name: string
  /** What the route's `permission` option enforces; null when nothing is enforced. */
  permission: Permission | null
  /** What `detail.description` documents ("Needs the `x` permission."); null when silent. */
  documented: string | null
  /** Further permissions the description names ("Also needs calls:read"). */
  alsoDocumented: string[]
}

interface RouteLike {
  method: string
  path: string
  hooks?: { transform?: unknown; detail?: { description?: string } }
}

/** A key of nothing: every permission missing, every campaign allowed, live. */
function emptyPrincipal(): Principal {
  return {
    keyId: 'dk_live_probe', keyName: 'probe', orgId: 'probe', orgTimezone: 'UTC', livemode: true,
    permissions: new Set<Permission>(), campaignIds: null, maxConcurrent: 1, requestsPerMinute: 1, burst: 1,
    leadsPerMinute: 1, planRequestsPerMinute: 1,
  }
}

const transformsOf = (route: RouteLike): ((context: unknown) => unknown)[] => {
  const hook = route.hooks?.transform
  const list = hook === undefined ? [] : Array.isArray(hook) ? hook : [hook]
  return list
    .map((entry) => (typeof entry === 'function' ? entry : (entry as { fn?: unknown })?.fn))
    .filter((fn): fn is (context: unknown) => unknown => typeof fn === 'function')
}

/** The permission a route enforces: its transforms run for a key holding none. */
export function enforcedPermission(route: RouteLike): Permission | null {
  for (const transform of transformsOf(route)) {
    const request = new Request(`http://localhost${route.path}`, { method: route.method })
    const state = startRequest(request, route.path, () => '127.0.0.1')
    state.principal = emptyPrincipal()
    try {
      transform({ request, body: undefined, params: {}, query: {}, route: route.path, path: route.path, set: { headers: {} } })
    } catch (error) {
      if (error instanceof ApiError && error.code === 'permission_denied') {
        const missing = error.extras.missing_permission
        if (typeof missing === 'string' && (PERMISSIONS as readonly string[]).includes(missing)) return missing as Permission
      }
    }
  }
  return null
}

/** `routes`: the app's `routes` (Elysia's InternalRoute list). */
export function externalRoutes(routes: readonly unknown[]): RouteRow[] {
  return (routes as readonly RouteLike[])
    .filter((r) => r.path.startsWith(`${EXTERNAL_PREFIX}/`) && r.path !== OPENAPI_PATH)
    .map((route) => {
      const path = route.path.slice(EXTERNAL_PREFIX.length)
      const description = route.hooks?.detail?.description ?? ''
      return {
        method: route.method,
        path,
        name: `${route.method} ${path}`,
        permission: enforcedPermission(route),
        documented: /Needs the `([^`]+)` permission/.exec(description)?.[1] ?? null,
        alsoDocumented: [...description.matchAll(/Also needs ([a-z]+:[a-z]+)/g)].map((m) => m[1]!),
      }
    })
}
