import type { Database } from 'bun:sqlite'

/**
 * Makes a real COMMIT fail: `breakCommit()`, called inside a transaction, leaves a deferred
 * foreign key dangling in it, which SQLite checks only at COMMIT (the COMMIT fails and the
 * transaction stays open, as after a failed fsync or a full disk). Two tables of its own, so
 * no service table is touched.
 */
export function commitBreaker(sqlite: Database): () => void {
  sqlite.run('CREATE TABLE IF NOT EXISTS breaker_parent (id INTEGER PRIMARY KEY)')
  sqlite.run('CREATE TABLE IF NOT EXISTS breaker_child (parent INTEGER NOT NULL REFERENCES breaker_parent (id))')
  return () => {
    if (!sqlite.inTransaction) throw new Error('breakCommit() must run inside the transaction whose commit is to fail')
    sqlite.run('PRAGMA defer_foreign_keys = ON')
    sqlite.run('INSERT INTO breaker_child (parent) VALUES (404)')
  }
}
