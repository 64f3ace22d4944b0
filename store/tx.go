package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

// Tx is one write transaction, typically the import of one session file:
// all it wrote is kept by Commit or dropped by Rollback, nothing in between.
// It runs on one connection, with its statements prepared once. A Tx is not
// safe for concurrent use.
type Tx struct {
	s    *Store
	ctx  context.Context
	conn *sql.Conn
	tx   *sql.Tx

	entries *entryWriter         // prepared entry inserts, batched
	stmts   map[string]*sql.Stmt // the stmtCache's statements bound to tx
	sp      *savepoint           // the open savepoint, nil when none
	done    bool
}

// Begin starts a write transaction (BEGIN IMMEDIATE: it waits, in turn with
// the library's other writers and up to busyTimeout, for the write lock; see
// writeGate) on a connection of its own. When ctx is done the transaction is
// rolled back: the statement running then completes, the following ones
// fail. Its commit does not checkpoint the write-ahead log: after large
// transactions the Store's checkpointer does, beside the next transaction,
// and once the transactions have written walResetBytes, Begin copies the
// rest and truncates the log before it begins, so that the log stays
// bounded through a long import.
func (s *Store) Begin(ctx context.Context) (*Tx, error) {
	return s.begin(ctx, ctx)
}

// BeginBatch is Begin for a transaction that holds several parts, each
// between Savepoint and Release or RollbackTo (an import's batch of files):
// ctx bounds only the wait for the write lock at the gate. Once begun, the
// transaction lives until Commit or Rollback whatever becomes of ctx, so
// that an import cancelled in the middle of a batch rolls back the part in
// progress and still commits the parts it finished.
func (s *Store) BeginBatch(ctx context.Context) (*Tx, error) {
	return s.begin(ctx, context.WithoutCancel(ctx))
}

// begin waits at the gate under ctx and begins the transaction under txCtx
// (database/sql rolls it back when txCtx is done).
func (s *Store) begin(ctx, txCtx context.Context) (*Tx, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: unable to begin a transaction on %s: %w", s.path, err)
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
		conn.Close()
		return nil, fmt.Errorf("store: unable to begin a transaction on %s: %w", s.path, err)
	}
	s.truncateLogIfDue(ctx, conn)
	leave, err := s.gate.enter(ctx)
	if err != nil {
		release(conn)
		return nil, err
	}
	tx, err := conn.BeginTx(txCtx, nil)
	leave()
	if err != nil {
		release(conn)
		return nil, fmt.Errorf("store: unable to begin a transaction on %s: %w", s.path, err)
	}
	// database/sql rolls the transaction back when ctx is done; its
	// statements run without ctx, as with one the driver would watch each of
	// them from a goroutine of its own and call back into Go every 1000
	// SQLite instructions, a tenth of an import's time.
	return &Tx{s: s, ctx: context.WithoutCancel(ctx), conn: conn, tx: tx}, nil
}

// savepointName names the one savepoint a Tx holds at a time.
const savepointName = "part"

// savepoint is what a Tx restores when it rolls back to its savepoint: the
// entry writer as it was (nil: it did not exist yet).
type savepoint struct {
	entries *entryWriter
	state   entryWriter
}

// Savepoint begins a part of the transaction (SQL SAVEPOINT) that Release
// keeps and RollbackTo drops, the rest of the transaction untouched: an
// import writes each file of a batch as one part, so that a file that fails
// leaves the library as it was for that file while the files before it in
// the batch are committed. A Tx holds one savepoint at a time.
func (t *Tx) Savepoint() error {
	if t.sp != nil {
		return errors.New("store: unable to begin a savepoint: one is already open")
	}
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := t.exec(`SAVEPOINT ` + savepointName); err != nil {
		return fmt.Errorf("store: unable to begin a savepoint: %w", err)
	}
	t.sp = &savepoint{entries: t.entries}
	if t.entries != nil {
		t.sp.state = *t.entries
	}
	return nil
}

// Release keeps what was written since Savepoint, in the transaction.
func (t *Tx) Release() error {
	if t.sp == nil {
		return errors.New("store: unable to release the savepoint: none is open")
	}
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := t.exec(`RELEASE ` + savepointName); err != nil {
		return fmt.Errorf("store: unable to release the savepoint: %w", err)
	}
	t.sp = nil
	return nil
}

// RollbackTo drops what was written since Savepoint, entries batched in
// memory included, and keeps the transaction open with what it held
// before.
func (t *Tx) RollbackTo() error {
	sp := t.sp
	if sp == nil {
		return errors.New("store: unable to roll back to the savepoint: none is open")
	}
	t.sp = nil
	if t.entries != nil {
		clear(t.entries.args)
	}
	t.entries = sp.entries
	if sp.entries != nil {
		state := sp.state
		state.args = sp.entries.args[:0]
		*sp.entries = state
	}
	if _, err := t.exec(`ROLLBACK TO ` + savepointName); err != nil {
		return fmt.Errorf("store: unable to roll back to the savepoint: %w", err)
	}
	if _, err := t.exec(`RELEASE ` + savepointName); err != nil {
		return fmt.Errorf("store: unable to roll back to the savepoint: %w", err)
	}
	return nil
}

// release gives a transaction's connection back to the pool, with SQLite's
// automatic checkpoint on again.
func release(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, autoCheckpointPages)); err != nil {
		// Do not pool a connection left without automatic checkpoints.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
}

// Commit indexes the entries inserted for full-text search and writes
// everything the transaction did, at once.
func (t *Tx) Commit() error {
	if err := t.flush(); err != nil {
		t.Rollback()
		return err
	}
	if t.entries != nil {
		if err := t.entries.index(); err != nil {
			t.Rollback()
			return err
		}
	}
	var logged int64
	if t.entries != nil {
		logged = t.entries.bytes
	}
	t.closeStatements()
	t.done = true
	err := t.tx.Commit()
	release(t.conn)
	if err != nil {
		return fmt.Errorf("store: unable to commit: %w", err)
	}
	t.s.committed(logged)
	return nil
}

// Rollback drops everything the transaction did. It does nothing after
// Commit or a previous Rollback, so it can be deferred.
func (t *Tx) Rollback() error {
	if t.done {
		return nil
	}
	t.done = true
	t.closeStatements()
	err := t.tx.Rollback()
	release(t.conn)
	if err != nil {
		return fmt.Errorf("store: unable to roll back: %w", err)
	}
	return nil
}

// flush writes what is batched in memory, before a query that must see it.
func (t *Tx) flush() error {
	if t.entries != nil {
		return t.entries.flush()
	}
	return nil
}

// closeStatements forgets the transaction's statements (database/sql
// closes the ones bound to tx when it ends; the Store's stay prepared).
func (t *Tx) closeStatements() {
	t.entries = nil
	t.stmts = nil
	t.sp = nil
}
