import { Elysia, t } from 'elysia'
import { callerIdsOf } from '../domain/caller-ids/caller-id-health'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { NumberReply, NumbersReply, type NumbersCarrier } from './numbers-model'

const hide = { hide: true }
const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })

/** A carrier's read view as the page shows it: caller IDs, `<name>_set` markers as names, other scalars; never a secret (the view has none). */
function presentCarrier(view: { kind: string; weight: number | null; [field: string]: unknown }): NumbersCarrier {
  const settings: NumbersCarrier['settings'] = {}
  const secretsSet: string[] = []
  for (const [name, value] of Object.entries(view)) {
    if (name === 'kind' || name === 'weight' || name === 'caller_ids') continue
    if (name.endsWith('_set')) {
      if (value === true) secretsSet.push(name.slice(0, -4))
    } else if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      settings[name] = value as string | number | boolean | null
    }
  }
  return { kind: view.kind, weight: view.weight, caller_ids: callerIdsOf(view), settings, secrets_set: secretsSet }
}

/**
 * The Numbers page (owners and the operator): the organization's carriers, each caller ID's
 * health figures, status and evidence, and putting a rested number back in use (logged).
 */
export const consoleNumberRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/numbers', ({ who }) => ({
      data: {
        carriers: s.orgs.carrierPool(who.orgId).map(presentCarrier),
        numbers: s.callerIds.numbers(who.orgId),
        rest_days: s.stores.orgs.get(who.orgId)!.callerIdRestDays,
      },
    }), { params: orgParams, console: 'owner', response: { 200: NumbersReply }, detail: hide })
    .post('/orgs/:org/numbers/:number/put-back', ({ params, who }) => ({ data: s.callerIds.putBack(who.orgId, params.number, who.keyName) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }), number: t.String({ pattern: '^\\+[1-9][0-9]{6,14}$' }) }),
      console: 'owner', response: { 200: NumberReply }, detail: hide,
    })
}
