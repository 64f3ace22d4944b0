package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps one prepared *sql.Stmt per query text for the life of the
// Store: database/sql prepares it once on each connection that runs it and
// keeps it there, so a query run once per imported file is parsed once per
// connection instead of once per file (parsing was a fifth of the import of
// many small files; see build/bench). Queries whose text is built per call
// must not go through it (they would fill it); the ones here are constants
// or built from a bounded set of fragments.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// get returns the statement for q, prepared once; nil when it could not be
// prepared (the caller then runs q unprepared, which reports the error).
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

// cachedDB is the Store's pool as a queryer whose statements come from its
// stmtCache.
type cachedDB struct{ s *Store }

func (c cachedDB) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := c.s.stmts.get(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.s.db.ExecContext(ctx, q, args...)
}

func (c cachedDB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := c.s.stmts.get(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.s.db.QueryContext(ctx, q, args...)
}

func (c cachedDB) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := c.s.stmts.get(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.s.db.QueryRowContext(ctx, q, args...)
}

// txStmt is q's cached statement bound to the transaction (database/sql
// reuses the one already prepared on the transaction's connection), or nil.
func (t *Tx) txStmt(q string) *sql.Stmt {
	if st, ok := t.stmts[q]; ok {
		return st
	}
	st := t.s.stmts.get(t.ctx, q)
	if st == nil {
		return nil
	}
	st = t.tx.StmtContext(t.ctx, st)
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[q] = st
	return st
}

// txQueryer is a transaction as a queryer whose statements come from the
// Store's stmtCache.
type txQueryer struct{ t *Tx }

func (q txQueryer) ExecContext(_ context.Context, s string, args ...any) (sql.Result, error) {
	return q.t.exec(s, args...)
}

func (q txQueryer) QueryContext(_ context.Context, s string, args ...any) (*sql.Rows, error) {
	return q.t.query(s, args...)
}

func (q txQueryer) QueryRowContext(_ context.Context, s string, args ...any) *sql.Row {
	return q.t.queryRow(s, args...)
}

// query, queryRow and exec run q in the transaction through the Store's
// stmtCache.
func (t *Tx) query(q string, args ...any) (*sql.Rows, error) {
	if st := t.txStmt(q); st != nil {
		return st.QueryContext(t.ctx, args...)
	}
	return t.tx.QueryContext(t.ctx, q, args...)
}

func (t *Tx) queryRow(q string, args ...any) *sql.Row {
	if st := t.txStmt(q); st != nil {
		return st.QueryRowContext(t.ctx, args...)
	}
	return t.tx.QueryRowContext(t.ctx, q, args...)
}

func (t *Tx) exec(q string, args ...any) (sql.Result, error) {
	if st := t.txStmt(q); st != nil {
		return st.ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, q, args...)
}
