package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/link"
)

// Links: typed links between items (backend/link), stored by the items'
// URIs in the links table (migrations/0060_links.sql). Backlinks are read
// through the target index, never stored twice; nothing cascades, so a link
// outlives the items it names.

// ErrLinkExists is returned (wrapped) by PutLink when a link with the same
// id is already stored.
var ErrLinkExists = errors.New("store: the link is already in the library")

// linkColumns is what scanLink reads, in order.
const linkColumns = `id, source_uri, target_uri, type, note, created_by, created_at`

// scanLink reads one row of linkColumns. A row that does not parse (written
// by hand, or by a newer Rhizome) is an error naming the link and the field.
func scanLink(r scanner) (link.Link, error) {
	var l link.Link
	var source, target, typ, by, created string
	if err := r.Scan(&l.ID, &source, &target, &typ, &l.Note, &by, &created); err != nil {
		return link.Link{}, err
	}
	var err error
	if l.Source, err = link.Parse(source); err != nil {
		return link.Link{}, fmt.Errorf("link %s: field source: %w", l.ID, err)
	}
	if l.Target, err = link.Parse(target); err != nil {
		return link.Link{}, fmt.Errorf("link %s: field target: %w", l.ID, err)
	}
	l.Type, l.CreatedBy = link.Relation(typ), link.CreatedBy(by)
	if l.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
		return link.Link{}, fmt.Errorf("link %s: field created_at %q: %w", l.ID, created, err)
	}
	return l, nil
}

// insertLink writes l in q; orIgnore leaves a link already stored under l's
// id as it is.
func insertLink(ctx context.Context, q queryer, l link.Link, orIgnore bool) error {
	verb := `INSERT`
	if orIgnore {
		verb = `INSERT OR IGNORE`
	}
	_, err := q.ExecContext(ctx, verb+` INTO links (`+linkColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.Source.String(), l.Target.String(), string(l.Type), l.Note, string(l.CreatedBy), isoTime(l.CreatedAt))
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed") {
			return fmt.Errorf("store: unable to save link %s: %w", l.ID, ErrLinkExists)
		}
		return fmt.Errorf("store: unable to save link %s: %w", l.ID, err)
	}
	return nil
}

// PutLink stores the new link l after checking it (link.Link.Validate). The
// error wraps ErrLinkExists when a link with l's id is stored already.
func (s *Store) PutLink(ctx context.Context, l link.Link) error {
	if err := l.Validate(); err != nil {
		return fmt.Errorf("store: unable to save link: %w", err)
	}
	leave, err := s.gate.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	return insertLink(ctx, s.db, l, false)
}

// Link returns the link with id id; the error wraps ErrNotFound when there
// is none.
func (s *Store) Link(ctx context.Context, id string) (link.Link, error) {
	l, err := scanLink(s.db.QueryRowContext(ctx, `SELECT `+linkColumns+` FROM links WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return link.Link{}, fmt.Errorf("store: unable to find link %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return link.Link{}, fmt.Errorf("store: unable to fetch link %s: %w", id, err)
	}
	return l, nil
}

// UpdateLink changes the type and the note of link id (its ends, maker and
// creation time stay) and returns it as stored. The link as changed is
// checked first (link.Link.Validate); the error wraps ErrNotFound when there
// is no such link.
func (s *Store) UpdateLink(ctx context.Context, id string, typ link.Relation, note string, now time.Time) (link.Link, error) {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return link.Link{}, fmt.Errorf("store: unable to begin updating link %s: %w", id, err)
	}
	defer tx.Rollback()
	l, err := scanLink(tx.QueryRowContext(ctx, `SELECT `+linkColumns+` FROM links WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return link.Link{}, fmt.Errorf("store: unable to find link %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return link.Link{}, fmt.Errorf("store: unable to fetch link %s: %w", id, err)
	}
	l.Type, l.Note = typ, strings.TrimSpace(note)
	if err := l.Validate(); err != nil {
		return link.Link{}, fmt.Errorf("store: unable to update link %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE links SET type = ?, note = ?, updated_at = ? WHERE id = ?`,
		string(l.Type), l.Note, isoTime(now), id); err != nil {
		return link.Link{}, fmt.Errorf("store: unable to update link %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return link.Link{}, fmt.Errorf("store: unable to commit link %s: %w", id, err)
	}
	return l, nil
}

// DeleteLink removes link id; the error wraps ErrNotFound when there is no
// such link.
func (s *Store) DeleteLink(ctx context.Context, id string) error {
	res, err := s.execWrite(ctx, `DELETE FROM links WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete link %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: unable to delete link %s: %w", id, ErrNotFound)
	}
	return nil
}

// queryLinks runs a query selecting linkColumns.
func (s *Store) queryLinks(ctx context.Context, what, query string, args ...any) ([]link.Link, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch %s: %w", what, err)
	}
	defer rows.Close()
	out := []link.Link{}
	for rows.Next() {
		l, err := scanLink(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read %s: %w", what, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to fetch %s: %w", what, err)
	}
	return out, nil
}

// LinksFrom returns the links whose source is item (its outgoing links), by
// type, then newest first. One range of the source index.
func (s *Store) LinksFrom(ctx context.Context, item link.Item) ([]link.Link, error) {
	return s.queryLinks(ctx, "the links of "+item.String(), `SELECT `+linkColumns+` FROM links
		WHERE source_uri = ? ORDER BY type, created_at DESC, id`, item.String())
}

// LinksTo returns the links whose target is item (its backlinks), by type,
// then newest first. One range of the target index: a few hundred
// microseconds among 100,000 links (store's BenchmarkBacklinks).
func (s *Store) LinksTo(ctx context.Context, item link.Item) ([]link.Link, error) {
	return s.queryLinks(ctx, "the backlinks of "+item.String(), `SELECT `+linkColumns+` FROM links
		WHERE target_uri = ? ORDER BY type, created_at DESC, id`, item.String())
}

// backlinksScan is LinksTo without the target index, reading every link
// (the unary + keeps SQLite from using an index for the term): the baseline
// of BenchmarkBacklinks.
func (s *Store) backlinksScan(ctx context.Context, item link.Item) ([]link.Link, error) {
	return s.queryLinks(ctx, "the backlinks of "+item.String(), `SELECT `+linkColumns+` FROM links
		WHERE +target_uri = ? ORDER BY type, created_at DESC, id`, item.String())
}

// LinksAmong returns the links whose source and target are both among
// items (the graph's user links between the nodes it shows), by id.
func (s *Store) LinksAmong(ctx context.Context, items []link.Item) ([]link.Link, error) {
	if len(items) == 0 {
		return []link.Link{}, nil
	}
	uris := make([]string, len(items))
	for i, it := range items {
		uris[i] = it.String()
	}
	list, _ := json.Marshal(uris)
	return s.queryLinks(ctx, "the links between items", `WITH set_ AS (SELECT value AS uri FROM json_each(?))
		SELECT `+linkColumns+` FROM links WHERE source_uri IN (SELECT uri FROM set_) AND target_uri IN (SELECT uri FROM set_)
		ORDER BY id`, string(list))
}

// LinksOfLoomTree returns the links from or to loom tree treeID or one of
// its nodes (what travels with the tree's export), by id.
func (s *Store) LinksOfLoomTree(ctx context.Context, treeID string) ([]link.Link, error) {
	tree := link.LoomTree(treeID).String()
	if tree == "" {
		return nil, fmt.Errorf("store: unable to fetch the links of loom tree %q: not a valid tree id", treeID)
	}
	// The tree's nodes are rhizome:loom/<tree>/<node>: the URIs from
	// "<tree>/" up to "<tree>0" ("0" follows "/").
	lo, hi := tree+"/", tree+"0"
	return s.queryLinks(ctx, "the links of loom tree "+treeID, `SELECT `+linkColumns+` FROM links
		WHERE source_uri = ?1 OR (source_uri >= ?2 AND source_uri < ?3) OR target_uri = ?1 OR (target_uri >= ?2 AND target_uri < ?3)
		ORDER BY id`, tree, lo, hi)
}

// HasLinkBetween reports whether a link of any type goes from source to
// target.
func (s *Store) HasLinkBetween(ctx context.Context, source, target link.Item) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM links WHERE source_uri = ? AND target_uri = ?`,
		source.String(), target.String()).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: unable to look up the links from %s to %s: %w", source, target, err)
	}
	return n > 0, nil
}

// CountLinks returns how many links the library holds.
func (s *Store) CountLinks(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM links`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: unable to count links: %w", err)
	}
	return n, nil
}
