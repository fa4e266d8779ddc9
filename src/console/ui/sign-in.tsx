import { useState } from 'preact/hooks'
import { api, errorText, type Me } from './api'

/** Sign-in: an organization's people with email and password; the operator with the admin token. */
export function SignIn(props: { notice: string | null; onSignedIn: (me: Me) => void }) {
  const [operator, setOperator] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  async function submit(event: Event) {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    setBusy(true)
    setError(null)
    try {
      const body = operator
        ? { admin_token: String(form.get('admin_token') ?? '') }
        : { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') }
      const reply = await api<{ data: Me }>('POST', '/session', body)
      props.onSignedIn(reply.data)
    } catch (e) {
      setError(errorText(e, 'Signing in failed; try again.'))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in">
      <h1>Dialer console</h1>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        {operator ? (
          <label>
            Admin token
            <input name="admin_token" type="password" autocomplete="off" required />
          </label>
        ) : (
          <>
            <label>
              Email
              <input name="email" type="email" autocomplete="username" required />
            </label>
            <label>
              Password
              <input name="password" type="password" autocomplete="current-password" required />
            </label>
          </>
        )}
        {error && <p id="sign-in-error" class="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <button type="button" class="link" onClick={() => { setOperator(!operator); setError(null) }}>
        {operator ? 'Sign in with email and password' : 'Operator? Sign in with the admin token'}
      </button>
    </main>
  )
}
