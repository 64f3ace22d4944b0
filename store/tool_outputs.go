package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// ToolOutput is a tool output a Claude Code session keeps in a file of its
// own (<session>/tool-results/<name>): the tool result entry Seq of the
// session names it by RecordedPath and holds a preview only. Content is the
// file's bytes, nil when it was not read: Absent says why ("not found
// beside the session when imported", "larger than 32 MiB"). Bytes is its
// size either way (0 when not found). See migrations/0110_tool_outputs.sql.
type ToolOutput struct {
	Seq          int
	Name         string
	RecordedPath string
	Bytes        int64
	SHA256       string // hex, of Content; "" when not read
	Content      []byte
	Absent       string
}

// PutToolOutput stores o for the entry o.Seq of session sessionPK (written
// before it in the transaction), replacing what the entry had under the same
// name. The entries written so far are flushed first: the output goes with
// its entry (deleted with it).
func (t *Tx) PutToolOutput(sessionPK int64, o ToolOutput) error {
	if err := t.flush(); err != nil {
		return err
	}
	var content any
	if o.Content != nil {
		sum := sha256.Sum256(o.Content)
		o.SHA256, content = hex.EncodeToString(sum[:]), o.Content
	}
	if _, err := t.exec(`INSERT INTO tool_outputs (session_pk, seq, name, recorded_path, bytes, sha256, content, absent)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, seq, name) DO UPDATE SET recorded_path = excluded.recorded_path, bytes = excluded.bytes,
			sha256 = excluded.sha256, content = excluded.content, absent = excluded.absent`,
		sessionPK, o.Seq, o.Name, o.RecordedPath, o.Bytes, o.SHA256, content, o.Absent); err != nil {
		return fmt.Errorf("store: unable to save tool output %s of entry %d: %w", o.Name, o.Seq, err)
	}
	return nil
}

// ToolOutputsOf returns the tool outputs of the entries fromSeq..toSeq
// (inclusive) of session sessionPK by entry seq, in name order, without
// their content.
func (s *Store) ToolOutputsOf(ctx context.Context, sessionPK int64, fromSeq, toSeq int) (map[int][]ToolOutput, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, name, recorded_path, bytes, sha256, absent FROM tool_outputs
		WHERE session_pk = ? AND seq BETWEEN ? AND ? ORDER BY seq, name`, sessionPK, fromSeq, toSeq)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the tool outputs of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	out := map[int][]ToolOutput{}
	for rows.Next() {
		var o ToolOutput
		if err := rows.Scan(&o.Seq, &o.Name, &o.RecordedPath, &o.Bytes, &o.SHA256, &o.Absent); err != nil {
			return nil, fmt.Errorf("store: unable to list the tool outputs of session %d: %w", sessionPK, err)
		}
		out[o.Seq] = append(out[o.Seq], o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the tool outputs of session %d: %w", sessionPK, err)
	}
	return out, nil
}

// ToolOutputOf returns the tool output name of the entry entryID of the
// session with id sessionID, with its content. The error wraps ErrNotFound
// when the library holds no such output.
func (s *Store) ToolOutputOf(ctx context.Context, sessionID, entryID, name string) (ToolOutput, error) {
	var o ToolOutput
	var content []byte
	err := s.db.QueryRowContext(ctx, `SELECT o.seq, o.name, o.recorded_path, o.bytes, o.sha256, o.content, o.absent
		FROM sessions s JOIN entries e ON e.session_pk = s.pk
		JOIN tool_outputs o ON o.session_pk = e.session_pk AND o.seq = e.seq
		WHERE s.id = ? AND e.entry_id = ? AND o.name = ? ORDER BY e.seq LIMIT 1`, sessionID, entryID, name).
		Scan(&o.Seq, &o.Name, &o.RecordedPath, &o.Bytes, &o.SHA256, &content, &o.Absent)
	if errors.Is(err, sql.ErrNoRows) {
		return ToolOutput{}, fmt.Errorf("store: no tool output %s of entry %s of session %s: %w", name, entryID, sessionID, ErrNotFound)
	}
	if err != nil {
		return ToolOutput{}, fmt.Errorf("store: unable to read tool output %s of entry %s of session %s: %w", name, entryID, sessionID, err)
	}
	o.Content = content
	return o, nil
}

// EachToolOutput calls fn with every tool output of session sessionPK that
// the library keeps the bytes of, with its content, in entry order, one at
// a time; an error from fn stops it and is returned.
func (s *Store) EachToolOutput(ctx context.Context, sessionPK int64, fn func(ToolOutput) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT pk FROM tool_outputs WHERE session_pk = ? AND content IS NOT NULL ORDER BY seq, name`, sessionPK)
	if err != nil {
		return fmt.Errorf("store: unable to list the tool outputs of session %d: %w", sessionPK, err)
	}
	var pks []int64
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			rows.Close()
			return fmt.Errorf("store: unable to list the tool outputs of session %d: %w", sessionPK, err)
		}
		pks = append(pks, pk)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: unable to list the tool outputs of session %d: %w", sessionPK, err)
	}
	for _, pk := range pks {
		var o ToolOutput
		if err := s.db.QueryRowContext(ctx, `SELECT seq, name, recorded_path, bytes, sha256, content, absent FROM tool_outputs WHERE pk = ?`, pk).
			Scan(&o.Seq, &o.Name, &o.RecordedPath, &o.Bytes, &o.SHA256, &o.Content, &o.Absent); err != nil {
			return fmt.Errorf("store: unable to read a tool output of session %d: %w", sessionPK, err)
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// ToolOutputsUnread reports whether session sessionPK was imported before
// the library kept tool outputs and has tool results that name one
// (migrations/0111_tool_outputs_unread.sql).
func (t *Tx) ToolOutputsUnread(sessionPK int64) (bool, error) {
	var n int
	if err := t.queryRow(`SELECT count(*) FROM tool_outputs_unread WHERE session_pk = ?`, sessionPK).Scan(&n); err != nil {
		return false, fmt.Errorf("store: unable to read whether session %d has tool outputs to read: %w", sessionPK, err)
	}
	return n > 0, nil
}

// PersistedOutputEntries returns the tool result entries of session
// sessionPK whose object names an output saved apart (<persisted-output>),
// in file order.
func (t *Tx) PersistedOutputEntries(sessionPK int64) ([]EntryRecord, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	rows, err := t.query(`SELECT seq, line, entry_id, parent_id, type, role, timestamp, raw, meta FROM entries
		WHERE session_pk = ? AND role = 'toolResult' AND instr(unpack_raw(raw), '<persisted-output>') > 0 ORDER BY seq`, sessionPK)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the tool results of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	var out []EntryRecord
	for rows.Next() {
		var r EntryRecord
		var meta []byte
		if err := rows.Scan(&r.Seq, &r.Line, &r.ID, &r.ParentID, &r.Type, &r.Role, &r.Timestamp, &r.Raw, &meta); err != nil {
			return nil, fmt.Errorf("store: unable to list the tool results of session %d: %w", sessionPK, err)
		}
		var err error
		if r.Raw, err = unpackRaw(r.Raw); err != nil {
			return nil, fmt.Errorf("store: entry %d of session %d: %w", r.Seq, sessionPK, err)
		}
		if len(meta) > 0 {
			r.Meta = meta
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the tool results of session %d: %w", sessionPK, err)
	}
	return out, nil
}

// SetEntryText replaces the searchable text of entry seq of session
// sessionPK (the full-text index follows: entries_fts_update), cut as
// InsertEntry cuts it for role.
func (t *Tx) SetEntryText(sessionPK int64, seq int, role, text string) error {
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := t.exec(`UPDATE entries SET text = ? WHERE session_pk = ? AND seq = ?`, searchText(role, text), sessionPK, seq); err != nil {
		return fmt.Errorf("store: unable to set the text of entry %d of session %d: %w", seq, sessionPK, err)
	}
	return nil
}

// ToolOutputsRead takes session sessionPK off the sessions whose tool
// outputs are still to read (ToolOutputsUnread).
func (t *Tx) ToolOutputsRead(sessionPK int64) error {
	if _, err := t.exec(`DELETE FROM tool_outputs_unread WHERE session_pk = ?`, sessionPK); err != nil {
		return fmt.Errorf("store: unable to mark the tool outputs of session %d read: %w", sessionPK, err)
	}
	return nil
}
