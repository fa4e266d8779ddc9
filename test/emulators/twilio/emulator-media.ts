import { type EmulatedCall, type Engine, rfc2822 } from './emulator-types'

/**
 * A call's media the service asks for: real-time transcription (<Start><Transcription>, lines
 * from the scenario at their times) and recordings (Record=true on the create, or
 * POST .../Calls/{Sid}/Recordings.json on a live call), told when the call ends.
 */

export function startTranscription(engine: Engine, call: EmulatedCall, url: string, attrs: Record<string, string>): void {
  if (call.transcription) return
  const labels = {
    inbound_track: (engine.trackLabels && attrs.inboundTrackLabel) || 'inbound_track',
    outbound_track: (engine.trackLabels && attrs.outboundTrackLabel) || 'outbound_track',
  }
  call.transcription = { url, sid: engine.wire.newTranscriptionSid(), seq: 0, labels, attrs }
  tell(engine, call, 'started')
  for (const [at, text] of call.plan.lines) {
    engine.after(call, Math.max(0.1, at - engine.now(call)), () => transcript(engine, call, 'inbound_track', text))
  }
}

export function transcript(engine: Engine, call: EmulatedCall, track: 'inbound_track' | 'outbound_track', text: string): void {
  if (!call.transcription || call.endedAt !== null) return
  tell(engine, call, 'content', { track, text })
}

/** One transcription callback, in the carrier's words (some carriers send none for an event or a track). */
function tell(engine: Engine, call: EmulatedCall, event: 'started' | 'content' | 'stopped', line?: { track: 'inbound_track' | 'outbound_track'; text: string }): Promise<unknown> {
  const params = engine.wire.transcription(call, event, line)
  return params ? engine.post(call, 'transcription', call.transcription!.url, params) : Promise.resolve()
}

/** The call ended: its transcription stops (told before the final status). */
export async function transcriptionAtEnd(engine: Engine, call: EmulatedCall): Promise<void> {
  if (call.transcription) await tell(engine, call, 'stopped')
}

/** The call ended: its recordings (Record=true, then a live one) are told (after the final status). */
export async function recordingsAtEnd(engine: Engine, call: EmulatedCall, answered: boolean): Promise<void> {
  if (answered && call.record) {
    const outcome = call.script.recording ?? 'completed'
    const sid = engine.wire.newRecordingSid()
    // Only a completed recording can be fetched; absent and failed ones reach only calls subscribed to absent.
    if (outcome === 'completed') call.recordingSid = sid
    if (call.recordingCallback && call.recordingEvents.has(outcome === 'completed' ? 'completed' : 'absent')) {
      await engine.post(call, 'recording', call.recordingCallback, {
        AccountSid: call.accountSid, CallSid: call.sid, RecordingSid: sid,
        RecordingUrl: engine.wire.recordingUrl(engine.apiBaseUrl(), call, sid),
        RecordingStatus: outcome, RecordingDuration: String(outcome === 'completed' ? call.duration : 0), RecordingChannels: '1', RecordingSource: 'OutboundAPI',
        RecordingStartTime: rfc2822(new Date()), RecordingTrack: 'both', ...(outcome === 'completed' ? {} : { ErrorCode: '0' }),
      })
    }
  }
  if (answered && call.liveRecording) await liveRecordingDone(engine, call, call.liveRecording)
}

/**
 * POST .../Calls/{Sid}/Recordings.json on a call in progress: recording starts now (one per
 * call here; a second request gets the first). in-progress is sent at once when subscribed.
 */
export function startRecording(engine: Engine, call: EmulatedCall, callback: string | null, events: Set<string>): { sid: string; startedAt: number } {
  if (call.liveRecording) return call.liveRecording
  const recording = { sid: engine.wire.newRecordingSid(), startedAt: engine.now(call), callback, events }
  call.liveRecording = recording
  if (callback && events.has('in-progress')) void engine.post(call, 'recording', callback, recordingParams(engine, call, recording.sid, 'in-progress', 0, recording.startedAt))
  return recording
}

/** The call ended: its live recording is completed (or absent/failed as scripted) and told. */
async function liveRecordingDone(engine: Engine, call: EmulatedCall, recording: NonNullable<EmulatedCall['liveRecording']>): Promise<void> {
  const outcome = call.script?.recording ?? 'completed'
  if (outcome === 'completed') call.recordingSid = recording.sid
  if (!recording.callback || !recording.events.has(outcome === 'completed' ? 'completed' : 'absent')) return
  const seconds = outcome === 'completed' ? Math.max(0, Math.round(call.endedAt! - recording.startedAt)) : 0
  await engine.post(call, 'recording', recording.callback, recordingParams(engine, call, recording.sid, outcome, seconds, recording.startedAt))
}

function recordingParams(engine: Engine, call: EmulatedCall, sid: string, status: string, seconds: number, startedAt: number): Record<string, string> {
  return {
    AccountSid: call.accountSid, CallSid: call.sid, RecordingSid: sid,
    RecordingUrl: engine.wire.recordingUrl(engine.apiBaseUrl(), call, sid),
    RecordingStatus: status, RecordingDuration: String(seconds), RecordingChannels: '1', RecordingSource: 'StartCallRecordingAPI',
    RecordingStartTime: rfc2822(new Date(call.startedAt + startedAt * 1000)), RecordingTrack: 'both',
  }
}
