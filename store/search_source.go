package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/search"
)

// SearchSource is the library as the hybrid search reads it: it implements
// search.Source. Items are "node:<id>" and "entry:<key>".
type SearchSource struct{ s *Store }

// SearchSource returns the library's search.Source.
func (s *Store) SearchSource() *SearchSource { return &SearchSource{s: s} }

// NodeItem names node id as a searchable item ("node:<id>").
func NodeItem(id string) string { return "node:" + id }

// EntryItem names the entry of key pk as a searchable item ("entry:<key>").
func EntryItem(pk int64) string { return "entry:" + strconv.FormatInt(pk, 10) }

func itemKind(item string) string { k, _, _ := strings.Cut(item, ":"); return k }

func keywordFilter(f search.Filter) SearchFilter {
	sf := SearchFilter{Kinds: f.Kinds, Project: f.Project, Roles: f.Roles, NodeTypes: f.NodeTypes, ExcludeArchived: f.ExcludeArchived}
	if !f.Range.From.IsZero() {
		sf.From = isoTime(f.Range.From)
	}
	if !f.Range.To.IsZero() {
		// To is exclusive; the store's To inclusive: a millisecond before.
		sf.To = isoTime(f.Range.To.Add(-time.Millisecond))
	}
	return sf
}

// Keyword implements search.Source with SearchWith: the best n nodes and
// entries by bm25 (each from its own index) holding any of the query's
// words (stopwords aside); the hybrid ranking weighs how many they hold.
func (src *SearchSource) Keyword(ctx context.Context, q string, f search.Filter, n int) ([]search.Hit, error) {
	kf := keywordFilter(f)
	kf.AnyWord, kf.KeysOnly = true, true
	if len(kf.Kinds) == 0 {
		kf.Kinds = []string{search.KindNode, search.KindEntry} // the hybrid search ranks nodes and entries only
	}
	hits, err := src.s.SearchWith(ctx, q, kf, n)
	if err != nil {
		return nil, err
	}
	out := make([]search.Hit, 0, len(hits))
	for _, h := range hits {
		item := NodeItem(h.NodeID)
		if h.Kind == "entry" {
			item = EntryItem(h.EntryPK)
		}
		out = append(out, search.Hit{Item: item, Score: h.Score})
	}
	return out, nil
}

// InRange implements search.Source: the newest n nodes whose segment
// started in r and, for a range of at most inRangeEntrySpan, the entries
// written in it (a person's own messages first, then the newest): "what was
// I doing on 20 November" has no words to find them by.
func (src *SearchSource) InRange(ctx context.Context, r search.TimeRange, f search.Filter, n int) ([]search.Hit, error) {
	var out []search.Hit
	if len(f.Kinds) == 0 || containsString(f.Kinds, search.KindNode) {
		sf := keywordFilter(search.Filter{Project: f.Project, NodeTypes: f.NodeTypes, Range: r, ExcludeArchived: f.ExcludeArchived})
		cond, args := sf.nodeSQL()
		rows, err := (cachedDB{src.s}).QueryContext(ctx, `SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk
			WHERE n.timestamp <> ''`+cond+` ORDER BY n.timestamp DESC LIMIT ?`, append(args, n)...)
		if err != nil {
			return nil, fmt.Errorf("store: unable to list the nodes of a time range: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return nil, fmt.Errorf("store: unable to list the nodes of a time range: %w", err)
			}
			out = append(out, search.Hit{Item: NodeItem(id), Score: 1})
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: unable to list the nodes of a time range: %w", err)
		}
	}
	if (len(f.Kinds) > 0 && !containsString(f.Kinds, search.KindEntry)) || r.From.IsZero() || r.To.IsZero() || r.To.Sub(r.From) > inRangeEntrySpan {
		return out, nil
	}
	sf := keywordFilter(search.Filter{Project: f.Project, Roles: f.Roles, Range: r, ExcludeArchived: f.ExcludeArchived})
	cond, args := sf.entrySQL()
	rows, err := (cachedDB{src.s}).QueryContext(ctx, `SELECT e.pk FROM segments g JOIN sessions s ON s.pk = g.session_pk
		JOIN entries e ON e.session_pk = g.session_pk AND e.seq BETWEEN g.start_seq AND g.end_seq
		WHERE g.start_timestamp < ? AND g.end_timestamp >= ? AND e.text <> ''`+cond+`
		ORDER BY e.role = 'user' DESC, e.timestamp DESC LIMIT ?`,
		append(append([]any{isoTime(r.To), isoTime(r.From)}, args...), n)...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the entries of a time range: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			return nil, fmt.Errorf("store: unable to list the entries of a time range: %w", err)
		}
		out = append(out, search.Hit{Item: EntryItem(pk), Score: 1})
	}
	return out, rows.Err()
}

// Neighbours implements search.Neighbours: for each entry item, the
// entries with text just before and just after it in its session.
func (src *SearchSource) Neighbours(ctx context.Context, items []string, reach int) (map[string][]search.Neighbour, error) {
	var pks []int64
	for _, it := range items {
		if k, v, _ := strings.Cut(it, ":"); k == search.KindEntry {
			if pk, err := strconv.ParseInt(v, 10, 64); err == nil {
				pks = append(pks, pk)
			}
		}
	}
	out := map[string][]search.Neighbour{}
	if len(pks) == 0 {
		return out, nil
	}
	reach = min(max(reach, 1), maxNeighbourReach)
	list, _ := json.Marshal(pks)
	rows, err := (cachedDB{src.s}).QueryContext(ctx, neighboursQuery(reach), string(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the entries next to the hits: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		near := make([]sql.NullInt64, 2*reach)
		dest := []any{&pk}
		for i := range near {
			dest = append(dest, &near[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("store: unable to read the entries next to the hits: %w", err)
		}
		for i, n := range near {
			if n.Valid {
				out[EntryItem(pk)] = append(out[EntryItem(pk)], search.Neighbour{Item: EntryItem(n.Int64), Steps: i/2 + 1})
			}
		}
	}
	return out, rows.Err()
}

// maxNeighbourReach bounds Neighbours' reach (and so its query texts).
const maxNeighbourReach = 4

// neighboursQuery reads, for each entry key of a JSON list, the keys of the
// entries with text reach turns either side: columns before 1, after 1,
// before 2, after 2, ...
func neighboursQuery(reach int) string {
	var b strings.Builder
	b.WriteString(`SELECT e.pk`)
	for k := range reach {
		fmt.Fprintf(&b, `,
		(SELECT p.pk FROM entries p WHERE p.session_pk = e.session_pk AND p.seq < e.seq AND p.text <> '' ORDER BY p.seq DESC LIMIT 1 OFFSET %d),
		(SELECT n.pk FROM entries n WHERE n.session_pk = e.session_pk AND n.seq > e.seq AND n.text <> '' ORDER BY n.seq LIMIT 1 OFFSET %d)`, k, k)
	}
	b.WriteString(`
		FROM entries e WHERE e.pk IN (SELECT value FROM json_each(?))`)
	return b.String()
}

// inRangeEntrySpan is the longest time range whose entries InRange lists:
// a day or a week is read through; a month has its words to go by.
const inRangeEntrySpan = 8 * 24 * time.Hour

// Docs implements search.Source: what the scorer reads of each item. An
// entry takes its tags, relations and importance from its segment's node;
// its tools and model (read from its JSON) only when f filters by them.
func (src *SearchSource) Docs(ctx context.Context, items []string, f search.Filter) (map[string]search.Doc, error) {
	var nodeIDs []string
	seenNode := map[string]bool{}
	addNode := func(id string) {
		if id != "" && !seenNode[id] {
			seenNode[id] = true
			nodeIDs = append(nodeIDs, id)
		}
	}
	var pks []int64
	for _, it := range items {
		kind, v, _ := strings.Cut(it, ":")
		switch kind {
		case search.KindNode:
			addNode(v)
		case search.KindEntry:
			if pk, err := strconv.ParseInt(v, 10, 64); err == nil {
				pks = append(pks, pk)
			}
		}
	}
	out := make(map[string]search.Doc, len(items))
	// The documents read by an earlier search while the library has not
	// changed since (docCache); an entry's tools and model are not kept.
	facets := len(f.Tools) > 0 || len(f.Models) > 0
	version, cacheErr := src.s.docs.sync(ctx, src.s.db)
	cached := cacheErr == nil
	var entries []search.Doc
	missing := pks
	if cached && !facets {
		missing = nil
		for _, pk := range pks {
			if d, ok := src.s.docs.entry(pk); ok {
				entries = append(entries, d)
			} else {
				missing = append(missing, pk)
			}
		}
	}
	read, err := src.entryDocs(ctx, missing, facets)
	if err != nil {
		return nil, err
	}
	entries = append(entries, read...)
	for _, d := range entries {
		addNode(d.NodeID)
	}
	nodes := make(map[string]search.Doc, len(nodeIDs))
	var missingNodes []string
	for _, id := range nodeIDs {
		if d, ok := src.s.docs.node(id); ok && cached {
			nodes[id] = d
		} else {
			missingNodes = append(missingNodes, id)
		}
	}
	readNodes, err := src.nodeDocs(ctx, missingNodes)
	if err != nil {
		return nil, err
	}
	for id, d := range readNodes {
		nodes[id] = d
	}
	if cached {
		keptEntries := map[int64]search.Doc{}
		if !facets {
			for _, d := range read {
				pk, _ := strconv.ParseInt(strings.TrimPrefix(d.Item, search.KindEntry+":"), 10, 64)
				keptEntries[pk] = d
			}
		}
		src.s.docs.keep(version, keptEntries, readNodes)
	}
	for _, id := range nodeIDs {
		if d, ok := nodes[id]; ok {
			out[d.Item] = d
		}
	}
	for _, d := range entries {
		if n, ok := nodes[d.NodeID]; ok {
			d.Tags, d.Relations, d.Degree, d.Importance, d.NodeType = n.Tags, n.Relations, n.Degree, n.Importance, n.NodeType
			d.Archived = n.Archived
			if len(d.Files) == 0 {
				d.Files = n.Files
			}
		}
		out[d.Item] = d
	}
	// Entries asked for and nodes asked for only: drop nodes fetched for
	// entries alone.
	asked := make(map[string]bool, len(items))
	for _, it := range items {
		asked[it] = true
	}
	for k := range out {
		if !asked[k] {
			delete(out, k)
		}
	}
	return out, nil
}

func parseISOTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func (src *SearchSource) nodeDocs(ctx context.Context, ids []string) (map[string]search.Doc, error) {
	out := map[string]search.Doc{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := (cachedDB{src.s}).QueryContext(ctx, `SELECT n.id, s.id, s.cwd, n.type, n.timestamp, n.summary, n.tags, n.topics, n.files,
		coalesce(f.tools, ''), coalesce(f.models, ''), coalesce(f.importance, 0),
		EXISTS (SELECT 1 FROM memory_state m WHERE m.item = 'rhizome:node/' || n.id AND m.archived = 1)
	FROM nodes n JOIN sessions s ON s.pk = n.session_pk LEFT JOIN search_node_facets f ON f.node_pk = n.pk
	WHERE n.id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read nodes for search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		d := search.Doc{Kind: search.KindNode}
		var ts, summary, tags, topics, files, tools, models string
		if err := rows.Scan(&d.NodeID, &d.SessionID, &d.Project, &d.NodeType, &ts, &summary, &tags, &topics, &files, &tools, &models, &d.Importance, &d.Archived); err != nil {
			return nil, fmt.Errorf("store: unable to read a node for search: %w", err)
		}
		d.Item, d.Time, d.Title = NodeItem(d.NodeID), parseISOTime(ts), summary
		d.URI = link.Node(d.NodeID).String()
		d.Tags = append(lines(tags), lines(topics)...)
		d.Files = lines(files)
		d.Tools, d.Models = lines(tools), lines(models)
		d.Text = strings.Join([]string{summary, strings.ReplaceAll(tags, "\n", " "), strings.ReplaceAll(topics, "\n", " "), strings.ReplaceAll(files, "\n", " ")}, "\n")
		out[d.NodeID] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read nodes for search: %w", err)
	}
	// Degree and relation types.
	erows, err := (cachedDB{src.s}).QueryContext(ctx, `SELECT x.value, e.type FROM json_each(?) x JOIN edges e ON e.source_id = x.value
		UNION ALL SELECT x.value, e.type FROM json_each(?) x JOIN edges e ON e.target_id = x.value`, string(list), string(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the edges of nodes for search: %w", err)
	}
	defer erows.Close()
	for erows.Next() {
		var id, typ string
		if err := erows.Scan(&id, &typ); err != nil {
			return nil, fmt.Errorf("store: unable to read an edge for search: %w", err)
		}
		d, ok := out[id]
		if !ok {
			continue
		}
		d.Degree++
		if !containsString(d.Relations, typ) {
			d.Relations = append(d.Relations, typ)
		}
		out[id] = d
	}
	return out, erows.Err()
}

// entryFacets reads an entry's tools and model from its JSON, in each
// format's shape: a tool result's tool name (pi's message.toolName; what
// the Claude Code and Codex readers derived from the call, kept in the
// entry's meta), the names of an assistant message's calls (pi's toolCall
// and Claude Code's tool_use blocks, a Codex function_call or
// custom_tool_call line), and the message's model (pi, Claude Code; a Codex
// line names none: an assistant line of a Codex session that used one model
// takes that model, one that used several none).
const entryFacets = `coalesce(json_extract(unpack_raw(e.raw), '$.message.toolName'),
			CASE WHEN e.meta <> '' THEN json_extract(e.meta, '$.toolName') END, ''),
		coalesce((SELECT group_concat(json_extract(c.value, '$.name'), char(10)) FROM json_each(unpack_raw(e.raw), '$.message.content') c
			WHERE json_type(unpack_raw(e.raw), '$.message.content') = 'array' AND json_extract(c.value, '$.type') IN ('toolCall', 'tool_use')),
			CASE WHEN json_extract(unpack_raw(e.raw), '$.payload.type') IN ('function_call', 'custom_tool_call') THEN json_extract(unpack_raw(e.raw), '$.payload.name') END, ''),
		coalesce(json_extract(unpack_raw(e.raw), '$.message.model'),
			CASE WHEN s.format = 'codex' AND e.role = 'assistant' AND json_array_length(s.meta, '$.models') = 1
				THEN json_extract(s.meta, '$.models[0]') END, '')`

func (src *SearchSource) entryDocs(ctx context.Context, pks []int64, facets bool) ([]search.Doc, error) {
	if len(pks) == 0 {
		return nil, nil
	}
	list, _ := json.Marshal(pks)
	fc := `'', '', ''`
	if facets {
		fc = entryFacets
	}
	rows, err := (cachedDB{src.s}).QueryContext(ctx, `SELECT e.pk, e.entry_id, e.seq, e.type, e.role, e.timestamp, e.text, s.id, s.cwd,
		CASE WHEN s.name <> '' THEN s.name ELSE s.file_name END, `+fc+`,
		coalesce((SELECT n.id FROM segments g JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			WHERE g.session_pk = e.session_pk AND g.start_seq <= e.seq AND g.end_seq >= e.seq LIMIT 1), '')
	FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE e.pk IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read entries for search: %w", err)
	}
	defer rows.Close()
	var out []search.Doc
	for rows.Next() {
		d := search.Doc{Kind: search.KindEntry}
		var pk int64
		var seq int
		var entryID, typ, ts, session, toolName, toolCalls, model string
		if err := rows.Scan(&pk, &entryID, &seq, &typ, &d.Role, &ts, &d.Text, &d.SessionID, &d.Project, &session, &toolName, &toolCalls, &model, &d.NodeID); err != nil {
			return nil, fmt.Errorf("store: unable to read an entry for search: %w", err)
		}
		d.Item, d.Time = EntryItem(pk), parseISOTime(ts)
		d.URI = link.Entry(d.SessionID, entryID).String()
		what := typ
		if d.Role != "" {
			what = d.Role
		}
		d.Title = fmt.Sprintf("%s · %s #%d", session, what, seq)
		if toolName != "" {
			d.Tools = append(d.Tools, toolName)
		}
		d.Tools = append(d.Tools, lines(toolCalls)...)
		if model != "" {
			d.Models = []string{model}
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// TermStats implements search.TermStats from the keyword index: how many
// entries hold each term, among how many entries it has counted (zero
// before RefreshSearchIndex first ran).
func (src *SearchSource) TermStats(ctx context.Context, terms []string) (map[string]int64, int64, error) {
	st, err := readIndexState(ctx, cachedDB{src.s})
	if err != nil {
		return nil, 0, fmt.Errorf("store: %w", err)
	}
	p := &searchPlan{terms: map[string]termInfo{}}
	if err := p.loadTerms(ctx, cachedDB{src.s}, terms); err != nil {
		return nil, 0, fmt.Errorf("store: %w", err)
	}
	out := make(map[string]int64, len(terms))
	for t, ti := range p.terms {
		out[t] = ti.df
	}
	return out, st.docs, nil
}

// VocabularyStamp implements search.Vocabulary: it changes whenever the
// keyword index's terms do (a refresh moves indexed_to; a rebuild resets
// it).
func (src *SearchSource) VocabularyStamp(ctx context.Context) (string, error) {
	st, err := readIndexState(ctx, cachedDB{src.s})
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return fmt.Sprintf("%p/%d/%d/%d", src.s, st.indexedTo, st.docs, st.tokens), nil
}

// Vocabulary implements search.Vocabulary: every term of the keyword index
// (the entries up to its indexed_to) with its entry count, in term order.
func (src *SearchSource) Vocabulary(ctx context.Context) ([]search.TermCount, error) {
	rows, err := (cachedDB{src.s}).QueryContext(ctx, `SELECT term, df FROM search_terms`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the keyword index's terms: %w", err)
	}
	defer rows.Close()
	var out []search.TermCount
	for rows.Next() {
		var t search.TermCount
		if err := rows.Scan(&t.Term, &t.DF); err != nil {
			return nil, fmt.Errorf("store: unable to read the keyword index's terms: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Holding implements search.Holding: up to n entries that pass f and hold
// any of terms (keyword-index terms, each matched as an FTS5 phrase),
// newest first, unranked: the caller chose the terms by their counts.
func (src *SearchSource) Holding(ctx context.Context, terms []string, f search.Filter, n int) ([]string, error) {
	kf := keywordFilter(f)
	if len(terms) == 0 || n <= 0 || !kf.wants(search.KindEntry) {
		return nil, nil
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	match := strings.Join(quoted, " OR ")
	query, args := `SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid DESC LIMIT ?`, []any{match, n}
	if kf.entryFiltered() {
		cond, cargs := kf.entrySQL()
		query = `SELECT e.pk FROM entries_fts JOIN entries e ON e.pk = entries_fts.rowid JOIN sessions s ON s.pk = e.session_pk
			WHERE entries_fts MATCH ?` + cond + ` ORDER BY e.pk DESC LIMIT ?`
		args = append(append([]any{match}, cargs...), n)
	}
	rows, err := (cachedDB{src.s}).QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to find the entries holding %d terms: %w", len(terms), err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			return nil, fmt.Errorf("store: unable to find the entries holding %d terms: %w", len(terms), err)
		}
		out = append(out, EntryItem(pk))
	}
	return out, rows.Err()
}
