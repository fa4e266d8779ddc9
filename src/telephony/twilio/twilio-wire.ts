import { verifiedParams } from './callback-audit'
import { addParticipant, findConference } from './conference-client'
import { RECORDING_STATUS_EVENTS, TwilioRestClient, type RestClientOptions, type TwilioAccount } from './rest-client'
import type { CallRest, CarrierWire } from './wire'

/** Twilio's side of the call engine's wire port (wire.ts): its REST client, X-Twilio-Signature, CA… ids, TwiML as built. */
export function twilioWire(account: (orgId: string) => TwilioAccount | null, options?: RestClientOptions): CarrierWire {
  return {
    kind: 'twilio',
    label: 'Twilio',
    root: '/twilio',
    signatureHeader: 'X-Twilio-Signature',
    callSid: /^CA[0-9a-fA-F]{32}$/,
    recordingSid: /^RE[0-9a-fA-F]{32}$/,
    conferenceSid: /^CF[0-9a-fA-F]{32}$/,
    rest(orgId) {
      const found = account(orgId)
      return found ? twilioRest(new TwilioRestClient(found, options)) : null
    },
    verify(orgId, input) {
      const found = account(orgId)
      return found ? verifiedParams(found, input) : { refused: 'unknown_call' }
    },
    markup: (twiml) => twiml,
    url: (url) => url,
  }
}

function twilioRest(client: TwilioRestClient): CallRest {
  return {
    createCall: (params) => client.createCall(params),
    fetchCall: (sid) => client.fetchCall(sid),
    updateCall: (sid, update) => client.updateCall(sid, update),
    startRecording: (sid, statusCallback) => client.startRecording(sid, { statusCallback, events: RECORDING_STATUS_EVENTS }),
    downloadRecording: (sid) => client.downloadRecording(sid),
    deleteRecording: (sid) => client.deleteRecording(sid),
    findConference: (name) => findConference(client, name),
    addParticipant: (sid, params) => addParticipant(client, sid, params),
  }
}
