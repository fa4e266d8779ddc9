import { useRef, useState } from 'preact/hooks'
import type { RecordingLink } from '../model'

/**
 * The call's recording through its 5-minute signed link. A link that does not play (it expired
 * while the page stayed open) is fetched again once and played from where it stopped; when that
 * fails too, the page says so, with a button to try again.
 */
export function Recording(props: { link: RecordingLink; reload: () => Promise<void> }) {
  const audio = useRef<HTMLAudioElement>(null)
  const [state, setState] = useState<'ok' | 'renewing' | 'renewed' | 'failed'>('ok')

  function failed() {
    // One renewal per failure: a fresh link that fails is not a stale one. After the message,
    // only the button tries again.
    if (state === 'renewing' || state === 'failed') return
    if (state === 'renewed') return setState('failed')
    // With preload="none" nothing is fetched before play is pressed: an error means play was asked for.
    void renew(audio.current?.currentTime ?? 0)
  }

  async function renew(at: number) {
    setState('renewing')
    await props.reload()
    await new Promise((done) => setTimeout(done, 0)) // the new link drawn first
    const el = audio.current
    if (!el) return
    setState('renewed')
    el.load() // the new link (or, if the call could not be read again, the same one once more)
    if (at > 0) el.currentTime = at
    el.play().catch(() => {})
  }

  return (
    <div class="recording">
      <audio ref={audio} controls preload="none" src={props.link.url} aria-label="Call recording" onError={failed} onPlaying={() => setState('ok')} />
      {state === 'renewing' && <p class="notice" role="status">The recording link had expired; getting a new one…</p>}
      {state === 'failed' && (
        <p class="error" role="alert">
          The recording cannot be played: its link expired or the service cannot be reached.{' '}
          <button type="button" onClick={() => renew(0)}>Reload the recording</button>
        </p>
      )}
    </div>
  )
}
