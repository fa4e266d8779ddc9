import type { InboundOpened, SeatPort } from '../ports'
import { initialCarrierState, type CallPlan, type CarrierState } from './call-plan'
import { runStep } from './callback-steps'
import type { StepContext } from './step-types'

/**
 * An incoming call from a known lead, answered (docs/telephony.md "Calls back"): a waiting seat
 * of the lead's campaign takes it (the power path of conference-steps.ts: the caller joins the
 * seat's conference, connected and handed over at once), else the campaign's press-1 bridge rings
 * its people as after an outbound answer. The call then runs through the usual callback steps
 * under /twilio/calls/<call id>/: the caller's number is `to`, the organization's number `from`
 * (the bridge legs show it). Never detection (a person dialed us), never recorded. Pure but for
 * the seat port and the call events, inside the webhook's transaction.
 */
export function answerIncoming(
  ctx: Omit<StepContext, 'plan' | 'callId'>,
  opened: Extract<InboundOpened, { kind: 'lead' }>,
  call: { from: string; to: string },
  params: Record<string, string>,
): { plan: CallPlan; state: CarrierState; twiml: string } {
  const claimed = ctx.seats?.claim(opened.campaignId, opened.callId, ctx.now) ?? null
  const plan: CallPlan = {
    to: call.from, from: call.to, leadName: opened.leadName, campaignName: opened.campaignName, agentName: opened.agentName,
    machineDetection: false, record: false, bridge: opened.bridge, voicemail: null, consent: null,
    dialMode: claimed ? 'power' : 'bridge', abandonMessage: null, campaignId: opened.campaignId,
  }
  // The seat is claimed above so that, with none waiting, the bridge (not the abandon message) answers.
  const seats: SeatPort | undefined = claimed && ctx.seats ? { claim: () => claimed, release: (id, at) => ctx.seats!.release(id, at) } : ctx.seats
  const result = runStep({ ...ctx, seats, plan, callId: opened.callId }, initialCarrierState(plan), 'answer', null, params)
  return { plan, state: result.state, twiml: result.twiml ?? '' }
}
