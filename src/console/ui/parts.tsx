import type { ComponentChildren } from 'preact'
import { localTime } from './format'
import type { ApiState } from './use-api'

/** A time in the organization's zone, the UTC instant on hover. */
export function Time(props: { at: string; zone: string }) {
  const t = localTime(props.at, props.zone)
  return <time dateTime={t.utc} title={`${t.utc} (UTC)`}>{t.text}</time>
}

/** An error worded by errorText, read out at once. */
export function Alert(props: { text: string | null | undefined }) {
  return props.text ? <p class="error" role="alert">{props.text}</p> : null
}

/** What a read shows: "Loading…" until its first answer, then the page drawn from the data (a failed read draws nothing; its Alert says why). */
export function Loaded<T>(props: { state: ApiState<T>; children: (data: T) => ComponentChildren }) {
  if (props.state.data === null) return props.state.loading ? <p>Loading…</p> : null
  return <>{props.children(props.state.data)}</>
}
