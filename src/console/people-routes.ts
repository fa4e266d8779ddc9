import { Elysia, t } from 'elysia'
import { CreateUserBody, presentUser } from '../admin/model'
import { ApiError } from '../errors'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { UserList, UserReply } from './model'

const hide = { hide: true }

/** The People page: the operator makes and disables an organization's console accounts, as `dialer admin user ...` does. */
export const consolePeopleRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/users', ({ who }) => ({ data: s.accounts.list(who.orgId, 200).map((u) => presentUser(u)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }) }), console: 'operator', response: { 200: UserList }, detail: hide,
    })
    .post('/orgs/:org/users', async ({ body, set, who }) => {
      const { user, password } = await s.accounts.create(who.orgId, body)
      set.status = 201
      return { data: presentUser(user, password) }
    }, { params: t.Object({ org: t.String({ format: 'uuid' }) }), body: CreateUserBody, console: 'operator', response: { 201: UserReply }, detail: hide })
    .post('/orgs/:org/users/:id/:action', async ({ params, who }) => {
      const user = s.accounts.get(params.id)
      if (user.orgId !== who.orgId) throw new ApiError('not_found', 'No such user')
      return { data: presentUser(await s.accounts.update(user.id, { disabled: params.action === 'disable' })) }
    }, {
      params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }), action: t.Union([t.Literal('disable'), t.Literal('enable')]) }),
      console: 'operator',
      response: { 200: UserReply },
      detail: hide,
    })
}
