package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/knowledge"
)

// Knowledge nodes (backend/knowledge.Item): the current version of each in
// table knowledge, every version in knowledge_versions, the stated
// supersessions in knowledge_supersessions (migrations/0070_knowledge.sql).
// What an item may hold and which supersessions are allowed is
// backend/knowledge's to say; this file stores what it is given.

// ErrKnowledgeConflict is returned (wrapped) when a knowledge version is
// written over a version it did not follow: another writer edited the item
// first.
var ErrKnowledgeConflict = errors.New("store: the knowledge item changed meanwhile")

// KnowledgeFilter narrows ListKnowledge; empty fields do not filter.
type KnowledgeFilter struct {
	Kinds []knowledge.Kind
	// Project keeps the items of that project; with CrossProject, the
	// cross-project items (project "") too. Project "" with CrossProject
	// keeps only the cross-project items; both empty keep every item.
	Project      string
	CrossProject bool
	Statuses     []knowledge.Status
	CreatedBy    []knowledge.CreatedBy // who made version 1
	SessionID    string
	// OpenQuestions keeps only the questions with no answer.
	OpenQuestions bool
	// Query keeps the items whose text holds every word of it (case is
	// ignored).
	Query string
	// Limit caps the items returned (0: no cap), newest first.
	Limit int
}

// knowledgeColumns are read by scanKnowledge.
const knowledgeColumns = `item`

// putKnowledgeRow writes it as the current version of its item and records
// the version.
func putKnowledgeRow(ctx context.Context, q queryer, it knowledge.Item, firstBy knowledge.CreatedBy) error {
	b, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("store: unable to encode knowledge %s: %w", it.ID, err)
	}
	open := 0
	if it.Question != nil && it.Question.Open() {
		open = 1
	}
	_, err = q.ExecContext(ctx, `INSERT INTO knowledge (id, version, kind, project, timestamp, created_at, status,
		confidence, created_by, first_by, session_id, segment_node_id, title, open_question, text, item)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET version = excluded.version, kind = excluded.kind, project = excluded.project,
		timestamp = excluded.timestamp, created_at = excluded.created_at, status = excluded.status,
		confidence = excluded.confidence, created_by = excluded.created_by, session_id = excluded.session_id,
		segment_node_id = excluded.segment_node_id, title = excluded.title, open_question = excluded.open_question,
		text = excluded.text, item = excluded.item`,
		it.ID, it.Version, string(it.Kind), it.Project, isoTime(it.Timestamp), isoTime(it.CreatedAt), string(it.Status),
		it.Confidence, string(it.Source.CreatedBy), string(firstBy), it.Source.SessionID, it.Source.SegmentNodeID,
		it.Title(), open, knowledgeText(b), string(b))
	if err != nil {
		return fmt.Errorf("store: unable to save knowledge %s: %w", it.ID, err)
	}
	_, err = q.ExecContext(ctx, `INSERT INTO knowledge_versions (id, version, created_at, created_by, item)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id, version) DO UPDATE SET created_at = excluded.created_at, created_by = excluded.created_by, item = excluded.item`,
		it.ID, it.Version, isoTime(it.CreatedAt), string(it.Source.CreatedBy), string(b))
	if err != nil {
		return fmt.Errorf("store: unable to save version %d of knowledge %s: %w", it.Version, it.ID, err)
	}
	return nil
}

// knowledgeText is every string of an item's body (its kind's fields, topics,
// project), lower case, one per line: what a knowledge query matches.
func knowledgeText(itemJSON []byte) string {
	var root map[string]any
	if json.Unmarshal(itemJSON, &root) != nil {
		return ""
	}
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case string:
			parts = append(parts, strings.ToLower(x))
		}
	}
	for k, v := range root {
		switch k {
		case "id", "timestamp", "createdAt", "status", "source", "kind", "version", "confidence":
		default:
			walk(v)
		}
	}
	return strings.Join(parts, "\n")
}

// currentKnowledge reads the stored version and first maker of item id; ok
// false when there is none.
func currentKnowledge(ctx context.Context, q queryer, id string) (version int, createdBy, firstBy string, raw string, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT version, created_by, first_by, item FROM knowledge WHERE id = ?`, id).
		Scan(&version, &createdBy, &firstBy, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", "", "", false, nil
	}
	if err != nil {
		return 0, "", "", "", false, fmt.Errorf("store: unable to look up knowledge %s: %w", id, err)
	}
	return version, createdBy, firstBy, raw, true, nil
}

// AddKnowledge stores it, version 1 of a new item. An item with its id
// already stored is an error (ErrKnowledgeConflict).
func (s *Store) AddKnowledge(ctx context.Context, it knowledge.Item) error {
	return s.AddKnowledgeSuperseding(ctx, it, nil, nil)
}

// AddKnowledgeSuperseding stores it, version 1 of a new item, and, when sup
// is not nil, the supersession it states (it is sup.Newer) with older, the
// next version of sup.Older (nil: none), all in one transaction: all of it
// or nothing. See AddKnowledge and Supersede.
func (s *Store) AddKnowledgeSuperseding(ctx context.Context, it knowledge.Item, sup *knowledge.Supersession, older *knowledge.Item) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to save knowledge %s: %w", it.ID, err)
	}
	defer tx.Rollback()
	_, _, _, _, ok, err := currentKnowledge(ctx, tx, it.ID)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("store: unable to add knowledge %s: it is stored already: %w", it.ID, ErrKnowledgeConflict)
	}
	if err := putKnowledgeRow(ctx, tx, it, it.Source.CreatedBy); err != nil {
		return err
	}
	if sup != nil {
		if sup.Newer != it.ID {
			return fmt.Errorf("store: unable to save knowledge %s: the supersession given is stated by %s", it.ID, sup.Newer)
		}
		if err := supersede(ctx, tx, *sup, older); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to save knowledge %s: %w", it.ID, err)
	}
	return nil
}

// PutKnowledgeVersion stores it as the next version of its item: it.Version
// must be the stored version plus one, else ErrKnowledgeConflict (someone
// else's version came first); an unknown item wraps ErrNotFound.
func (s *Store) PutKnowledgeVersion(ctx context.Context, it knowledge.Item) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to save knowledge %s: %w", it.ID, err)
	}
	defer tx.Rollback()
	if err := putNextVersion(ctx, tx, it); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to save knowledge %s: %w", it.ID, err)
	}
	return nil
}

func putNextVersion(ctx context.Context, q queryer, it knowledge.Item) error {
	v, _, firstBy, _, ok, err := currentKnowledge(ctx, q, it.ID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("store: unable to save knowledge %s: %w", it.ID, ErrNotFound)
	}
	if it.Version != v+1 {
		return fmt.Errorf("store: unable to save version %d of knowledge %s: version %d is stored: %w", it.Version, it.ID, v, ErrKnowledgeConflict)
	}
	return putKnowledgeRow(ctx, q, it, knowledge.CreatedBy(firstBy))
}

// Supersede records sup (sup.Newer supersedes sup.Older) and, when older is
// not nil, stores it as the next version of sup.Older (its status
// superseded), in one transaction. Whether the supersession is allowed
// (kinds, cycles) is the caller's check (knowledge.CheckSupersede); a
// repeated supersession is an error.
func (s *Store) Supersede(ctx context.Context, sup knowledge.Supersession, older *knowledge.Item) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to record that %s supersedes %s: %w", sup.Newer, sup.Older, err)
	}
	defer tx.Rollback()
	if err := supersede(ctx, tx, sup, older); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to record that %s supersedes %s: %w", sup.Newer, sup.Older, err)
	}
	return nil
}

func supersede(ctx context.Context, q queryer, sup knowledge.Supersession, older *knowledge.Item) error {
	if older != nil && older.ID != sup.Older {
		return fmt.Errorf("store: unable to record that %s supersedes %s: the new version given is of %s", sup.Newer, sup.Older, older.ID)
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO knowledge_supersessions (newer, older, stated_by, reason, stated_at)
		VALUES (?, ?, ?, ?, ?)`, sup.Newer, sup.Older, string(sup.StatedBy), sup.Reason, isoTime(sup.StatedAt)); err != nil {
		return fmt.Errorf("store: unable to record that %s supersedes %s: %w", sup.Newer, sup.Older, err)
	}
	if older != nil {
		return putNextVersion(ctx, q, *older)
	}
	return nil
}

// PutOfflineKnowledge stores the items the offline rules found in the
// segment of node segmentNodeID during an import. Offline ids are stable
// (knowledge.Extractor), so reading a segment again finds the same items:
// an item already stored is replaced only while it is still the offline
// rule's own version 1 and says something else now; once a person, an agent
// or the model edited it, or it took part in a supersession, it is left as
// it is. The segment's untouched offline items that are not found again (the
// segment grew, and a question that looked open was answered in a way the
// rules cannot tell) go.
func (t *Tx) PutOfflineKnowledge(segmentNodeID string, items []knowledge.Item) error {
	keep := make([]string, 0, len(items))
	for _, it := range items {
		keep = append(keep, it.ID)
	}
	keepJSON, _ := json.Marshal(keep)
	if _, err := t.exec(`DELETE FROM knowledge WHERE segment_node_id = ? AND version = 1 AND created_by = 'offline'
		AND id NOT IN (SELECT newer FROM knowledge_supersessions) AND id NOT IN (SELECT older FROM knowledge_supersessions)
		AND id NOT IN (SELECT value FROM json_each(?))`, segmentNodeID, string(keepJSON)); err != nil {
		return fmt.Errorf("store: unable to delete the offline knowledge of node %s: %w", segmentNodeID, err)
	}
	return putOfflineKnowledge(t.ctx, txQueryer{t}, items)
}

func putOfflineKnowledge(ctx context.Context, q queryer, items []knowledge.Item) error {
	for _, it := range items {
		v, createdBy, _, raw, ok, err := currentKnowledge(ctx, q, it.ID)
		if err != nil {
			return err
		}
		if ok {
			if v != 1 || createdBy != string(knowledge.ByOffline) {
				continue
			}
			var old knowledge.Item
			if json.Unmarshal([]byte(raw), &old) == nil {
				same := it
				same.CreatedAt = old.CreatedAt
				if b, err := json.Marshal(same); err == nil && string(b) == raw {
					continue
				}
			}
		}
		if err := putKnowledgeRow(ctx, q, it, knowledge.ByOffline); err != nil {
			return err
		}
	}
	return nil
}

// SegmentKnowledge returns, inside the transaction, the current version of
// every item whose first version firstBy made from segment node
// segmentNodeID, oldest stated first (ties by id): what a model's new
// analysis of the segment is matched with (knowledge.ReconcileModel).
func (t *Tx) SegmentKnowledge(segmentNodeID string, firstBy knowledge.CreatedBy) ([]knowledge.Item, error) {
	rows, err := t.query(`SELECT `+knowledgeColumns+` FROM knowledge WHERE segment_node_id = ? AND first_by = ?
		ORDER BY timestamp, id`, segmentNodeID, string(firstBy))
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the knowledge of node %s: %w", segmentNodeID, err)
	}
	defer rows.Close()
	var out []knowledge.Item
	for rows.Next() {
		it, err := scanKnowledge(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to list the knowledge of node %s: %w", segmentNodeID, err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the knowledge of node %s: %w", segmentNodeID, err)
	}
	return out, nil
}

// PutKnowledge stores, inside the transaction, added (version 1 of new
// items, their first maker their CreatedBy; an id stored already is
// ErrKnowledgeConflict) and versions (each the next version of its stored
// item, as PutKnowledgeVersion checks: another version first is
// ErrKnowledgeConflict, an unknown item ErrNotFound).
func (t *Tx) PutKnowledge(added, versions []knowledge.Item) error {
	q := txQueryer{t}
	for _, it := range added {
		_, _, _, _, ok, err := currentKnowledge(t.ctx, q, it.ID)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("store: unable to add knowledge %s: it is stored already: %w", it.ID, ErrKnowledgeConflict)
		}
		if err := putKnowledgeRow(t.ctx, q, it, it.Source.CreatedBy); err != nil {
			return err
		}
	}
	for _, it := range versions {
		if err := putNextVersion(t.ctx, q, it); err != nil {
			return err
		}
	}
	return nil
}

// DeleteOfflineKnowledge deletes the items offline rules found in session
// sessionID that nobody touched since (version 1, made offline, in no
// supersession): before a rewritten session file is read again.
func (t *Tx) DeleteOfflineKnowledge(sessionID string) error {
	_, err := t.exec(`DELETE FROM knowledge WHERE session_id = ? AND version = 1 AND created_by = 'offline'
		AND id NOT IN (SELECT newer FROM knowledge_supersessions) AND id NOT IN (SELECT older FROM knowledge_supersessions)`, sessionID)
	if err != nil {
		return fmt.Errorf("store: unable to delete the offline knowledge of session %s: %w", sessionID, err)
	}
	return nil
}

// ReplaceOfflineKnowledge stores the items the offline rules now find in
// session sessionID (a re-extraction): the session's untouched offline
// items that are not found again go (DeleteOfflineKnowledge's rule), then
// items are written as
// PutOfflineKnowledge writes them, in one transaction. It returns how many
// items the session held before and after.
func (s *Store) ReplaceOfflineKnowledge(ctx context.Context, sessionID string, items []knowledge.Item) (before, after int, err error) {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("store: unable to re-extract the knowledge of session %s: %w", sessionID, err)
	}
	defer tx.Rollback()
	count := func() (int, error) {
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM knowledge WHERE session_id = ?`, sessionID).Scan(&n)
		return n, err
	}
	if before, err = count(); err != nil {
		return 0, 0, fmt.Errorf("store: unable to count the knowledge of session %s: %w", sessionID, err)
	}
	keep := make([]string, 0, len(items))
	for _, it := range items {
		keep = append(keep, it.ID)
	}
	keepJSON, _ := json.Marshal(keep)
	if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge WHERE session_id = ? AND version = 1 AND created_by = 'offline'
		AND id NOT IN (SELECT newer FROM knowledge_supersessions) AND id NOT IN (SELECT older FROM knowledge_supersessions)
		AND id NOT IN (SELECT value FROM json_each(?))`, sessionID, string(keepJSON)); err != nil {
		return 0, 0, fmt.Errorf("store: unable to delete the offline knowledge of session %s: %w", sessionID, err)
	}
	if err := putOfflineKnowledge(ctx, tx, items); err != nil {
		return 0, 0, err
	}
	if after, err = count(); err != nil {
		return 0, 0, fmt.Errorf("store: unable to count the knowledge of session %s: %w", sessionID, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("store: unable to re-extract the knowledge of session %s: %w", sessionID, err)
	}
	return before, after, nil
}

func scanKnowledge(r scanner) (knowledge.Item, error) {
	var raw string
	if err := r.Scan(&raw); err != nil {
		return knowledge.Item{}, err
	}
	var it knowledge.Item
	if err := json.Unmarshal([]byte(raw), &it); err != nil {
		return knowledge.Item{}, fmt.Errorf("store: unable to decode a knowledge item: %w", err)
	}
	return it, nil
}

// Knowledge returns the current version of item id; ErrNotFound (wrapped)
// when there is none.
func (s *Store) Knowledge(ctx context.Context, id string) (knowledge.Item, error) {
	it, err := scanKnowledge(s.db.QueryRowContext(ctx, `SELECT `+knowledgeColumns+` FROM knowledge WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return knowledge.Item{}, fmt.Errorf("store: unable to find knowledge %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return knowledge.Item{}, fmt.Errorf("store: unable to read knowledge %s: %w", id, err)
	}
	return it, nil
}

// KnowledgeVersions returns every version of item id, oldest first;
// ErrNotFound (wrapped) for an unknown item.
func (s *Store) KnowledgeVersions(ctx context.Context, id string) ([]knowledge.Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT item FROM knowledge_versions WHERE id = ? ORDER BY version`, id)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the versions of knowledge %s: %w", id, err)
	}
	defer rows.Close()
	var out []knowledge.Item
	for rows.Next() {
		it, err := scanKnowledge(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a version of knowledge %s: %w", id, err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the versions of knowledge %s: %w", id, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("store: unable to find knowledge %s: %w", id, ErrNotFound)
	}
	return out, nil
}

// ListKnowledge returns the current version of the items f keeps, newest
// stated first (ties by id).
func (s *Store) ListKnowledge(ctx context.Context, f KnowledgeFilter) ([]knowledge.Item, error) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	kinds := make([]string, len(f.Kinds))
	for i, k := range f.Kinds {
		kinds[i] = string(k)
	}
	in("kind", kinds)
	statuses := make([]string, len(f.Statuses))
	for i, v := range f.Statuses {
		statuses[i] = string(v)
	}
	in("status", statuses)
	makers := make([]string, len(f.CreatedBy))
	for i, v := range f.CreatedBy {
		makers[i] = string(v)
	}
	in("first_by", makers)
	switch {
	case f.Project != "" && f.CrossProject:
		where = append(where, "project IN (?, '')")
		args = append(args, f.Project)
	case f.Project != "":
		where = append(where, "project = ?")
		args = append(args, f.Project)
	case f.CrossProject:
		where = append(where, "project = ''")
	}
	if f.SessionID != "" {
		where = append(where, "session_id = ?")
		args = append(args, f.SessionID)
	}
	if f.OpenQuestions {
		where = append(where, "open_question = 1")
	}
	for _, w := range strings.Fields(strings.ToLower(f.Query)) {
		where = append(where, `instr(text, ?) > 0`)
		args = append(args, w)
	}
	q := `SELECT ` + knowledgeColumns + ` FROM knowledge`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY timestamp DESC, id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list knowledge: %w", err)
	}
	defer rows.Close()
	out := []knowledge.Item{}
	for rows.Next() {
		it, err := scanKnowledge(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to list knowledge: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list knowledge: %w", err)
	}
	return out, nil
}

// Supersessions returns every stated supersession, oldest statement first.
func (s *Store) Supersessions(ctx context.Context) ([]knowledge.Supersession, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT newer, older, stated_by, reason, stated_at FROM knowledge_supersessions ORDER BY stated_at, rowid`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the supersessions: %w", err)
	}
	defer rows.Close()
	out := []knowledge.Supersession{}
	for rows.Next() {
		var sup knowledge.Supersession
		var by, at string
		if err := rows.Scan(&sup.Newer, &sup.Older, &by, &sup.Reason, &at); err != nil {
			return nil, fmt.Errorf("store: unable to read a supersession: %w", err)
		}
		sup.StatedBy = knowledge.CreatedBy(by)
		if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
			sup.StatedAt = t
		}
		out = append(out, sup)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the supersessions: %w", err)
	}
	return out, nil
}

// KnowledgeProjects lists the projects knowledge items belong to, "" (cross
// project) included when there is such an item, sorted.
func (s *Store) KnowledgeProjects(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT project FROM knowledge ORDER BY project`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the projects of knowledge: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("store: unable to list the projects of knowledge: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
