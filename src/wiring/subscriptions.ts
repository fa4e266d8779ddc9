import type { Stores } from '../db/stores'
import type { CallService } from '../domain/calls/call-service'
import type { Dialer } from '../domain/calls/dialer'
import type { CampaignService } from '../domain/campaigns/campaign-service'
import type { DncService } from '../domain/dnc/dnc-service'
import type { EventLog } from '../domain/events/event-log'
import type { LeadService } from '../domain/leads/lead-service'
import type { DialQueues } from '../domain/queue/dial-queues'
import type { UsageService } from '../domain/usage/usage-service'
import type { DeliveryWorker } from '../domain/webhooks/delivery-worker'
import type { WebhookService } from '../domain/webhooks/webhook-service'
import { carrierList, type CarrierSet } from '../telephony/registry'

export interface SubscriptionDeps {
  stores: Stores
  dnc: DncService
  leads: LeadService
  campaigns: CampaignService
  dialer: Dialer
  usage: UsageService
  queues: DialQueues
  calls: CallService
  carrierSet: CarrierSet
  events: EventLog
  webhooks: WebhookService
  deliveries: DeliveryWorker
}

/**
 * Every reaction of one service to another, one line each: "when X happens → Y does Z".
 * Listeners of one event run in the order listed; "(in its transaction)" marks an event told
 * inside the transaction that makes the change.
 */
export function wireSubscriptions(d: SubscriptionDeps): void {
  const { stores, dnc, leads, campaigns, dialer, usage, queues, calls, carrierSet, events, webhooks, deliveries } = d
  // A number goes on a Do Not Call list (in its transaction) → its leads leave the queue.
  dnc.onNumberBlocked((scope, e164, source, at) => leads.numberBlocked(scope, e164, source, at))
  // A campaign's status changes (in its transaction) → its waiting leads are held or placed again,
  campaigns.onStatusChanged((campaign, previous) => leads.campaignStatusChanged(campaign, previous))
  // → an active campaign's queues are dialed once committed (each dial waits for its own commit),
  campaigns.onStatusChanged((campaign) => {
    if (campaign.status !== 'active') return
    stores.afterCommit(() => {
      dialer.pump(campaign.id, true)
      dialer.pump(campaign.id, false)
    })
  })
  // → spend caps are evaluated again once committed.
  campaigns.onStatusChanged(() => stores.afterCommit(() => usage.evaluateCaps()))
  // A campaign reaches or leaves its spend cap → its live waiting leads are held or placed again.
  usage.onCapChange((campaign, reached) => leads.spendCapChanged(campaign, reached))
  // A lead joins a queue (after commit) → the dialer dials while a line is free.
  queues.onWork((campaignId, livemode) => dialer.pump(campaignId, livemode))
  // A call ends → its line takes the next lead.
  calls.onLineFree((campaignId, livemode) => dialer.lineFree(campaignId, livemode))
  // The carrier turns a call away for its own limit (429) → the campaign's lines hold, then dial again.
  calls.onCarrierThrottled((campaignId, livemode) => dialer.throttled(campaignId, livemode))
  // A carrier's callbacks (also those of calls dialed before a restart) → the call service's events.
  for (const each of carrierList(carrierSet)) each.connect?.(calls.carrierEvents)
  // An event is stored (in its transaction) → its webhook deliveries are written with it (the outbox),
  events.onRecorded((row) => webhooks.fanOut(row))
  // → and once durable, each delivery is sent by the worker (as are those of a resumed endpoint).
  webhooks.onDeliveryReady((delivery) => deliveries.enqueue(delivery))

  // The worker reads the outbox only once the open group has committed: through this
  // connection it would also see deliveries that are released but not yet durable.
  stores.afterDurable(() => deliveries.restore(stores.webhooks.due(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)))
}
