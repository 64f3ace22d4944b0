package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"rhizome/backend/link"
)

// Items: what the library holds under a link.Item's URI, looked up many at
// a time (a list of links, the picker's hits): whether it is still there,
// what to call it, and where to open it.

// ItemRecord is an item as the library holds it. For an item that is not
// (any more) in the library Exists is false and only Item is set.
type ItemRecord struct {
	Item   link.Item
	Exists bool
	// Title names the item for a person: a session's name, a node's
	// summary, an entry's role and first words, a tree's title, a loom
	// node's first words, a project's folder name, a note's first line.
	Title string
	// Detail says where it lives: a node's or entry's session, a loom
	// node's tree, a note's item.
	Detail string

	// Where to open it.
	SessionID   string    // sessions, nodes, entries
	NodeID      string    // the graph node: a node itself, an entry's segment node, a session's first node
	EntrySeq    int       // entries: the entry's seq in its session
	EntryOffset int       // entries: its place in its node's segment (Library.SegmentEntries' offset)
	TreeID      string    // loom trees and nodes
	LoomNodeID  string    // loom nodes
	Project     string    // projects; a session's or node's project
	NoteOf      link.Item // notes: the item the note is on
	ReasoningID string    // reasoning graphs and their nodes
}

// titleRunes bounds the titles made from text (entries, loom nodes, notes).
const titleRunes = 120

// firstWords is the first non-empty line of text, at most titleRunes runes.
func firstWords(text string) string {
	for line := range strings.Lines(text) {
		if l := strings.TrimSpace(line); l != "" {
			if utf8.RuneCountInString(l) > titleRunes {
				r := []rune(l)
				return string(r[:titleRunes-1]) + "…"
			}
			return l
		}
	}
	return ""
}

// ResolveItems looks up items and returns their records by URI
// (link.Item.String), every item given having one (Exists false when the
// library does not hold it). External items (URLs and files) are returned as
// existing, titled by themselves: the library does not check them. Each
// kind is one query, whatever the number of items.
func (s *Store) ResolveItems(ctx context.Context, items []link.Item) (map[string]ItemRecord, error) {
	out := make(map[string]ItemRecord, len(items))
	byKind := map[link.Kind][]link.Item{}
	for _, it := range items {
		uri := it.String()
		if _, seen := out[uri]; seen || uri == "" {
			continue
		}
		out[uri] = ItemRecord{Item: it}
		byKind[it.Kind] = append(byKind[it.Kind], it)
	}
	for kind, its := range byKind {
		var err error
		switch kind {
		case link.KindSession:
			err = s.resolveSessions(ctx, its, out)
		case link.KindNode:
			err = s.resolveNodes(ctx, its, out)
		case link.KindEntry:
			err = s.resolveEntries(ctx, its, out)
		case link.KindLoomTree:
			err = s.resolveLoomTrees(ctx, its, out)
		case link.KindLoomNode:
			err = s.resolveLoomNodes(ctx, its, out)
		case link.KindProject:
			err = s.resolveProjects(ctx, its, out)
		case link.KindNote:
			err = s.resolveNotes(ctx, its, out)
		case link.KindKnowledge:
			err = s.resolveKnowledge(ctx, its, out)
		case link.KindReasoning:
			err = s.resolveReasoning(ctx, its, out)
		case link.KindReasoningNode:
			err = s.resolveReasoningNodes(ctx, its, out)
		case link.KindURL, link.KindFile:
			for _, it := range its {
				out[it.String()] = ItemRecord{Item: it, Exists: true, Title: it.ID}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("store: unable to look up %s items: %w", kind, err)
		}
	}
	return out, nil
}

// ResolveItem is ResolveItems for one item.
func (s *Store) ResolveItem(ctx context.Context, it link.Item) (ItemRecord, error) {
	m, err := s.ResolveItems(ctx, []link.Item{it})
	if err != nil {
		return ItemRecord{}, err
	}
	if r, ok := m[it.String()]; ok {
		return r, nil
	}
	return ItemRecord{Item: it}, nil
}

// idList is the ids of items as a JSON array, for json_each.
func idList(items []link.Item, id func(link.Item) any) string {
	ids := make([]any, len(items))
	for i, it := range items {
		ids[i] = id(it)
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

func itemID(it link.Item) any { return it.ID }

// sessionTitle is how a session is named: the title of its summary, else
// (until it has one) its session_info name, else its file name.
const sessionTitle = `coalesce(nullif((SELECT sm.title FROM summaries sm WHERE sm.kind = 'session' AND sm.subject = s.id), ''),
	CASE WHEN s.name <> '' THEN s.name ELSE s.file_name END)`

func (s *Store) resolveSessions(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT s.id, `+sessionTitle+`, s.cwd,
		coalesce((SELECT n.id FROM nodes n WHERE n.session_pk = s.pk AND n.segment_idx >= 0 ORDER BY n.segment_idx LIMIT 1), '')
		FROM sessions s WHERE s.id IN (SELECT value FROM json_each(?))`, idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var id string
		if err := rows.Scan(&id, &r.Title, &r.Project, &r.NodeID); err != nil {
			return err
		}
		r.Item, r.Exists, r.SessionID, r.Detail = link.Session(id), true, id, r.Project
		out[r.Item.String()] = r
	}
	return rows.Err()
}

func (s *Store) resolveNodes(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id,
			coalesce(nullif((SELECT sm.label FROM summaries sm WHERE sm.kind = 'segment' AND sm.subject = n.id), ''), n.summary),
			n.type, s.id, `+sessionTitle+`, n.project
		FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE n.id IN (SELECT value FROM json_each(?))`, idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var typ string
		if err := rows.Scan(&r.NodeID, &r.Title, &typ, &r.SessionID, &r.Detail, &r.Project); err != nil {
			return err
		}
		if r.Title = firstWords(r.Title); r.Title == "" {
			r.Title = typ + " segment"
		}
		r.Item, r.Exists = link.Node(r.NodeID), true
		out[r.Item.String()] = r
	}
	return rows.Err()
}

// resolveEntries finds entries by session and entry id (the index
// entries_entry_id), each in its segment's node: the first entry holding
// the id when a session repeats one.
func (s *Store) resolveEntries(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	pairs := idList(its, func(it link.Item) any { return []string{it.Within, it.ID} })
	rows, err := s.db.QueryContext(ctx, `SELECT s.id, `+sessionTitle+`, s.cwd, e.entry_id, e.seq, e.type, e.role, e.text,
		coalesce(n.id, ''), coalesce(g.start_seq, 0)
		FROM json_each(?) j
		JOIN sessions s ON s.id = json_extract(j.value, '$[0]')
		JOIN entries e ON e.pk = (SELECT min(x.pk) FROM entries x WHERE x.session_pk = s.pk AND x.entry_id = json_extract(j.value, '$[1]'))
		LEFT JOIN segments g ON g.session_pk = s.pk AND g.start_seq <= e.seq AND g.end_seq >= e.seq
		LEFT JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx`, pairs)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var session, entryID, typ, role, text string
		var start int
		if err := rows.Scan(&r.SessionID, &session, &r.Project, &entryID, &r.EntrySeq, &typ, &role, &text, &r.NodeID, &start); err != nil {
			return err
		}
		what := typ
		if role != "" {
			what = role
		}
		r.Title = what
		if w := firstWords(text); w != "" {
			r.Title += ": " + w
		}
		r.Detail = fmt.Sprintf("%s · #%d", session, r.EntrySeq)
		r.EntryOffset = r.EntrySeq - start
		r.Item, r.Exists = link.Entry(r.SessionID, entryID), true
		out[r.Item.String()] = r
	}
	return rows.Err()
}

func (s *Store) resolveLoomTrees(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, archived_at FROM loom_trees WHERE id IN (SELECT value FROM json_each(?))`,
		idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var archived string
		if err := rows.Scan(&r.TreeID, &r.Title, &archived); err != nil {
			return err
		}
		r.Detail = "loom tree"
		if archived != "" {
			r.Detail = "loom tree (archived)"
		}
		r.Item, r.Exists = link.LoomTree(r.TreeID), true
		out[r.Item.String()] = r
	}
	return rows.Err()
}

func (s *Store) resolveLoomNodes(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.tree_id, n.local_id, n.text, n.content_type, t.title
		FROM loom_nodes n JOIN loom_trees t ON t.id = n.tree_id WHERE n.id IN (SELECT value FROM json_each(?))`, idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var localID, text, contentType string
		if err := rows.Scan(&r.LoomNodeID, &r.TreeID, &localID, &text, &contentType, &r.Detail); err != nil {
			return err
		}
		r.Item = link.LoomNode(r.TreeID, r.LoomNodeID)
		if _, asked := out[r.Item.String()]; !asked {
			continue // the node is in another tree than the URI says: not this item
		}
		if r.Title = firstWords(text); r.Title == "" {
			r.Title = contentType + " node " + localID
		}
		r.Exists = true
		out[r.Item.String()] = r
	}
	return rows.Err()
}

func (s *Store) resolveProjects(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT cwd, count(*) FROM sessions WHERE cwd IN (SELECT value FROM json_each(?)) GROUP BY cwd`,
		idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var n int
		if err := rows.Scan(&r.Project, &n); err != nil {
			return err
		}
		r.Title = projectBase(r.Project)
		r.Detail = fmt.Sprintf("project · %d session%s", n, plural(n))
		r.Item, r.Exists = link.Project(r.Project), true
		out[r.Item.String()] = r
	}
	return rows.Err()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// projectBase is the last element of a project path (POSIX or Windows).
func projectBase(p string) string {
	p = strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	if p == "" {
		return "/"
	}
	return p
}

func (s *Store) resolveNotes(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, item_uri, markdown FROM notes WHERE id IN (SELECT value FROM json_each(?))`,
		idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var id, on, markdown string
		if err := rows.Scan(&id, &on, &markdown); err != nil {
			return err
		}
		if r.NoteOf, err = link.Parse(on); err != nil {
			return fmt.Errorf("note %s: field item_uri: %w", id, err)
		}
		if r.Title = firstWords(markdown); r.Title == "" {
			r.Title = "(empty note)"
		}
		r.Detail = "note on " + on
		r.Item, r.Exists = link.Note(id), true
		out[r.Item.String()] = r
	}
	return rows.Err()
}
