import type { Conference, Participant } from '../twilio/emulator-conference'
import { type ParticipantOptions, rfc2822 } from '../twilio/emulator-types'
import { API, flag, invalid, isHttpUrl, many, notFound, one, page, type Params } from './telnyx-http'
import { checkEnds, methodsOf, statusEvents, throttled, type TelnyxAccount, type TelnyxRestContext, timeoutOf } from './telnyx-rest-calls'

/**
 * TeXML Conferences and Participants (team-telnyx/telnyx-node src/resources/texml/accounts/conferences/):
 * `GET …/Conferences` (FriendlyName and Status filters), `GET|POST …/Conferences/{conference_sid}`
 * (form-encoded; Status=completed ends it), `GET|POST …/Conferences/{conference_sid}/Participants`
 * (POST dials a new participant, form-encoded: To, From, Label, Muted, Coaching, CallSidToCoach,
 * StartConferenceOnEnter, EndConferenceOnExit, StatusCallback*, ConferenceStatusCallback*), and
 * `GET|POST|DELETE …/Participants/{call_sid_or_participant_label}`. Unlike the Twilio emulator, a
 * room is named by its sid only (the path parameter is conference_sid): a participant can join
 * only a room that runs. The room's callbacks keep the shared engine's (Twilio's) field names:
 * Telnyx does not publish its conference callback fields.
 */

const STATUS: Record<Participant['status'], string> = { queued: 'connecting', connecting: 'connecting', ringing: 'connecting', connected: 'connected', complete: 'completed', failed: 'completed' }

/** parts: the path after the account, split at / (ids URL-decoded). null: not a conference path. */
export function conferenceRoutes(ctx: TelnyxRestContext, account: TelnyxAccount, method: string, parts: string[], query: URLSearchParams, params: Params): Response | null {
  const rooms = ctx.engine.conferences
  const [collection, sid, sub, who, ...more] = parts
  if (collection !== 'Conferences' || more.length > 0) return null
  if (sid === undefined) {
    if (method !== 'GET') return notFound()
    const name = query.get('FriendlyName')
    const status = query.get('Status')
    const list = [...rooms.all.values()].filter((c) => c.accountSid === account.accountSid && (name === null || c.friendlyName === name) && (status === null || c.status === status))
    list.sort((a, b) => b.created.getTime() - a.created.getTime())
    return Response.json(page(`${API}${account.accountSid}/Conferences`, 'conferences', list.map(conferenceResource)))
  }
  const conference = rooms.all.get(sid.replace(/\.json$/, ''))
  if (!conference || conference.accountSid !== account.accountSid) return notFound()
  if (sub === undefined) {
    if (method === 'GET') return Response.json(conferenceResource(conference))
    if (method !== 'POST') return notFound()
    const status = one(params, 'Status')
    if (status !== undefined && status !== 'completed') return invalid('Status', `Status must be completed, not ${status}.`)
    if (status === 'completed') rooms.end(conference, 'conference-ended-via-api', null)
    return Response.json(conferenceResource(conference))
  }
  if (sub !== 'Participants' && sub !== 'Participants.json') return notFound()
  if (who === undefined) {
    if (method === 'GET') return Response.json(page(`${API}${account.accountSid}/Conferences/${conference.sid}/Participants`, 'participants', conference.participants.map((p) => participantResource(conference, p))))
    if (method === 'POST') return conference.status === 'completed' ? notFound() : createParticipant(ctx, account, conference, params)
    return notFound()
  }
  const key = who.replace(/\.json$/, '')
  const participant = conference.participants.find((p) => p.call.sid === key || p.label === key)
  if (!participant) return notFound()
  if (method === 'GET') return Response.json(participantResource(conference, participant))
  if (method === 'DELETE') {
    if (participant.status === 'connected') rooms.kick(conference, participant)
    else ctx.engine.hangUp(participant.call)
    return new Response(null, { status: 204 })
  }
  if (method !== 'POST') return notFound()
  return updateParticipant(ctx, conference, participant, params)
}

function updateParticipant(ctx: TelnyxRestContext, conference: Conference, participant: Participant, params: Params): Response {
  const coach = one(params, 'CallSidToCoach')
  const coaching = flag(params, 'Coaching', coach !== undefined ? true : participant.coaching)
  const target = coach ?? participant.callSidToCoach
  if (coaching && !conference.participants.some((p) => p.call.sid === target && p.status === 'connected')) return invalid('CallSidToCoach', 'CallSidToCoach must be a participant of the conference.')
  const muted = flag(params, 'Muted', participant.muted)
  const hold = flag(params, 'Hold', participant.hold)
  const before = { muted: participant.muted, hold: participant.hold, coaching: participant.coaching, coach: participant.callSidToCoach }
  Object.assign(participant, { muted, hold, coaching, callSidToCoach: coaching ? target : null, endConferenceOnExit: flag(params, 'EndConferenceOnExit', participant.endConferenceOnExit) })
  const rooms = ctx.engine.conferences
  if (before.muted !== muted) rooms.changed(conference, participant, muted ? 'participant-mute' : 'participant-unmute')
  if (before.hold !== hold) rooms.changed(conference, participant, hold ? 'participant-hold' : 'participant-unhold')
  if (before.coaching !== coaching || before.coach !== participant.callSidToCoach) rooms.changed(conference, participant, 'participant-modify')
  return Response.json(participantResource(conference, participant))
}

function createParticipant(ctx: TelnyxRestContext, account: TelnyxAccount, conference: Conference, params: Params): Response {
  const p = (name: string) => one(params, name)
  const bad = checkEnds(params, account.callerIds)
  if (bad) return bad
  for (const name of ['StatusCallback', 'ConferenceStatusCallback', 'WaitUrl', 'AmdStatusCallback']) {
    const value = p(name)
    if (value !== undefined && value !== '' && !isHttpUrl(value)) return invalid(name, `${name} is not a valid URL: ${value}`)
  }
  const timeout = timeoutOf(params)
  if (timeout === null) return invalid('Timeout', 'Timeout must be an integer from 5 to 120.')
  const methods = methodsOf(params)
  if (methods instanceof Response) return methods
  const coach = p('CallSidToCoach') ?? null
  const coaching = flag(params, 'Coaching', coach !== null)
  if (coaching && !(coach && conference.participants.some((x) => x.call.sid === coach && x.status === 'connected'))) {
    return invalid('CallSidToCoach', 'Coaching requires CallSidToCoach, a participant of the conference.')
  }
  const up = [...ctx.calls.values()].filter((c) => c.accountSid === account.accountSid && c.endedAt === null).length
  if (account.maxConcurrentCalls !== undefined && up >= account.maxConcurrentCalls) {
    return throttled()
  }
  const options: ParticipantOptions = {
    muted: flag(params, 'Muted', false), coaching, callSidToCoach: coaching ? coach : null,
    startConferenceOnEnter: flag(params, 'StartConferenceOnEnter', true), endConferenceOnExit: flag(params, 'EndConferenceOnExit', false),
    beep: p('Beep') ?? 'true', waitUrl: p('WaitUrl') ?? null, label: p('Label') ?? null,
    statusCallback: p('ConferenceStatusCallback') ?? null, statusCallbackEvents: many(params, 'ConferenceStatusCallbackEvent', []),
  }
  const to = p('To')!
  const call = ctx.engine.newCall({
    accountSid: account.accountSid, authToken: '', to, from: p('From')!, url: null, twiml: null,
    statusCallback: p('StatusCallback') ?? null, events: statusEvents(params), amd: null, amdCallback: null,
    record: false, recordingCallback: null, recordingEvents: new Set(), script: ctx.scripts.get(to) ?? {}, timeout,
    role: 'person', joins: { conferenceSid: conference.sid, options },
  })
  ctx.calls.set(call.sid, call)
  ctx.methods.set(call.sid, { status: methods.status })
  const participant = ctx.engine.conferences.pending(conference, call, options)
  return Response.json(participantResource(conference, participant), { status: 201 })
}

export function conferenceResource(c: Conference): Record<string, unknown> {
  const uri = `${API}${c.accountSid}/Conferences/${c.sid}.json`
  return {
    account_sid: c.accountSid, api_version: '2010-04-01', call_sid_ending_conference: c.callSidEnding, date_created: rfc2822(c.created),
    date_updated: rfc2822(c.updated), friendly_name: c.friendlyName, reason_conference_ended: c.reasonEnded, region: 'dc2', sid: c.sid,
    status: c.status, subresource_uris: { participants: uri.replace('.json', '/Participants.json'), recordings: uri.replace('.json', '/Recordings.json') }, uri,
  }
}

export function participantResource(c: Conference, p: Participant): Record<string, unknown> {
  return {
    account_sid: c.accountSid, api_version: '2010-04-01', call_sid: p.call.sid, call_sid_legacy: p.call.sid, coaching: p.coaching,
    coaching_call_sid: p.callSidToCoach, conference_sid: c.sid, date_created: rfc2822(p.created), date_updated: rfc2822(p.updated),
    end_conference_on_exit: p.endConferenceOnExit, hold: p.hold, muted: p.muted, status: STATUS[p.status],
    uri: `${API}${c.accountSid}/Conferences/${c.sid}/Participants/${encodeURIComponent(p.call.sid)}.json`,
  }
}
