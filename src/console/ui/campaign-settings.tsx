import { useEffect, useState } from 'preact/hooks'
import type { CampaignPerson, CampaignSettings } from '../model'
import { api, ApiFailure, errorText } from './api'
import { Alert, Loaded } from './parts'
import { onLinkClick } from './router'
import { useApi } from './use-api'

type VoicemailKind = 'none' | 'say' | 'audio_url'
type DialMode = CampaignSettings['dial_mode']
interface Draft {
  lines: string
  sdrs: CampaignPerson[]
  closers: CampaignPerson[]
  start: string
  end: string
  voicemailKind: VoicemailKind
  voicemail: string
  /** 'none': the default sentence ("This call may be recorded."). */
  noticeKind: VoicemailKind
  notice: string
  dialMode: DialMode
  /** Percent, as typed (the API takes a rate: 3 % is 0.03). */
  maxAbandonPercent: string
  abandonKind: VoicemailKind
  abandon: string
}
/** The failure the API named a field for (`param`), shown next to that field. */
interface FieldError { param: string | null; message: string }

const draftOf = (c: CampaignSettings): Draft => ({
  lines: String(c.lines),
  sdrs: c.sdrs,
  closers: c.closers,
  start: c.calling_hours.start,
  end: c.calling_hours.end,
  voicemailKind: c.voicemail === null ? 'none' : 'say' in c.voicemail ? 'say' : 'audio_url',
  voicemail: c.voicemail === null ? '' : 'say' in c.voicemail ? c.voicemail.say : c.voicemail.audio_url,
  noticeKind: c.recording_notice === null ? 'none' : 'say' in c.recording_notice ? 'say' : 'audio_url',
  notice: c.recording_notice === null ? '' : 'say' in c.recording_notice ? c.recording_notice.say : c.recording_notice.audio_url,
  dialMode: c.dial_mode,
  maxAbandonPercent: String(Math.round(c.max_abandon_rate * 10_000) / 100),
  abandonKind: c.abandon_message === null ? 'none' : 'say' in c.abandon_message ? 'say' : 'audio_url',
  abandon: c.abandon_message === null ? '' : 'say' in c.abandon_message ? c.abandon_message.say : c.abandon_message.audio_url,
})

/** Percent typed -> the API's rate; what does not read as a number goes as typed, for the API to name. */
function rateOf(percent: string): number | string {
  const value = Number(percent.trim())
  return percent.trim() !== '' && Number.isFinite(value) ? Math.round(value * 100) / 10_000 : percent
}

/** The body of the change: the admin API's campaign fields; a person's blank phone is left out. */
function bodyOf(d: Draft) {
  const people = (list: CampaignPerson[]) => list.map((p) => ({ ...(p.id ? { id: p.id } : {}), name: p.name, ...(p.phone ? { phone: p.phone } : {}) }))
  return {
    lines: /^\d+$/.test(d.lines.trim()) ? Number(d.lines) : d.lines,
    sdrs: people(d.sdrs),
    closers: people(d.closers),
    calling_hours: { start: d.start, end: d.end },
    voicemail: d.voicemailKind === 'none' ? null : d.voicemailKind === 'say' ? { say: d.voicemail } : { audio_url: d.voicemail },
    recording_notice: d.noticeKind === 'none' ? null : d.noticeKind === 'say' ? { say: d.notice } : { audio_url: d.notice },
    dial_mode: d.dialMode,
    max_abandon_rate: rateOf(d.maxAbandonPercent),
    abandon_message: d.abandonKind === 'none' ? null : d.abandonKind === 'say' ? { say: d.abandon } : { audio_url: d.abandon },
  }
}

const idOf = (param: string) => `field-${param.replace(/[^a-z0-9]+/gi, '-')}`

/** A campaign's settings for its owners: lines, SDRs and closers with their phones, calling hours, voicemail, dial mode. */
export function CampaignSettingsPage(props: { orgId: string; campaignId: string }) {
  const read = useApi<CampaignSettings>(`/orgs/${props.orgId}/campaigns/${props.campaignId}`)
  const [draft, setDraft] = useState<Draft | null>(null)
  const [failure, setFailure] = useState<FieldError | null>(null)
  const [saved, setSaved] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (read.data && draft === null) setDraft(draftOf(read.data))
  }, [read.data])

  const change = (patch: Partial<Draft>) => setDraft((d) => (d ? { ...d, ...patch } : d))
  /** Where the API's `param` points: `sdrs[1].phone` is the second SDR's phone field. */
  const errorFor = (param: string) => (failure && failure.param === param ? failure.message : null)
  const fieldProps = (param: string) => {
    const message = errorFor(param)
    return { id: idOf(param), 'aria-invalid': message ? true : undefined, 'aria-describedby': message ? `${idOf(param)}-error` : undefined }
  }
  // Called as functions, not components: a component declared in here would be a new type each
  // render, and its inputs would lose focus at every key.
  const fieldError = (param: string) => {
    const message = errorFor(param)
    return message ? <span class="error field-error" id={`${idOf(param)}-error`} role="alert">{message}</span> : null
  }
  const known = (param: string | null, d: Draft) => {
    if (param === null) return false
    if (['lines', 'calling_hours.start', 'calling_hours.end', 'voicemail.say', 'voicemail.audio_url', 'recording_notice.say', 'recording_notice.audio_url',
      'dial_mode', 'max_abandon_rate', 'abandon_message', 'abandon_message.say', 'abandon_message.audio_url'].includes(param)) return true
    const m = /^(sdrs|closers)\[(\d+)\]\.(name|phone)$/.exec(param)
    return m !== null && Number(m[2]) < d[m[1] as 'sdrs' | 'closers'].length
  }

  async function save(event: Event) {
    event.preventDefault()
    if (!draft) return
    setFailure(null)
    setSaved(null)
    setBusy(true)
    try {
      const reply = await api<{ data: CampaignSettings }>('PATCH', `/orgs/${props.orgId}/campaigns/${props.campaignId}`, bodyOf(draft))
      read.set(reply.data)
      setDraft(draftOf(reply.data))
      setSaved('Settings saved.')
    } catch (e) {
      setFailure({ param: e instanceof ApiFailure ? e.param : null, message: errorText(e) })
    } finally {
      setBusy(false)
    }
  }

  function people(p: { role: 'sdrs' | 'closers'; title: string; one: string }) {
    const list = draft![p.role]
    const set = (i: number, patch: Partial<CampaignPerson>) => change({ [p.role]: list.map((x, j) => (j === i ? { ...x, ...patch } : x)) })
    return (
      <fieldset class="people">
        <legend>{p.title}</legend>
        {list.length === 0 && <p class="empty">None yet.</p>}
        {list.map((person, i) => (
          <div class="person" key={person.id || `new-${i}`}>
            <label>Name
              <input value={person.name} onInput={(e) => set(i, { name: e.currentTarget.value })} {...fieldProps(`${p.role}[${i}].name`)} />
              {fieldError(`${p.role}[${i}].name`)}
            </label>
            <label>Phone
              <input type="tel" value={person.phone ?? ''} placeholder="+13125550150" onInput={(e) => set(i, { phone: e.currentTarget.value.trim() || undefined })} {...fieldProps(`${p.role}[${i}].phone`)} />
              {fieldError(`${p.role}[${i}].phone`)}
            </label>
            <button type="button" class="secondary" onClick={() => change({ [p.role]: list.filter((_, j) => j !== i) })} aria-label={`Remove ${person.name || `${p.one} ${i + 1}`}`}>Remove</button>
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => change({ [p.role]: [...list, { id: '', name: '' }] })}>Add {p.one === 'SDR' ? 'an SDR' : `a ${p.one}`}</button>
      </fieldset>
    )
  }

  return (
    <section aria-labelledby="settings-title">
      <p><a href={`/console/campaigns?org=${props.orgId}`} onClick={onLinkClick}>← All campaigns</a></p>
      <Alert text={read.error} />
      <Loaded state={read}>{(campaign) => !draft ? null : (
        <form class="settings" onSubmit={save} noValidate>
          <h1 id="settings-title">{campaign.name}: settings</h1>
          <p class="muted">Status: {campaign.status}. Changes apply to the next calls; calls up now carry on.</p>
          <label>Lines (calls at once)
            <input name="lines" inputMode="numeric" value={draft.lines} onInput={(e) => change({ lines: e.currentTarget.value })} {...fieldProps('lines')} />
            {fieldError('lines')}
          </label>
          <fieldset class="hours">
            <legend>Calling hours (the lead’s local time, within 08:00–21:00)</legend>
            <label>From
              <input type="time" value={draft.start} onInput={(e) => change({ start: e.currentTarget.value })} {...fieldProps('calling_hours.start')} />
              {fieldError('calling_hours.start')}
            </label>
            <label>To
              <input type="time" value={draft.end} onInput={(e) => change({ end: e.currentTarget.value })} {...fieldProps('calling_hours.end')} />
              {fieldError('calling_hours.end')}
            </label>
          </fieldset>
          {people({ role: 'sdrs', title: 'SDRs (phones: where a live carrier rings them)', one: 'SDR' })}
          {people({ role: 'closers', title: 'Closers', one: 'closer' })}
          <fieldset class="voicemail">
            <legend>Voicemail on an answering machine</legend>
            <label>Leave
              <select value={draft.voicemailKind} onChange={(e) => change({ voicemailKind: e.currentTarget.value as VoicemailKind })}>
                <option value="none">nothing</option>
                <option value="say">a message read out</option>
                <option value="audio_url">an audio file (https URL)</option>
              </select>
            </label>
            {draft.voicemailKind !== 'none' && (
              <label>{draft.voicemailKind === 'say' ? 'Message' : 'Audio URL'}
                {draft.voicemailKind === 'say'
                  ? <textarea rows={3} maxLength={1000} value={draft.voicemail} onInput={(e) => change({ voicemail: e.currentTarget.value })} {...fieldProps('voicemail.say')} />
                  : <input type="url" value={draft.voicemail} onInput={(e) => change({ voicemail: e.currentTarget.value })} {...fieldProps('voicemail.audio_url')} />}
                {fieldError(`voicemail.${draft.voicemailKind}`)}
              </label>
            )}
          </fieldset>
          <fieldset class="voicemail">
            <legend>Recording notice (where a state of the lead requires every party's consent)</legend>
            <label>Before recording, play
              <select value={draft.noticeKind} onChange={(e) => change({ noticeKind: e.currentTarget.value as VoicemailKind })}>
                <option value="none">the default: “This call may be recorded.”</option>
                <option value="say">a message read out</option>
                <option value="audio_url">an audio file (https URL)</option>
              </select>
            </label>
            {draft.noticeKind !== 'none' && (
              <label>{draft.noticeKind === 'say' ? 'Notice' : 'Notice audio URL'}
                {draft.noticeKind === 'say'
                  ? <textarea rows={2} maxLength={1000} value={draft.notice} onInput={(e) => change({ notice: e.currentTarget.value })} {...fieldProps('recording_notice.say')} />
                  : <input type="url" value={draft.notice} onInput={(e) => change({ notice: e.currentTarget.value })} {...fieldProps('recording_notice.audio_url')} />}
                {fieldError(`recording_notice.${draft.noticeKind}`)}
              </label>
            )}
          </fieldset>
          <fieldset class="voicemail">
            <legend>Dial mode</legend>
            <label>Dial
              <select value={draft.dialMode} onChange={(e) => change({ dialMode: e.currentTarget.value as DialMode })} {...fieldProps('dial_mode')}>
                <option value="bridge">bridge (people rung at the answer)</option>
                <option value="power">power (one line per seat)</option>
                <option value="predictive">predictive (paced lines per seat)</option>
              </select>
              {fieldError('dial_mode')}
            </label>
            <label>Most abandoned calls over 30 days (%, above 0, at most 3)
              <input inputMode="decimal" value={draft.maxAbandonPercent} onInput={(e) => change({ maxAbandonPercent: e.currentTarget.value })} {...fieldProps('max_abandon_rate')} />
              {fieldError('max_abandon_rate')}
            </label>
            <label>When no seat can take a person who answers, play (power and predictive need one)
              <select value={draft.abandonKind} onChange={(e) => change({ abandonKind: e.currentTarget.value as VoicemailKind })} {...fieldProps('abandon_message')}>
                <option value="none">nothing set</option>
                <option value="say">a message read out</option>
                <option value="audio_url">an audio file (https URL)</option>
              </select>
              {fieldError('abandon_message')}
            </label>
            {draft.abandonKind !== 'none' && (
              <label>{draft.abandonKind === 'say' ? 'Message (the seller, a number to call back)' : 'Message audio URL'}
                {draft.abandonKind === 'say'
                  ? <textarea rows={2} maxLength={500} value={draft.abandon} onInput={(e) => change({ abandon: e.currentTarget.value })} {...fieldProps('abandon_message.say')} />
                  : <input type="url" value={draft.abandon} onInput={(e) => change({ abandon: e.currentTarget.value })} {...fieldProps('abandon_message.audio_url')} />}
                {fieldError(`abandon_message.${draft.abandonKind}`)}
              </label>
            )}
          </fieldset>
          <fieldset class="ai-seat">
            <legend>AI seat (set by the operator: dialer admin campaign update --ai-agent)</legend>
            {campaign.ai_agent === null
              ? <p class="muted">None: people take every call a person answers.</p>
              : (
                <dl class="facts">
                  <dt>Agent</dt><dd>{campaign.ai_agent.kind === 'openai_realtime' ? `OpenAI Realtime: ${campaign.ai_agent.model}, voice ${campaign.ai_agent.voice} (${campaign.ai_agent.url})` : campaign.ai_agent.url}</dd>
                  <dt>Disclosure</dt><dd>{'say' in campaign.ai_agent.disclosure ? `“${campaign.ai_agent.disclosure.say}”` : campaign.ai_agent.disclosure.audio_url}</dd>
                  <dt>First audio due</dt><dd>{`within ${campaign.ai_agent.first_audio_ms} ms`}</dd>
                  {campaign.ai_agent.kind === 'stream' && <><dt>Parameters</dt><dd>{campaign.ai_agent.parameter_names.length === 0 ? 'none' : campaign.ai_agent.parameter_names.join(', ')}</dd></>}
                </dl>
              )}
          </fieldset>
          {failure && !known(failure.param, draft) && <p class="error" role="alert">{failure.message}</p>}
          {saved && <p role="status" class="ok">{saved}</p>}
          <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save settings'}</button>
        </form>
      )}</Loaded>
    </section>
  )
}
