import { Elysia, t } from 'elysia'
import type { Principal } from '../../domain/access/permissions'
import { restoreQueryPlus } from '../../domain/phone/phone-number'
import { listReply } from '../../http/paging'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, idParams, listOf, operation, pageLimit, strict } from '../shared'
import { AddDncBatchBody, AddDncBody, DncBatchResult, DncCheckResult, DncEntry, presentDncEntry } from './model'

const TAG = 'Do Not Call'
const scopeOf = (p: Principal) => ({ orgId: p.orgId, livemode: p.livemode })

export const dncRoutes = (s: Services) =>
  new Elysia({ prefix: '/dnc' })
    .use(apiContext(s))
    .get(
      '/check',
      ({ principal, query }) => ({
        data: { ...s.dnc.check(scopeOf(principal), restoreQueryPlus(query.phone)), livemode: principal.livemode },
      }),
      {
        permission: 'dnc:read',
        query: t.Object({ phone: t.String({ minLength: 1, maxLength: 32, 'x-param': 'phone' }) }, strict),
        response: { 200: dataOf(DncCheckResult) },
        detail: { operationId: 'checkDnc', ...operation(TAG, 'Check a number', 'dnc:read',
          'Any common format. URL-encode a leading plus (%2B); an unencoded plus arrives as a space and is read as a plus. ' +
          'When `normalizedPhone` is null the value could not be read and was matched exactly as sent, so `onDncList` false does not mean it is safe to call.',
          { errors: ['invalid_phone'] }) },
      },
    )
    .post(
      '',
      ({ principal, body, set }) => {
        set.status = 201
        return { data: presentDncEntry(s.dnc.add(scopeOf(principal), body.phone)) }
      },
      {
        permission: 'dnc:write',
        body: AddDncBody,
        response: { 201: dataOf(DncEntry) },
        detail: { operationId: 'createDncEntry', ...operation(TAG, 'Add a number', 'dnc:write', 'No campaign of the organization dials the number again.', { errors: ['invalid_phone', 'duplicate_dnc_entry'] }) },
      },
    )
    .post(
      '/batch',
      ({ principal, body }) => ({
        data: { ...s.dnc.addBatch(scopeOf(principal), body.phones), livemode: principal.livemode },
      }),
      {
        permission: 'dnc:write',
        body: AddDncBatchBody,
        response: { 200: dataOf(DncBatchResult) },
        detail: { operationId: 'createDncEntryBatch', ...operation(TAG, 'Add up to 100 numbers', 'dnc:write', 'Each number is added on its own; `errors` lists the numbers, as sent, that were bad or already listed.') },
      },
    )
    .get(
      '',
      ({ principal, query }) => {
        const limit = query.limit ?? 50
        const rows = s.dnc.list(scopeOf(principal), limit + 1, { startingAfter: query.cursor, search: query.search })
        return listReply(rows, limit, presentDncEntry)
      },
      {
        permission: 'dnc:read',
        query: t.Object(
          {
            cursor: t.Optional(t.String({ format: 'uuid', 'x-param': 'cursor', description: 'next_cursor of the previous page' })),
            limit: pageLimit(50),
            search: t.Optional(t.String({ maxLength: 200, 'x-param': 'search', description: 'part of a phone number' })),
          },
          strict,
        ),
        response: { 200: listOf(DncEntry) },
        detail: { operationId: 'listDncEntries', ...operation(TAG, 'List numbers', 'dnc:read', 'Newest first.') },
      },
    )
    .delete('/:id', ({ principal, params }) => ({ data: presentDncEntry(s.dnc.remove(scopeOf(principal), params.id)) }), {
      permission: 'dnc:write',
      params: idParams,
      response: { 200: dataOf(DncEntry) },
      detail: { operationId: 'deleteDncEntry', ...operation(TAG, 'Remove a number', 'dnc:write', 'The number can be called again.') },
    })
