import type { TwilioRestClient, TwilioResult } from './rest-client'

/**
 * The Conferences and Participants parts of Twilio's 2010-04-01 REST API a supervisor needs
 * (twilio.com/docs/voice/api/conference-resource, /api/conference-participant-resource): find a
 * seat's room by its FriendlyName, and call a phone into it as a participant.
 */

const CONFERENCE_SID = /^CF[0-9a-fA-F]{32}$/
const CALL_SID = /^CA[0-9a-fA-F]{32}$/

/** GET .../Conferences.json?FriendlyName=&Status=in-progress: the running room of that name (null: none runs). */
export async function findConference(client: TwilioRestClient, friendlyName: string): Promise<TwilioResult<string | null>> {
  const query = new URLSearchParams({ FriendlyName: friendlyName, Status: 'in-progress' })
  const result = await client.accountRequest('GET', `Conferences.json?${query.toString()}`)
  if (!result.ok) return result
  const list = (result.value as { conferences?: unknown } | null)?.conferences
  const sid = Array.isArray(list) ? (list as { sid?: unknown }[]).map((c) => c.sid).find((s) => typeof s === 'string' && CONFERENCE_SID.test(s)) : undefined
  return { ok: true, value: (sid as string | undefined) ?? null }
}

export interface ParticipantParams {
  /** The organization's number the supervisor's phone shows. */
  from: string
  to: string
  /** listen: Muted=true; whisper: Coaching=true with CallSidToCoach; barge: neither. */
  mode: 'listen' | 'whisper' | 'barge'
  /** The seat's leg (whisper). */
  coach: string | null
  timeoutSeconds: number
}

/**
 * POST .../Conferences/{ConferenceSid}/Participants.json: Twilio calls `to` and, on answer, puts
 * it in the room. The supervisor's leaving never ends the room (EndConferenceOnExit=false), and
 * their joining neither starts one nor beeps.
 */
export async function addParticipant(client: TwilioRestClient, conferenceSid: string, params: ParticipantParams): Promise<TwilioResult<{ callSid: string | null }>> {
  if (!CONFERENCE_SID.test(conferenceSid)) return refused(`Not a Twilio conference SID: ${JSON.stringify(conferenceSid.slice(0, 40))}.`)
  if (params.mode === 'whisper' && !(params.coach && CALL_SID.test(params.coach))) return refused('A whisper needs the seat\u2019s call SID to coach.')
  const form = new URLSearchParams()
  form.append('From', params.from)
  form.append('To', params.to)
  form.append('Beep', 'false')
  form.append('StartConferenceOnEnter', 'false')
  form.append('EndConferenceOnExit', 'false')
  form.append('Timeout', String(params.timeoutSeconds))
  if (params.mode === 'listen') form.append('Muted', 'true')
  if (params.mode === 'whisper') {
    form.append('Coaching', 'true')
    form.append('CallSidToCoach', params.coach!)
  }
  const result = await client.accountRequest('POST', `Conferences/${conferenceSid}/Participants.json`, form)
  if (!result.ok) return result
  const callSid = (result.value as { call_sid?: unknown } | null)?.call_sid
  return { ok: true, value: { callSid: typeof callSid === 'string' ? callSid : null } }
}

function refused<T>(message: string): TwilioResult<T> {
  return { ok: false, error: { kind: 'rejected', status: null, code: null, message } }
}
