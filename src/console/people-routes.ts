import { Elysia, t } from 'elysia'
import { CreateUserBody, presentUser } from '../admin/model'
import { ApiError } from '../errors'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { principalOf, sessionOf } from './context'

const hide = { hide: true }

/** The People page (issue 19): the operator makes and disables an organization's console accounts, as `dialer admin user ...` does. */
export const consolePeopleRoutes = (s: Services) => {
  const principal = principalOf(s)
  const operator = (request: Request, org: string) => {
    const who = principal(request, org)
    if (sessionOf(request).identity.kind !== 'operator') {
      throw new ApiError('permission_denied', 'Only the operator manages console accounts.', { extras: { reason: 'operator_only' } })
    }
    return who
  }
  return new Elysia()
    .onTransform(markRoute)
    .get('/orgs/:org/users', ({ request, params }) => ({ data: s.accounts.list(operator(request, params.org).orgId, 200).map((u) => presentUser(u)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }) }), detail: hide,
    })
    .post('/orgs/:org/users', async ({ request, params, body, set }) => {
      const { user, password } = await s.accounts.create(operator(request, params.org).orgId, body)
      set.status = 201
      return { data: presentUser(user, password) }
    }, { params: t.Object({ org: t.String({ format: 'uuid' }) }), body: CreateUserBody, detail: hide })
    .post('/orgs/:org/users/:id/:action', async ({ request, params }) => {
      const who = operator(request, params.org)
      const user = s.accounts.get(params.id)
      if (user.orgId !== who.orgId) throw new ApiError('not_found', 'No such user')
      return { data: presentUser(await s.accounts.update(user.id, { disabled: params.action === 'disable' })) }
    }, {
      params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }), action: t.Union([t.Literal('disable'), t.Literal('enable')]) }),
      detail: hide,
    })
}
