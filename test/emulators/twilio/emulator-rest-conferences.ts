import type { Conference, Participant } from './emulator-conference'
import { API, checkEnds, error, isHttpUrl, many, notFound, one, page, type Params } from './emulator-http'
import { type CallAccount, type RestContext, statusEvents, timeoutOf } from './emulator-rest-calls'
import { type ParticipantOptions, rfc2822 } from './emulator-types'

/**
 * The Conference resource (twilio.com/docs/voice/api/conference-resource: list with FriendlyName
 * and Status filters, fetch, update Status=completed) and its Participants
 * (twilio.com/docs/voice/api/conference-participant-resource: list, create with From, To, Muted,
 * Coaching, CallSidToCoach and the rest, fetch, update, delete). A participant created through
 * the API is a new call (its own CallSid and StatusCallback) that joins the room when answered;
 * the path may name the room by SID or by FriendlyName (a new room when none of that name runs).
 */

const CONFERENCE_SID = /^CF[0-9a-fA-F]{32}$/
const bool = (params: Params, name: string, fallback: boolean) => {
  const v = one(params, name)
  return v === undefined ? fallback : v === 'true'
}

/** Requests under .../Conferences (parts: the path after the account, split at /); null: not a conference path. */
export function conferenceRoutes(ctx: RestContext, account: CallAccount, method: string, path: string, parts: string[], query: URLSearchParams, params: Params): Response | null {
  const rooms = ctx.engine.conferences
  const [collection, file, sub, callFile, ...more] = parts
  if (collection === 'Conferences.json' && file === undefined) {
    if (method !== 'GET') return notFound(path)
    const name = query.get('FriendlyName')
    const status = query.get('Status')
    const list = [...rooms.all.values()].filter((c) => c.accountSid === account.sid && (name === null || c.friendlyName === name) && (status === null || c.status === status))
    list.sort((a, b) => b.created.getTime() - a.created.getTime())
    return Response.json(page(`${API}${account.sid}/Conferences.json`, 'conferences', list.map(conferenceResource)))
  }
  if (collection !== 'Conferences' || !file || more.length > 0) return null
  const key = decodeURIComponent(file.replace(/\.json$/, ''))
  const byName = !CONFERENCE_SID.test(key)
  // A new participant may name a room that does not run yet: it is made.
  if (sub === 'Participants.json' && method === 'POST' && byName) return createParticipant(ctx, account, key, params)
  const conference = byName ? rooms.running(account.sid, key) : (rooms.all.get(key) ?? null)
  if (!conference || conference.accountSid !== account.sid) return notFound(path)
  if (file.endsWith('.json') && sub === undefined) {
    if (method === 'GET') return Response.json(conferenceResource(conference))
    if (method !== 'POST') return notFound(path)
    const status = one(params, 'Status')
    if (status !== undefined && status !== 'completed') return error({ status: 400, code: 20001, message: `Invalid parameter: Status ${status}` })
    if (status === 'completed') rooms.end(conference, 'conference-ended-via-api', null)
    return Response.json(conferenceResource(conference))
  }
  if (sub === 'Participants.json' && callFile === undefined) {
    if (method === 'GET') return Response.json(page(`${API}${account.sid}/Conferences/${conference.sid}/Participants.json`, 'participants', conference.participants.map((p) => participantResource(conference, p))))
    if (method === 'POST') return conference.status === 'completed' ? notFound(path) : createParticipant(ctx, account, conference, params)
    return notFound(path)
  }
  if (sub === 'Participants' && callFile?.endsWith('.json')) return participantRoutes(ctx, conference, method, path, callFile, params)
  return notFound(path)
}

/** .../Conferences/{Sid}/Participants/{CallSid}.json: fetch, update (Muted, Hold, Coaching, CallSidToCoach), delete (out of the room). */
function participantRoutes(ctx: RestContext, conference: Conference, method: string, path: string, callFile: string, params: Params): Response {
  const participant = conference.participants.find((p) => `${p.call.sid}.json` === callFile)
  if (!participant) return notFound(path)
  if (method === 'GET') return Response.json(participantResource(conference, participant))
  if (method === 'DELETE') {
    if (participant.status === 'connected') ctx.engine.conferences.kick(conference, participant)
    else ctx.engine.hangUp(participant.call)
    return new Response(null, { status: 204 })
  }
  if (method !== 'POST') return notFound(path)
  const coach = one(params, 'CallSidToCoach')
  const coaching = bool(params, 'Coaching', coach !== undefined ? true : participant.coaching)
  const target = coach ?? participant.callSidToCoach
  if (coaching && !conference.participants.some((p) => p.call.sid === target && p.status === 'connected')) {
    return error({ status: 400, code: 20001, message: 'Invalid parameter: CallSidToCoach must be a participant of the conference' })
  }
  const muted = bool(params, 'Muted', participant.muted)
  const hold = bool(params, 'Hold', participant.hold)
  const before = { muted: participant.muted, hold: participant.hold, coaching: participant.coaching, coach: participant.callSidToCoach }
  Object.assign(participant, { muted, hold, coaching, callSidToCoach: coaching ? target : null })
  const rooms = ctx.engine.conferences
  if (before.muted !== muted) rooms.changed(conference, participant, muted ? 'participant-mute' : 'participant-unmute')
  if (before.hold !== hold) rooms.changed(conference, participant, hold ? 'participant-hold' : 'participant-unhold')
  if (before.coaching !== coaching || before.coach !== participant.callSidToCoach) rooms.changed(conference, participant, 'participant-modify')
  return Response.json(participantResource(conference, participant))
}

/** A new participant of `room` (a running room, or a FriendlyName: the running room of that name or a new one, made once the request is valid). */
function createParticipant(ctx: RestContext, account: CallAccount, room: Conference | string, params: Params): Response {
  const p = (name: string) => one(params, name)
  const rooms = ctx.engine.conferences
  const present = typeof room === 'string' ? rooms.running(account.sid, room) : room
  const to = p('To')
  const from = p('From')
  const bad = checkEnds(to, from, account.callerIds)
  if (bad) return bad
  for (const name of ['StatusCallback', 'ConferenceStatusCallback', 'WaitUrl']) {
    const value = p(name)
    if (value !== undefined && value !== '' && !isHttpUrl(value)) return error({ status: 400, code: 21609, message: `Invalid ${name} URL: ${value}` })
  }
  const timeout = timeoutOf(params)
  if (timeout === null) return error({ status: 400, code: 20001, message: 'Invalid parameter: Timeout' })
  const coach = p('CallSidToCoach') ?? null
  // Coaching defaults to false unless CallSidToCoach is given; Coaching=true needs it.
  const coaching = bool(params, 'Coaching', coach !== null)
  if (coaching && !(coach && present?.participants.some((x) => x.call.sid === coach && x.status === 'connected'))) {
    return error({ status: 400, code: 20001, message: 'Invalid parameter: Coaching requires CallSidToCoach, a participant of the conference' })
  }
  const up = [...ctx.calls.values()].filter((c) => c.accountSid === account.sid && c.endedAt === null).length
  if (account.maxConcurrentCalls !== undefined && up >= account.maxConcurrentCalls) return error({ status: 429, code: 20429, message: 'Too Many Requests' })
  const options: ParticipantOptions = {
    muted: bool(params, 'Muted', false), coaching, callSidToCoach: coaching ? coach : null,
    startConferenceOnEnter: bool(params, 'StartConferenceOnEnter', true), endConferenceOnExit: bool(params, 'EndConferenceOnExit', false),
    beep: p('Beep') ?? 'true', waitUrl: p('WaitUrl') ?? null, label: p('Label') ?? null,
    statusCallback: p('ConferenceStatusCallback') ?? null, statusCallbackEvents: many(params, 'ConferenceStatusCallbackEvent', []),
  }
  const conference = present ?? rooms.open(account.sid, room as string)
  const call = ctx.engine.newCall({
    accountSid: account.sid, authToken: account.authToken, to: to!, from: from!, url: null, twiml: null,
    statusCallback: p('StatusCallback') ?? null, events: statusEvents(params), amd: null, amdCallback: null,
    record: false, recordingCallback: null, recordingEvents: new Set(), script: ctx.scripts.get(to!) ?? {}, timeout,
    role: 'person', joins: { conferenceSid: conference.sid, options },
  })
  ctx.calls.set(call.sid, call)
  const participant = rooms.pending(conference, call, options)
  return Response.json(participantResource(conference, participant), { status: 201 })
}

export function conferenceResource(c: Conference): Record<string, unknown> {
  const uri = `${API}${c.accountSid}/Conferences/${c.sid}.json`
  return {
    account_sid: c.accountSid, api_version: '2010-04-01', date_created: rfc2822(c.created), date_updated: rfc2822(c.updated),
    friendly_name: c.friendlyName, region: 'us1', sid: c.sid, status: c.status, reason_conference_ended: c.reasonEnded,
    call_sid_ending_conference: c.callSidEnding, uri,
    subresource_uris: { participants: uri.replace('.json', '/Participants.json'), recordings: uri.replace('.json', '/Recordings.json') },
  }
}

export function participantResource(c: Conference, p: Participant): Record<string, unknown> {
  return {
    account_sid: c.accountSid, call_sid: p.call.sid, label: p.label, call_sid_to_coach: p.callSidToCoach, coaching: p.coaching,
    conference_sid: c.sid, date_created: rfc2822(p.created), date_updated: rfc2822(p.updated), end_conference_on_exit: p.endConferenceOnExit,
    muted: p.muted, hold: p.hold, start_conference_on_enter: p.startConferenceOnEnter, status: p.status, queue_time: null,
    uri: `${API}${c.accountSid}/Conferences/${c.sid}/Participants/${p.call.sid}.json`,
  }
}
