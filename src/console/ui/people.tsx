import { useState } from 'preact/hooks'
import type { User } from '../model'
import { api, errorText } from './api'
import { Alert, Loaded } from './parts'
import { useApi } from './use-api'

/** People (the operator): an organization's console accounts; create one (a password made and shown once), disable, enable. */
export function People(props: { orgId: string }) {
  const users = useApi<User[]>(`/orgs/${props.orgId}/users`)
  const [created, setCreated] = useState<User | null>(null)
  const [error, setError] = useState<string | null>(null)

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
      await users.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  async function toggle(user: User) {
    setError(null)
    try {
      await api('POST', `/orgs/${props.orgId}/users/${user.id}/${user.disabled ? 'enable' : 'disable'}`)
      await users.reload()
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <section aria-labelledby="people-title">
      <h1 id="people-title">People</h1>
      <Alert text={error ?? users.error} />
      {created?.password && <p role="status" class="notice-box">Account {created.email} created. Its password, shown this once: <code>{created.password}</code></p>}
      <form class="panel" onSubmit={create} aria-labelledby="new-person-title">
        <h2 id="new-person-title">New account</h2>
        <label>Email <input name="email" type="email" required maxLength={254} /></label>
        <label>Name <input name="name" maxLength={200} /></label>
        <label>Role <select name="role"><option value="sdr">sdr (reads, files outcomes)</option><option value="owner">owner (also keys, webhooks, DNC, campaigns)</option></select></label>
        <button type="submit">Create account</button>
      </form>
      <Loaded state={users}>{(list) => list.length === 0 ? <p class="empty">No accounts yet. Create one above, or with <code>dialer admin user create</code>.</p> : (
        <table>
          <caption class="visually-hidden">Console accounts</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {list.map((u) => (
              <tr key={u.id} data-user={u.email}>
                <td>{u.name}</td><td>{u.email}</td><td>{u.role}</td><td>{u.disabled ? 'disabled' : 'active'}</td>
                <td><button type="button" onClick={() => toggle(u)} aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.email}`}>{u.disabled ? 'Enable' : 'Disable'}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Loaded>
    </section>
  )
}
