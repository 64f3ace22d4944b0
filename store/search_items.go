package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"rhizome/backend/link"
	"rhizome/backend/search"
)

// Search beyond sessions: loom trees, loom nodes, notes and summaries, whose
// text search_items keeps (migrations/0060_links.sql), and the picker that
// finds any item to link to (SearchItems).

// Kinds of search hits (SearchHit.Kind, SearchFilter.Kinds): nodes and
// entries, and the items search_items holds.
const (
	HitNode     = "node"     // a knowledge-graph node: its summary, tags, topics, files
	HitEntry    = "entry"    // a session entry's text
	HitLoomTree = "loom"     // a loom tree: its title, description and summary
	HitLoomNode = "loomNode" // a loom node's text
	HitNote     = "note"     // a person's note
	HitSummary  = "summary"  // the summary of an item (session, node, loom node, ...)
	HitSession  = "session"  // a session found by the title or summary it shows (app.Search.Query)
	// HitReasoning and HitReasoningNode are a MemoBrain reasoning graph
	// (by its title) and one of its nodes (by its kind, id and thought).
	HitReasoning     = "reasoning"
	HitReasoningNode = "reasoningNode"
	HitKnowledge     = "knowledge" // a knowledge item: its title and text
)

var searchItemKinds = []string{HitLoomTree, HitLoomNode, HitNote, HitSummary, HitReasoning, HitReasoningNode, HitKnowledge}

// itemKinds is the item kinds f asks for: none when f filters by what only
// sessions, nodes and entries have (a project, a session, roles, node types,
// a time range), which no loom tree, note or summary could pass.
func (f SearchFilter) itemKinds() []string {
	if f.Project != "" || f.SessionID != "" || len(f.Roles) > 0 || len(f.NodeTypes) > 0 || f.From != "" || f.To != "" {
		return nil
	}
	var out []string
	for _, k := range searchItemKinds {
		if f.wants(k) {
			out = append(out, k)
		}
	}
	return out
}

// newestItemMatches bounds the matches of search_items a query ranks: the
// newest ones, as keywordTuning.nodes bounds node matches. A word held by
// every loom node of a large library would otherwise rank them all.
const newestItemMatches = 500

// searchItems ranks the items of kinds matching the query of plan p among
// the newestItemMatches newest matches, by bm25 computed here from their
// text (title weighing 2, text 1), and returns at most limit hits, best
// first, with snippets. FTS5 finds the matches newest first and stops; its
// bm25() is not used, as it would read a common word's whole doclist to
// count it: the IDF of each clause is the library's, from the keyword
// index's counts over the entries (searchPlan.idf), so that item scores
// weigh words as entry scores do.
func (s *Store) searchItems(ctx context.Context, p *searchPlan, kinds []string, limit int) ([]SearchHit, error) {
	out := []SearchHit{}
	if p.query.Empty() || limit <= 0 || len(kinds) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(kinds)
	rows, err := s.db.QueryContext(ctx, `SELECT i.pk, i.kind, i.item_id, i.within, i.summary_of, i.title, i.text,
		CASE i.kind WHEN 'loomNode' THEN coalesce((SELECT t.title FROM loom_trees t WHERE t.id = i.within), '')
			WHEN 'reasoningNode' THEN coalesce((SELECT g.title FROM reasoning_graphs g WHERE g.id = i.within), '') ELSE '' END
		FROM search_items i
		WHERE i.pk IN (SELECT rowid FROM search_items_fts WHERE search_items_fts MATCH ? ORDER BY rowid DESC LIMIT ?)
		AND i.kind IN (SELECT value FROM json_each(?))`, p.query.FTS5(nil), newestItemMatches, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	_, avgdl, err := ftsTotals(ctx, s.db, "search_items_fts")
	if err != nil {
		return nil, err
	}
	idf := p.idf()
	m := search.NewMatcher(p.query, nil) // prefixes as FTS5 reads them here: any term they begin
	type ranked struct {
		h           SearchHit
		pk          int64
		title, text string
		mt, mx      search.Match
	}
	var found []ranked
	for rows.Next() {
		var h SearchHit
		var pk int64
		var id, within, of, title, text, tree string
		if err := rows.Scan(&pk, &h.Kind, &id, &within, &of, &title, &text, &tree); err != nil {
			return nil, err
		}
		mt, mx := m.Find(title), m.Find(text)
		h.Score = 2*mt.Score(idf, avgdl) + mx.Score(idf, avgdl)
		h.Title = title
		switch h.Kind {
		case HitLoomTree:
			h.Item = link.LoomTree(id)
		case HitLoomNode:
			h.Item, h.Within = link.LoomNode(within, id), tree
			h.Title = firstWords(text)
		case HitNote:
			h.Item = link.Note(id)
			h.Title = firstWords(text)
		case HitSummary:
			h.Item, h.Within = link.Item{Kind: link.Kind(of), ID: id, Within: within}, of
		case HitReasoning:
			h.Item = link.Reasoning(id)
		case HitKnowledge:
			h.Item = link.Knowledge(id)
		case HitReasoningNode:
			h.Item, h.Within = link.ReasoningNode(within, id), tree
			if words := firstWords(text); words != "" {
				h.Title = title + ": " + words
			}
		}
		if h.Item.Validate() != nil {
			continue // a row naming no valid item: nothing to open
		}
		found = append(found, ranked{h, pk, title, text, mt, mx})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].h.Score != found[j].h.Score {
			return found[i].h.Score > found[j].h.Score
		}
		return found[i].pk > found[j].pk
	})
	for _, f := range found[:min(len(found), limit)] {
		if len(f.mx.Hits) >= len(f.mt.Hits) {
			f.h.Snippet = search.Snippet(f.text, f.mx.Hits, search.SnippetTokens, SnippetStart, SnippetEnd)
		} else {
			f.h.Snippet = search.Snippet(f.title, f.mt.Hits, search.SnippetTokens, SnippetStart, SnippetEnd)
		}
		out = append(out, f.h)
	}
	return out, nil
}

// IndexSummaryText makes the summary of item findable by search: title and
// text replace what was indexed for it before. Until the summaries table
// keeps search_items up to date by triggers of its own, whoever writes a
// summary calls this (and UnindexSummaryText when one is dropped).
func (s *Store) IndexSummaryText(ctx context.Context, item link.Item, title, text string) error {
	if err := item.Validate(); err != nil {
		return fmt.Errorf("store: unable to index a summary: %w", err)
	}
	_, err := s.execWrite(ctx, `INSERT INTO search_items (kind, item_id, within, summary_of, title, text) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (kind, item_id, within, summary_of) DO UPDATE SET title = excluded.title, text = excluded.text`,
		HitSummary, item.ID, item.Within, string(item.Kind), title, text)
	if err != nil {
		return fmt.Errorf("store: unable to index the summary of %s: %w", item, err)
	}
	return nil
}

// UnindexSummaryText drops the summary of item from search.
func (s *Store) UnindexSummaryText(ctx context.Context, item link.Item) error {
	_, err := s.execWrite(ctx, `DELETE FROM search_items WHERE kind = ? AND item_id = ? AND within = ? AND summary_of = ?`,
		HitSummary, item.ID, item.Within, string(item.Kind))
	if err != nil {
		return fmt.Errorf("store: unable to drop the summary of %s from search: %w", item, err)
	}
	return nil
}

// ItemHit is an item the picker found: its record, what matched and how
// well (bm25 within its kind; not comparable across kinds).
type ItemHit struct {
	ItemRecord
	Snippet string // plain text, matches between SnippetStart and SnippetEnd; may be ""
	Score   float64
}

// PickerKinds are the kinds SearchItems finds, in the order it lists them.
var PickerKinds = []link.Kind{link.KindNode, link.KindKnowledge, link.KindSession, link.KindLoomTree, link.KindLoomNode, link.KindNote,
	link.KindReasoning, link.KindReasoningNode, link.KindEntry, link.KindProject}

// SearchItems finds the items whose text or title matches q, for a person
// choosing what to link to: at most limit of each kind asked for (kinds
// empty: every kind of PickerKinds), grouped by kind in PickerKinds' order,
// best first within a kind. Sessions and projects match on their name or
// path (every word, case-insensitive), the rest through the full-text
// indexes (SearchWith's rules: words, phrases, the last word a prefix). A
// summary that matches stands for the item it summarises. q naming an item
// by URI gives that item alone; an empty q gives the newest sessions and
// loom trees.
func (s *Store) SearchItems(ctx context.Context, q string, kinds []link.Kind, limit int) ([]ItemHit, error) {
	out := []ItemHit{}
	if limit <= 0 {
		return out, nil
	}
	want := map[link.Kind]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	wants := func(k link.Kind) bool { return len(want) == 0 || want[k] }
	q = strings.TrimSpace(q)
	if it, err := link.Parse(q); err == nil {
		r, err := s.ResolveItem(ctx, it)
		if err != nil {
			return nil, err
		}
		return append(out, ItemHit{ItemRecord: r, Score: 1}), nil
	}
	found := map[string]ItemHit{}
	add := func(it link.Item, snippet string, score float64) {
		uri := it.String()
		if uri == "" || !wants(it.Kind) {
			return
		}
		if h, ok := found[uri]; ok && h.Score >= score {
			return
		}
		found[uri] = ItemHit{ItemRecord: ItemRecord{Item: it}, Snippet: snippet, Score: score}
	}
	query := search.ParseQuery(q)
	if query.Empty() {
		if err := s.newestItems(ctx, wants, limit, add); err != nil {
			return nil, err
		}
	} else {
		if err := s.pickByName(ctx, query, wants, limit, add); err != nil {
			return nil, err
		}
		var fkinds []string
		if wants(link.KindNode) {
			fkinds = append(fkinds, HitNode)
		}
		if wants(link.KindEntry) {
			fkinds = append(fkinds, HitEntry)
		}
		fkinds = append(fkinds, HitLoomTree, HitLoomNode, HitNote, HitSummary, HitReasoning, HitReasoningNode, HitKnowledge)
		hits, err := s.SearchWith(ctx, q, SearchFilter{Kinds: fkinds}, limit*len(PickerKinds))
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			add(h.Item, h.Snippet, h.Score)
		}
	}
	items := make([]link.Item, 0, len(found))
	for _, h := range found {
		items = append(items, h.Item)
	}
	recs, err := s.ResolveItems(ctx, items)
	if err != nil {
		return nil, err
	}
	perKind := map[link.Kind][]ItemHit{}
	for uri, h := range found {
		r := recs[uri]
		if !r.Exists {
			continue
		}
		h.ItemRecord = r
		perKind[h.Item.Kind] = append(perKind[h.Item.Kind], h)
	}
	for _, k := range PickerKinds {
		hs := perKind[k]
		sort.Slice(hs, func(i, j int) bool {
			if hs[i].Score != hs[j].Score {
				return hs[i].Score > hs[j].Score
			}
			return hs[i].Item.String() < hs[j].Item.String()
		})
		out = append(out, hs[:min(len(hs), limit)]...)
	}
	return out, nil
}

// pickByName finds sessions (name, file name, project) and projects (path)
// holding every term of q, case-insensitively, newest sessions first.
func (s *Store) pickByName(ctx context.Context, q search.Query, wants func(link.Kind) bool, limit int,
	add func(link.Item, string, float64)) error {
	if !wants(link.KindSession) && !wants(link.KindProject) {
		return nil
	}
	var cond strings.Builder
	var args []any
	for _, t := range q.AllTerms() {
		cond.WriteString(` AND (instr(lower(s.name), ?) > 0 OR instr(lower(s.file_name), ?) > 0 OR instr(lower(s.cwd), ?) > 0)`)
		args = append(args, t, t, t)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT s.id, s.cwd, s.name, s.file_name FROM sessions s WHERE 1 = 1`+cond.String()+`
		ORDER BY s.timestamp DESC LIMIT 200`, args...)
	if err != nil {
		return fmt.Errorf("store: unable to find sessions by name: %w", err)
	}
	defer rows.Close()
	n, projects := 0, map[string]bool{}
	for rows.Next() {
		var id, cwd, name, file string
		if err := rows.Scan(&id, &cwd, &name, &file); err != nil {
			return fmt.Errorf("store: unable to find sessions by name: %w", err)
		}
		// Sessions whose name matches rank above those matched by path.
		score := 1.0
		if terms := q.AllTerms(); len(terms) > 0 && strings.Contains(strings.ToLower(name+" "+file), terms[0]) {
			score = 2
		}
		if n < limit {
			add(link.Session(id), "", score-float64(n)/1000)
			n++
		}
		if cwd != "" && !projects[cwd] {
			all := true
			for _, t := range q.AllTerms() {
				all = all && strings.Contains(strings.ToLower(cwd), t)
			}
			if all {
				projects[cwd] = true
				add(link.Project(cwd), "", 1-float64(len(projects))/1000)
			}
		}
	}
	return rows.Err()
}

// newestItems offers the newest sessions and loom trees, for an empty query.
func (s *Store) newestItems(ctx context.Context, wants func(link.Kind) bool, limit int, add func(link.Item, string, float64)) error {
	if wants(link.KindSession) {
		rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions ORDER BY timestamp DESC LIMIT ?`, limit)
		if err != nil {
			return fmt.Errorf("store: unable to list the newest sessions: %w", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("store: unable to list the newest sessions: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for i, id := range ids {
			add(link.Session(id), "", 1-float64(i)/1000)
		}
	}
	if wants(link.KindLoomTree) {
		rows, err := s.db.QueryContext(ctx, `SELECT id FROM loom_trees WHERE archived_at = '' ORDER BY updated_at DESC LIMIT ?`, limit)
		if err != nil {
			return fmt.Errorf("store: unable to list the newest loom trees: %w", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("store: unable to list the newest loom trees: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for i, id := range ids {
			add(link.LoomTree(id), "", 1-float64(i)/1000)
		}
	}
	return nil
}
