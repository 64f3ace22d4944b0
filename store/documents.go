package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Sessions stored as whole JSON documents (backend/sessiondoc): the
// document as last read, kept whole, and the marks of the entries a later
// version of it dropped. Schema: migrations/0120_session_documents.sql.

// PutSessionDocument keeps b, the whole document the session sessionPK was
// last read from, in place of the one kept before.
func (t *Tx) PutSessionDocument(sessionPK int64, b []byte) error {
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := t.exec(`INSERT INTO session_documents (session_pk, bytes) VALUES (?, ?)
		ON CONFLICT (session_pk) DO UPDATE SET bytes = excluded.bytes`, sessionPK, b); err != nil {
		return fmt.Errorf("store: unable to keep the document of session %d: %w", sessionPK, err)
	}
	return nil
}

// MarkDropped marks (dropped true) the entries of session sessionPK with
// the given seqs as dropped by a later version of their document
// (meta.dropped and meta.rolledBack: kept, no longer in the conversation),
// or unmarks them (false: the document holds them again).
func (t *Tx) MarkDropped(sessionPK int64, seqs []int, dropped bool) error {
	if len(seqs) == 0 {
		return nil
	}
	if err := t.flush(); err != nil {
		return err
	}
	list, err := json.Marshal(seqs)
	if err != nil {
		return fmt.Errorf("store: unable to mark the dropped entries of session %d: %w", sessionPK, err)
	}
	q := `UPDATE entries SET meta = json_set(CASE WHEN meta = '' THEN '{}' ELSE meta END, '$.rolledBack', json('true'), '$.dropped', json('true'))
		WHERE session_pk = ? AND seq IN (SELECT value FROM json_each(?))`
	if !dropped {
		q = `UPDATE entries SET meta = json_remove(meta, '$.rolledBack', '$.dropped')
		WHERE session_pk = ? AND seq IN (SELECT value FROM json_each(?)) AND meta <> ''`
	}
	if _, err := t.exec(q, sessionPK, string(list)); err != nil {
		return fmt.Errorf("store: unable to mark the dropped entries of session %d: %w", sessionPK, err)
	}
	return nil
}

// writeSessionDocument writes the document kept for session sess to w, when
// it has one (ok false otherwise), checked against the size and SHA-256
// recorded at import (ErrExportMismatch).
func writeSessionDocument(ctx context.Context, q queryer, sess *Session, w io.Writer) (n int64, ok bool, err error) {
	var b []byte
	err = q.QueryRowContext(ctx, `SELECT bytes FROM session_documents WHERE session_pk = ?`, sess.PK).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, true, fmt.Errorf("store: unable to read the document of session %s: %w", sess.ID, err)
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != sess.FileBytes || hex.EncodeToString(sum[:]) != sess.FileSHA256 {
		return 0, true, fmt.Errorf("store: session %s: the document kept (%d bytes) is not the one imported (%d bytes): %w",
			sess.ID, len(b), sess.FileBytes, ErrExportMismatch)
	}
	m, err := w.Write(b)
	return int64(m), true, err
}
