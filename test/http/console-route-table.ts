import { declarationOf, type ConsoleDeclaration } from '../../src/console/context'
import { CONSOLE_API_PREFIX } from '../../src/http/console-door'

/**
 * The console's routes as the app itself declares them: every route under /console/api with
 * the authorization its `console` (or `consoleSession`) option declares. Elysia expands a
 * macro when the route is added and drops the option; the hook it adds carries the
 * declaration (src/console/context.ts `declarationOf`), and that hook is the check that runs.
 */
export interface ConsoleRouteRow {
  method: string
  /** Elysia's pattern, relative to /console/api (`/orgs/:org/calls/:id`). */
  path: string
  /** `METHOD /path`, the row's name. */
  name: string
  /** What the route declares; null when nothing (the app refuses to start with one). */
  declaration: ConsoleDeclaration | null
}

interface RouteLike {
  method: string
  path: string
  hooks?: Record<string, unknown>
}

/** `routes`: the app's `routes` (Elysia's InternalRoute list). */
export function consoleRouteRows(routes: readonly unknown[]): ConsoleRouteRow[] {
  return (routes as readonly RouteLike[])
    .filter((r) => r.path.startsWith(`${CONSOLE_API_PREFIX}/`))
    .map((route) => {
      const path = route.path.slice(CONSOLE_API_PREFIX.length)
      return { method: route.method, path, name: `${route.method} ${path}`, declaration: declarationOf(route) }
    })
}
