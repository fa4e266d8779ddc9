import { expect } from 'bun:test'
import type { Harness, Reply, TestKey, World } from '../harness'

/** What POST /leads answers, as the tests read it. */
export interface AddedLead {
  id: string
  status: string
  place_in_line: number | null
  estimated_wait_seconds: number | null
}

/** A POST /leads body (a type, not an interface, so it passes as a plain record). */
export type LeadBody = {
  campaign_id?: string
  phone: string
  external_id?: string
  name?: string
  email?: string
  address?: string
  fields?: Record<string, string>
  consent?: Record<string, string>
  call_now?: boolean
}

/**
 * Lead and call helpers bound to a test file's current harness and world (files make them per
 * test or per file, so they are read at call time). Keys default to the world's live key and
 * leads to its active campaign.
 */
export function apiHelpers(current: () => { h: Harness; w: World }) {
  /** POST /leads that must answer 201; the lead as answered. */
  async function addLead(body: Record<string, unknown>, key?: TestKey): Promise<AddedLead> {
    const { h, w } = current()
    const r = await h.api('POST', '/leads', { key: key ?? w.live, body: { campaign_id: w.campaignId, ...body } })
    if (r.status !== 201) throw new Error(`lead intake failed: ${r.status} ${r.text}`)
    return r.body.data
  }

  /** POST /leads that must answer 201; the new lead's id. */
  async function addLeadId(body: LeadBody, key?: TestKey): Promise<string> {
    return (await addLead(body, key)).id
  }

  /** GET /leads/{id} as it answers. */
  function getLeadReply(id: string, key?: TestKey): Promise<Reply> {
    const { h, w } = current()
    return h.api('GET', `/leads/${id}`, { key: key ?? w.live })
  }

  /** GET /leads/{id} that must answer 200; the lead. */
  async function getLead(id: string, key?: TestKey) {
    const r = await getLeadReply(id, key)
    expect(r.status).toBe(200)
    return r.body.data
  }

  /** The lead's calls, newest first. */
  async function callsOf(leadId: string, key?: TestKey): Promise<any[]> {
    const { h, w } = current()
    const r = await h.api('GET', `/calls?lead_id=${leadId}`, { key: key ?? w.live })
    expect(r.status).toBe(200)
    return r.body.data
  }

  /** The lead's one call. */
  async function onlyCall(leadId: string, key?: TestKey) {
    const calls = await callsOf(leadId, key)
    expect(calls).toHaveLength(1)
    return calls[0]
  }

  /** Admin PATCH of a campaign (the world's active one by default) that must succeed. */
  async function patchCampaign(body: Record<string, unknown>, campaignId?: string) {
    const { h, w } = current()
    const r = await h.admin('PATCH', `/campaigns/${campaignId ?? w.campaignId}`, body)
    if (r.status !== 200) throw new Error(`campaign patch failed: ${r.text}`)
    return r.body.data
  }

  return { addLead, addLeadId, getLead, getLeadReply, callsOf, onlyCall, patchCampaign }
}
