package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"rhizome/backend/link"
)

// Notes and review marks: what a person writes about an item, and how they
// mark it (migrations/0060_links.sql). A note is an item itself
// (rhizome:note/<id>); its earlier texts are kept in note_versions.

// Note is a person's markdown note on an item.
type Note struct {
	ID        string    // ULID: the note's own item is link.Note(ID)
	Item      link.Item // the item it is about
	Markdown  string
	CreatedAt time.Time
	UpdatedAt time.Time
	Versions  int // earlier texts kept (0 for a note never rewritten)
}

// Review marks a person can set on an item.
const (
	MarkStarred   = "starred"
	MarkToRevisit = "to-revisit"
	MarkDone      = "done"
)

// ValidMark reports whether m is one of the review marks.
func ValidMark(m string) bool { return m == MarkStarred || m == MarkToRevisit || m == MarkDone }

const noteColumns = `n.id, n.item_uri, n.markdown, n.created_at, n.updated_at,
	(SELECT count(*) FROM note_versions v WHERE v.note_id = n.id)`

func scanNote(r scanner) (Note, error) {
	var n Note
	var item, created, updated string
	if err := r.Scan(&n.ID, &item, &n.Markdown, &created, &updated, &n.Versions); err != nil {
		return Note{}, err
	}
	var err error
	if n.Item, err = link.Parse(item); err != nil {
		return Note{}, fmt.Errorf("note %s: field item_uri: %w", n.ID, err)
	}
	if n.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
		return Note{}, fmt.Errorf("note %s: field created_at %q: %w", n.ID, created, err)
	}
	if n.UpdatedAt, err = time.Parse(time.RFC3339Nano, updated); err != nil {
		return Note{}, fmt.Errorf("note %s: field updated_at %q: %w", n.ID, updated, err)
	}
	return n, nil
}

func (s *Store) noteWhere(ctx context.Context, what, where string, arg any) (Note, error) {
	n, err := scanNote(s.db.QueryRowContext(ctx, `SELECT `+noteColumns+` FROM notes n WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Note{}, fmt.Errorf("store: unable to find the note %s: %w", what, ErrNotFound)
	}
	if err != nil {
		return Note{}, fmt.Errorf("store: unable to fetch the note %s: %w", what, err)
	}
	return n, nil
}

// NoteOn returns the note on item; the error wraps ErrNotFound when the item
// has none.
func (s *Store) NoteOn(ctx context.Context, item link.Item) (Note, error) {
	return s.noteWhere(ctx, "on "+item.String(), `n.item_uri = ?`, item.String())
}

// NoteByID returns note id; the error wraps ErrNotFound when there is none.
func (s *Store) NoteByID(ctx context.Context, id string) (Note, error) {
	return s.noteWhere(ctx, id, `n.id = ?`, id)
}

// PutNote writes markdown as the note on item: a new note with id newID
// when the item has none, else the note's new text, its previous text kept
// as a version (an unchanged text writes nothing). It returns the note as
// stored. The markdown is checked (link.ValidateNote); item must be valid.
func (s *Store) PutNote(ctx context.Context, item link.Item, markdown, newID string, now time.Time) (Note, error) {
	if err := item.Validate(); err != nil {
		return Note{}, fmt.Errorf("store: unable to save a note: %w", err)
	}
	if err := link.ValidateNote(markdown); err != nil {
		return Note{}, fmt.Errorf("store: unable to save the note on %s: %w", item, err)
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return Note{}, fmt.Errorf("store: unable to begin saving the note on %s: %w", item, err)
	}
	defer tx.Rollback()
	var id, old, updated string
	err = tx.QueryRowContext(ctx, `SELECT id, markdown, updated_at FROM notes WHERE item_uri = ?`, item.String()).Scan(&id, &old, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO notes (id, item_uri, markdown, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			newID, item.String(), markdown, isoTime(now), isoTime(now)); err != nil {
			return Note{}, fmt.Errorf("store: unable to save the note on %s: %w", item, err)
		}
	case err != nil:
		return Note{}, fmt.Errorf("store: unable to fetch the note on %s: %w", item, err)
	case old != markdown:
		if _, err := tx.ExecContext(ctx, `INSERT INTO note_versions (note_id, version, markdown, written_at)
			VALUES (?, (SELECT coalesce(max(version), 0) + 1 FROM note_versions WHERE note_id = ?), ?, ?)`, id, id, old, updated); err != nil {
			return Note{}, fmt.Errorf("store: unable to keep the previous text of note %s: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE notes SET markdown = ?, updated_at = ? WHERE id = ?`, markdown, isoTime(now), id); err != nil {
			return Note{}, fmt.Errorf("store: unable to save note %s: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Note{}, fmt.Errorf("store: unable to commit the note on %s: %w", item, err)
	}
	return s.NoteOn(ctx, item)
}

// DeleteNote removes the note on item with its versions; the error wraps
// ErrNotFound when the item has none. Links from or to the note stay (they
// show as broken).
func (s *Store) DeleteNote(ctx context.Context, item link.Item) error {
	res, err := s.execWrite(ctx, `DELETE FROM notes WHERE item_uri = ?`, item.String())
	if err != nil {
		return fmt.Errorf("store: unable to delete the note on %s: %w", item, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: unable to delete the note on %s: %w", item, ErrNotFound)
	}
	return nil
}

// SetMark sets (on) or clears review mark on item. An unknown mark is an
// error.
func (s *Store) SetMark(ctx context.Context, item link.Item, mark string, on bool, now time.Time) error {
	if !ValidMark(mark) {
		return fmt.Errorf("store: unable to mark %s: unknown mark %q (want starred, to-revisit or done)", item, mark)
	}
	if err := item.Validate(); err != nil {
		return fmt.Errorf("store: unable to mark an item: %w", err)
	}
	var err error
	if on {
		_, err = s.execWrite(ctx, `INSERT OR IGNORE INTO review_marks (item_uri, mark, created_at) VALUES (?, ?, ?)`,
			item.String(), mark, isoTime(now))
	} else {
		_, err = s.execWrite(ctx, `DELETE FROM review_marks WHERE item_uri = ? AND mark = ?`, item.String(), mark)
	}
	if err != nil {
		return fmt.Errorf("store: unable to set mark %s on %s: %w", mark, item, err)
	}
	return nil
}

// Marks returns the review marks set on item, in the order starred,
// to-revisit, done.
func (s *Store) Marks(ctx context.Context, item link.Item) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT mark FROM review_marks WHERE item_uri = ?
		ORDER BY CASE mark WHEN 'starred' THEN 0 WHEN 'to-revisit' THEN 1 ELSE 2 END`, item.String())
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch the marks of %s: %w", item, err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, fmt.Errorf("store: unable to read a mark of %s: %w", item, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
