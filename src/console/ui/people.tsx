import { useEffect, useState } from 'preact/hooks'
import { api, ApiFailure } from './api'

interface User { id: string; email: string; name: string; role: 'owner' | 'sdr'; disabled: boolean; password?: string }

const message = (e: unknown) => (e instanceof ApiFailure ? e.message : String(e))

/** People (the operator): an organization's console accounts; create one (a password made and shown once), disable, enable. */
export function People(props: { orgId: string }) {
  const [users, setUsers] = useState<User[] | null>(null)
  const [created, setCreated] = useState<User | null>(null)
  const [error, setError] = useState<string | null>(null)
  const load = () => api<{ data: User[] }>('GET', `/orgs/${props.orgId}/users`).then((r) => setUsers(r.data), (e) => setError(message(e)))
  useEffect(() => {
    void load()
  }, [props.orgId])

  async function create(event: Event) {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    setError(null)
    setCreated(null)
    try {
      const reply = await api<{ data: User }>('POST', `/orgs/${props.orgId}/users`, { email: String(data.get('email')), name: String(data.get('name') ?? '') || undefined, role: String(data.get('role')) })
      setCreated(reply.data)
      form.reset()
      await load()
    } catch (e) {
      setError(message(e))
    }
  }

  async function toggle(user: User) {
    setError(null)
    try {
      await api('POST', `/orgs/${props.orgId}/users/${user.id}/${user.disabled ? 'enable' : 'disable'}`)
      await load()
    } catch (e) {
      setError(message(e))
    }
  }

  return (
    <section aria-labelledby="people-title">
      <h1 id="people-title">People</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {created?.password && <p role="status" class="notice-box">Account {created.email} created. Its password, shown this once: <code>{created.password}</code></p>}
      <form class="panel" onSubmit={create} aria-labelledby="new-person-title">
        <h2 id="new-person-title">New account</h2>
        <label>Email <input name="email" type="email" required maxLength={254} /></label>
        <label>Name <input name="name" maxLength={200} /></label>
        <label>Role <select name="role"><option value="sdr">sdr (reads, files outcomes)</option><option value="owner">owner (also keys, webhooks, DNC, campaigns)</option></select></label>
        <button type="submit">Create account</button>
      </form>
      {users === null ? <p>Loading…</p> : users.length === 0 ? <p class="empty">No accounts yet. Create one above, or with <code>dialer admin user create</code>.</p> : (
        <table>
          <caption class="visually-hidden">Console accounts</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} data-user={u.email}>
                <td>{u.name}</td><td>{u.email}</td><td>{u.role}</td><td>{u.disabled ? 'disabled' : 'active'}</td>
                <td><button type="button" onClick={() => toggle(u)} aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.email}`}>{u.disabled ? 'Enable' : 'Disable'}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
