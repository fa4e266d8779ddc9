import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase, type DatabaseHandle, type OpenOptions } from '../../src/db/client'
import { createHarness, scratchDir } from '../harness'

const opened: { handle: DatabaseHandle; reader: Database; remove: () => void }[] = []

/** A file database with grouped commits, its table `t`, and a second connection to look from outside. */
function setUp(options: OpenOptions = {}) {
  const dir = scratchDir('group-commits-')
  const path = join(dir.path, 'db.sqlite')
  const handle = openDatabase(path, { groupCommits: true, ...options })
  handle.sqlite.run('CREATE TABLE t (v TEXT NOT NULL)')
  handle.flush()
  const reader = new Database(path, { readonly: true })
  opened.push({ handle, reader, remove: dir.remove })
  const insert = (v: string) => handle.sqlite.run('INSERT INTO t (v) VALUES (?)', [v])
  const seenOutside = () => reader.query<{ v: string }, []>('SELECT v FROM t ORDER BY v').all().map((r) => r.v)
  return { handle, insert, seenOutside }
}

afterEach(() => {
  for (const { handle, reader, remove } of opened.splice(0)) {
    reader.close()
    handle.close()
    remove()
  }
})

describe('grouped commits', () => {
  test('the units of work of one turn share one commit, made at the end of the turn', async () => {
    const { handle, insert, seenOutside } = setUp()
    handle.transaction(() => insert('a'))
    handle.transaction(() => insert('b'))
    const commit = handle.pendingCommit()
    expect(commit).not.toBeNull()
    // Inside the process the writes are there; outside, nothing until the commit.
    expect(handle.sqlite.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 })
    expect(seenOutside()).toEqual([])
    await commit
    expect(seenOutside()).toEqual(['a', 'b'])
    expect(handle.pendingCommit()).toBeNull()
  })

  test('a unit of work that fails rolls back alone; the rest of its group commits', async () => {
    const { handle, insert, seenOutside } = setUp()
    handle.transaction(() => insert('kept'))
    expect(() =>
      handle.transaction(() => {
        insert('dropped')
        throw new Error('refused')
      }),
    ).toThrow('refused')
    handle.transaction(() => insert('also kept'))
    await handle.pendingCommit()
    expect(seenOutside()).toEqual(['also kept', 'kept'])
  })

  test('effects run when the unit of work is released into the group, so a reply built next sees them', () => {
    const { handle, insert } = setUp()
    const effects: string[] = []
    handle.transaction(() => {
      insert('x')
      handle.afterCommit(() => effects.push('queued x'))
      handle.transaction(() => handle.afterCommit(() => effects.push('nested')))
      expect(effects).toEqual([])
    })
    expect(effects).toEqual(['queued x', 'nested'])
    expect(handle.pendingCommit()).not.toBeNull()
  })

  test('flush commits the open group at once', () => {
    const { handle, insert, seenOutside } = setUp()
    handle.transaction(() => insert('now'))
    handle.flush()
    expect(seenOutside()).toEqual(['now'])
    expect(handle.pendingCommit()).toBeNull()
  })

  test('a group SQLite rolled back by itself is reported, its waiters told, caches dropped', async () => {
    const lost: unknown[] = []
    const { handle, insert, seenOutside } = setUp({ onGroupLost: (error) => lost.push(error) })
    let rollbacks = 0
    handle.onRollback(() => rollbacks++)
    handle.transaction(() => insert('gone'))
    const commit = handle.pendingCommit()!
    // What SQLITE_FULL or an I/O error does to an open transaction.
    handle.sqlite.run('ROLLBACK')
    await expect(commit).rejects.toThrow('rolled the group back')
    expect(lost).toHaveLength(1)
    expect(rollbacks).toBe(1)
    expect(seenOutside()).toEqual([])
    // The next unit of work starts a fresh group.
    handle.transaction(() => insert('next'))
    await handle.pendingCommit()
    expect(seenOutside()).toEqual(['next'])
  })

  test('a group lost before the next unit of work is reported then, and that work gets a fresh group', async () => {
    const lost: unknown[] = []
    const { handle, insert, seenOutside } = setUp({ onGroupLost: (error) => lost.push(error) })
    handle.transaction(() => insert('gone'))
    const first = handle.pendingCommit()!
    handle.sqlite.run('ROLLBACK')
    handle.transaction(() => insert('kept'))
    await expect(first).rejects.toThrow('rolled the group back')
    expect(lost).toHaveLength(1)
    await handle.pendingCommit()
    expect(seenOutside()).toEqual(['kept'])
  })

  test('a standalone unit of work commits the open group first, then itself, at once', () => {
    const { handle, insert, seenOutside } = setUp()
    handle.transaction(() => insert('grouped'))
    handle.standalone(() => {
      insert('alone')
      // Nested work inside it is a savepoint of it, not a new group.
      handle.transaction(() => insert('alone, nested'))
    })
    expect(seenOutside()).toEqual(['alone', 'alone, nested', 'grouped'])
    expect(handle.pendingCommit()).toBeNull()
    // Inside a unit of work it is just a savepoint of that one.
    handle.transaction(() => handle.standalone(() => insert('inside')))
    expect(seenOutside()).not.toContain('inside')
  })

  test('without grouping each unit of work commits on its own', () => {
    const { handle, insert, seenOutside } = setUp({ groupCommits: false })
    handle.transaction(() => insert('alone'))
    expect(handle.pendingCommit()).toBeNull()
    expect(seenOutside()).toEqual(['alone'])
  })
})

describe('grouped commits through the API', () => {
  test('a 201 for a lead comes only once the lead is committed', async () => {
    const dir = scratchDir('group-commits-api-')
    const path = join(dir.path, 'dialer.db')
    const h = createHarness({ env: { DIALER_DATABASE: path } })
    const reader = new Database(path, { readonly: true })
    try {
      const org = (await h.admin('POST', '/orgs', { name: 'Acme' })).body.data
      const campaign = (await h.admin('POST', `/orgs/${org.id}/campaigns`, { name: 'C', status: 'active', sdrs: [{ name: 'S' }] })).body.data
      const key = await h.createKey(org.id, { name: 'k', mode: 'live' })
      const replies = await Promise.all(
        ['+12125551242', '+12125551243', '+12125551244'].map((phone) => h.api('POST', '/leads', { key, body: { campaign_id: campaign.id, phone } })),
      )
      for (const reply of replies) {
        expect(reply.status).toBe(201)
        // Read from another connection as soon as the reply exists.
        expect(reader.query('SELECT id FROM leads WHERE id = ?').all(reply.body.data.id)).toEqual([{ id: reply.body.data.id }])
      }
    } finally {
      reader.close()
      h.close()
      dir.remove()
    }
  })
})
