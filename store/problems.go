package store

import (
	"context"
	"fmt"
)

// Problem is a line of a session file that could not be imported as an
// entry: 1-based line, byte offset and reason.
type Problem struct {
	Line   int
	Offset int64
	Reason string
}

// InsertProblem records a malformed line of the session sessionPK.
func (t *Tx) InsertProblem(sessionPK int64, p Problem) error {
	_, err := t.exec(`INSERT INTO import_problems (session_pk, line, byte_offset, reason) VALUES (?, ?, ?, ?)`,
		sessionPK, p.Line, p.Offset, p.Reason)
	if err != nil {
		return fmt.Errorf("store: unable to record the problem at line %d: %w", p.Line, err)
	}
	return nil
}

// Problems returns the malformed lines of the session sessionPK, in file
// order.
func (t *Tx) Problems(sessionPK int64) ([]Problem, error) {
	return problems(t.ctx, txQueryer{t}, sessionPK)
}

func problems(ctx context.Context, q queryer, sessionPK int64) ([]Problem, error) {
	rows, err := q.QueryContext(ctx, `SELECT line, byte_offset, reason FROM import_problems WHERE session_pk = ? ORDER BY byte_offset, pk`, sessionPK)
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch the problems of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	out := []Problem{}
	for rows.Next() {
		var p Problem
		if err := rows.Scan(&p.Line, &p.Offset, &p.Reason); err != nil {
			return nil, fmt.Errorf("store: unable to read a problem of session %d: %w", sessionPK, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to fetch the problems of session %d: %w", sessionPK, err)
	}
	return out, nil
}
