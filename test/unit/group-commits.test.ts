import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase, type DatabaseHandle, type OpenOptions } from '../../src/db/client'
import { commitBreaker } from '../commit-breaker'
import { createHarness, scratchDir } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

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
    const probe = { name: 'probe', holds: '', bound: '', clearedBy: '', gain: '', source: 'database' as const }
    handle.caches.register(probe, () => rollbacks++)
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

describe('afterDurable: what the outside world sees waits for the real COMMIT', () => {
  test('an effect of a grouped unit of work runs only after the group commits, and the rows are durable by then', async () => {
    const { handle, insert, seenOutside } = setUp()
    const seenByEffect: string[][] = []
    const inProcess: string[] = []
    handle.transaction(() => {
      insert('sent')
      handle.afterCommit(() => inProcess.push('queue'))
      handle.afterDurable(() => seenByEffect.push(seenOutside()))
    })
    // Released: in-process effects ran, the outward one waits for the COMMIT.
    expect(inProcess).toEqual(['queue'])
    expect(seenByEffect).toEqual([])
    handle.transaction(() => insert('later in the turn'))
    expect(seenByEffect).toEqual([])
    await handle.pendingCommit()
    // Another connection saw the rows from inside the effect: it ran after the COMMIT.
    expect(seenByEffect).toEqual([['later in the turn', 'sent']])
  })

  test("dropped when the group's COMMIT fails", async () => {
    const lost: unknown[] = []
    const { handle, insert, seenOutside } = setUp({ onGroupLost: (error) => lost.push(error) })
    const breakCommit = commitBreaker(handle.sqlite)
    handle.flush()
    const ran: string[] = []
    handle.transaction(() => {
      insert('lost')
      handle.afterDurable(() => ran.push('send'))
    })
    // Another unit of work of the same turn makes the group's COMMIT fail.
    handle.transaction(breakCommit)
    await expect(handle.pendingCommit()!).rejects.toThrow('FOREIGN KEY')
    expect(lost).toHaveLength(1)
    expect(ran).toEqual([])
    expect(seenOutside()).toEqual([])
    // The next group works, and its effects run.
    handle.transaction(() => handle.afterDurable(() => ran.push('next')))
    await handle.pendingCommit()
    expect(ran).toEqual(['next'])
  })

  test('dropped when SQLite rolled the group back by itself', async () => {
    const lost: unknown[] = []
    const { handle, insert } = setUp({ onGroupLost: (error) => lost.push(error) })
    const ran: string[] = []
    handle.transaction(() => {
      insert('x')
      handle.afterDurable(() => ran.push('send'))
    })
    const commit = handle.pendingCommit()!
    handle.sqlite.run('ROLLBACK')
    await expect(commit).rejects.toThrow('rolled the group back')
    expect(lost).toHaveLength(1)
    expect(ran).toEqual([])
  })

  test('dropped when its savepoint rolls back, nested or outermost; the rest of the group still runs', async () => {
    const { handle, insert, seenOutside } = setUp()
    const ran: string[] = []
    expect(() =>
      handle.transaction(() => {
        insert('refused')
        handle.afterDurable(() => ran.push('outermost, rolled back'))
        throw new Error('refused')
      }),
    ).toThrow('refused')
    handle.transaction(() => {
      insert('kept')
      handle.afterDurable(() => ran.push('kept'))
      try {
        handle.transaction(() => {
          handle.afterDurable(() => ran.push('nested, rolled back'))
          handle.afterCommit(() => ran.push('nested in-process, rolled back'))
          throw new Error('inner')
        })
      } catch {
        // the outer unit of work goes on without the inner one
      }
      handle.afterDurable(() => ran.push('after the inner one'))
    })
    await handle.pendingCommit()
    expect(seenOutside()).toEqual(['kept'])
    expect(ran).toEqual(['kept', 'after the inner one'])
  })

  test('standalone and ungrouped units of work run their effects right after their own COMMIT', () => {
    for (const groupCommits of [true, false]) {
      const { handle, insert, seenOutside } = setUp({ groupCommits })
      const seen: string[][] = []
      const done = handle.standalone(() => {
        insert('alone')
        handle.transaction(() => handle.afterDurable(() => seen.push(seenOutside())))
        expect(seen).toEqual([])
        return 'done'
      })
      expect(done).toBe('done')
      expect(seen).toEqual([['alone']])
      handle.transaction(() => {
        insert('plain')
        handle.afterDurable(() => seen.push(seenOutside()))
      })
      if (groupCommits) handle.flush()
      expect(seen).toEqual([['alone'], ['alone', 'plain']])
    }
  })

  test('registered outside a transaction: waits for an open group, else runs at once', async () => {
    const { handle, insert } = setUp()
    const ran: string[] = []
    handle.afterDurable(() => ran.push('nothing open'))
    expect(ran).toEqual(['nothing open'])
    handle.transaction(() => insert('open'))
    handle.afterDurable(() => ran.push('after the open group'))
    expect(ran).toEqual(['nothing open'])
    await handle.pendingCommit()
    expect(ran).toEqual(['nothing open', 'after the open group'])
  })

  test('an effect that throws does not stop the others, and the commit stands', async () => {
    const { handle, insert, seenOutside } = setUp()
    const ran: string[] = []
    handle.transaction(() => {
      insert('committed')
      handle.afterDurable(() => {
        throw new Error('carrier down')
      })
      handle.afterDurable(() => ran.push('second'))
    })
    await handle.pendingCommit()
    expect(ran).toEqual(['second'])
    expect(seenOutside()).toEqual(['committed'])
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
