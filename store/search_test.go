package store

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"rhizome/backend/search"
)

var v3Dir = "../backend/segment/testdata/v3/sessions"

// realLibrary imports the three real sample sessions and the five pi v3
// fixtures into a new library.
func realLibrary(t *testing.T) *Store {
	t.Helper()
	s, _ := openTemp(t)
	files := []string{
		filepath.Join(sampleDir, "session-with-compaction.jsonl"),
		filepath.Join(sampleDir, "large-session.jsonl"),
		filepath.Join(sampleDir, "compact-with-images.jsonl"),
	}
	v3, _ := filepath.Glob(filepath.Join(v3Dir, "*.jsonl"))
	for _, f := range append(files, v3...) {
		importFile(t, s, f)
	}
	return s
}

func importFile(t *testing.T, s *Store, f string) {
	t.Helper()
	tx, _, err := importSession(t, s, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// setTuning lowers the keyword search's thresholds for the test, so that the
// real sessions (2,632 entries) hold common terms.
func setTuning(t *testing.T, k keywordTuning) {
	old := tuning
	tuning = k
	t.Cleanup(func() { tuning = old })
}

var smallTuning = keywordTuning{exactLimit: 40, common: 40, champions: 64, recent: 20, nodes: 2000, prefixTerms: 24, chunk: 500}

// The Go tokenizer counts the same terms in the same entries as FTS5's
// unicode61 remove_diacritics 2 tokenizer: over every entry of the real
// sessions, and over made-up text with accents, other scripts and marks.
func TestTokenizeMatchesFTS5(t *testing.T) {
	s := realLibrary(t)
	ctx := context.Background()
	goDocs := map[string]int{}
	rows, err := s.db.Query(`SELECT text FROM entries`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var text string
		rows.Scan(&text)
		seen := map[string]bool{}
		for _, term := range search.Terms(text) {
			if !seen[term] {
				seen[term] = true
				goDocs[term]++
			}
		}
	}
	rows.Close()
	if _, err := s.db.Exec(`CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, entries_fts, row)`); err != nil {
		t.Fatal(err)
	}
	ftsDocs := map[string]int{}
	rows, err = s.db.QueryContext(ctx, `SELECT term, doc FROM temp.v`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var n int
		rows.Scan(&term, &n)
		ftsDocs[term] = n
	}
	rows.Close()
	if len(ftsDocs) < 5000 {
		t.Fatalf("only %d terms in the real sessions", len(ftsDocs))
	}
	var diff []string
	for term, n := range ftsDocs {
		if goDocs[term] != n {
			diff = append(diff, term)
		}
	}
	for term := range goDocs {
		if _, ok := ftsDocs[term]; !ok {
			diff = append(diff, term)
		}
	}
	sort.Strings(diff)
	for _, d := range diff[:min(len(diff), 20)] {
		t.Errorf("term %q: FTS5 %d entries, Go %d", d, ftsDocs[d], goDocs[d])
	}

	// Made-up text: every token, in order.
	texts := []string{
		"Café CRÈME brûlée naïve Ångström ÆSIR œuvre Straße ﬁle",
		"snake_case kebab-case dotted.name path/to/file.go x=1+2 #tag @user",
		"日本語のテキスト 中文 한국어 Ελληνικά Кириллица עברית العربية",
		"emoji 😀 joins ⚙️ gear; marks e\u0301 a\u0300b \u0301start",
		"digits ١٢٣ ⅣⅫ ² ½ 3.14 0xFF v1.2.3 _under_ 'quoted'",
		"private \ue000use\ue001 tab\tnew\nline\u00a0nbsp\u2003em",
	}
	if _, err := s.db.Exec(`CREATE VIRTUAL TABLE temp.made USING fts5 (x, tokenize = 'unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE temp.madev USING fts5vocab(temp, made, instance)`); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if _, err := s.db.Exec(`INSERT INTO temp.made (rowid, x) VALUES (?, ?)`, i+1, text); err != nil {
			t.Fatal(err)
		}
	}
	for i, text := range texts {
		rows, err := s.db.Query(`SELECT term FROM temp.madev WHERE doc = ? ORDER BY offset`, i+1)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var term string
			rows.Scan(&term)
			want = append(want, term)
		}
		rows.Close()
		if got := search.Terms(text); !slices.Equal(got, want) {
			t.Errorf("%q:\n Go   %q\n FTS5 %q", text, got, want)
		}
	}
}

// exactTop is FTS5's own ranking: the best n entries for match by bm25.
func exactTop(t *testing.T, s *Store, match string, n int) (pks []int64, scores []float64) {
	t.Helper()
	rows, err := s.db.Query(`SELECT rowid, -rank FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rank LIMIT ?`, match, n)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var sc float64
		rows.Scan(&pk, &sc)
		pks, scores = append(pks, pk), append(scores, sc)
	}
	return pks, scores
}

func entryHitsOf(t *testing.T, s *Store, q string, n int) []SearchHit {
	t.Helper()
	hits, err := s.SearchWith(context.Background(), q, SearchFilter{Kinds: []string{"entry"}}, n)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// sameScores reports whether the hits carry exactly the scores FTS5 ranks
// best (entries with equal scores may come in another order).
func sameScores(hits []SearchHit, want []float64) bool {
	if len(hits) != len(want) {
		return false
	}
	for i := range hits {
		if !closeTo(hits[i].Score, want[i]) {
			return false
		}
	}
	return true
}

// A query for one common word, too broad to rank every match, finds the
// same best entries with the same bm25 scores as FTS5 ranking all of them:
// the champion lists hold them.
func TestCommonWordRanksAsFTS5(t *testing.T) {
	setTuning(t, smallTuning)
	s := realLibrary(t)
	ctx := context.Background()
	rep, err := s.RefreshSearchIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entries != 2632 || rep.CommonTerms < 100 {
		t.Fatalf("refresh %+v", rep)
	}
	for _, word := range []string{"the", "agent", "file", "session", "compaction", "theme", "tool"} {
		plan, err := s.planSearch(ctx, search.ParseQuery(word+" "))
		if err != nil {
			t.Fatal(err)
		}
		if plan.exact() {
			t.Fatalf("%q: not common enough to take the champion path", word)
		}
		_, want := exactTop(t, s, `"`+word+`"`, 10)
		hits := entryHitsOf(t, s, word+" ", 10)
		if !sameScores(hits, want) {
			t.Errorf("%q: scores %v, FTS5 ranks %v", word, scoresOf(hits), want)
		}
		for _, h := range hits {
			if !strings.Contains(strings.ToLower(h.Snippet), SnippetStart+word+SnippetEnd) {
				t.Errorf("%q: snippet %q does not mark the word", word, h.Snippet)
			}
		}
	}
}

// ftsScores is FTS5's bm25 of each hit's entry.
func ftsScores(t *testing.T, s *Store, match string, hits []SearchHit) []float64 {
	t.Helper()
	var out []float64
	for _, h := range hits {
		var sc float64
		if err := s.db.QueryRow(`SELECT -bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ? AND rowid = ?`, match, h.EntryPK).Scan(&sc); err != nil {
			t.Fatal(err)
		}
		out = append(out, sc)
	}
	return out
}

func scoresOf(hits []SearchHit) []float64 {
	out := make([]float64, len(hits))
	for i, h := range hits {
		out[i] = h.Score
	}
	return out
}

// Every hit of a broad query of several words or a phrase holds every clause,
// and its score is FTS5's bm25 for it up to the phrase's IDF (estimated from
// its rarest word).
func TestCommonQueriesHoldEveryClause(t *testing.T) {
	setTuning(t, smallTuning)
	s := realLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"the agent ", `"the session" `, "read the file ", "theme sel"} {
		hits := entryHitsOf(t, s, q, 20)
		if len(hits) == 0 {
			t.Errorf("%q: no hits", q)
			continue
		}
		plan, _ := s.planSearch(ctx, search.ParseQuery(q))
		for _, h := range hits {
			var n int
			s.db.QueryRow(`SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ? AND rowid = ?`, plan.match, h.EntryPK).Scan(&n)
			if n != 1 {
				t.Errorf("%q: hit entry %d does not match %s", q, h.EntryPK, plan.match)
			}
		}
	}
	// "theme sel" stands for theme AND a term beginning with sel.
	for _, h := range entryHitsOf(t, s, "theme sel", 20) {
		if !strings.Contains(h.Snippet, SnippetStart+"sel") && !strings.Contains(strings.ToLower(h.Snippet), SnippetStart+"sel") {
			t.Errorf("theme sel: snippet %q marks no word beginning with sel", h.Snippet)
		}
	}
}

// Entries imported after the keyword index was refreshed are found (FTS5
// reads them until the next refresh), and a refresh merges them into the
// champion lists so that the ranking is FTS5's again.
func TestSearchFindsEntriesImportedSinceRefresh(t *testing.T) {
	setTuning(t, smallTuning)
	s, _ := openTemp(t)
	ctx := context.Background()
	importFile(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	importFile(t, s, filepath.Join(sampleDir, "large-session.jsonl"))
	importFile(t, s, filepath.Join(sampleDir, "compact-with-images.jsonl"))
	var firstNew int64
	s.db.QueryRow(`SELECT min(e.pk) FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.file_name = 'large-session.jsonl'`).Scan(&firstNew)

	word := "the"
	pks, want := exactTop(t, s, `"`+word+`"`, 10)
	if !slices.ContainsFunc(pks, func(pk int64) bool { return pk >= firstNew }) {
		t.Fatal("the best entries are all in the first session: the test no longer tests new entries")
	}
	k := smallTuning
	k.recent = 100000 // every new match: the ranking is then FTS5's
	tuning = k
	// The IDF is estimated until the refresh: the ranking is FTS5's.
	hits := entryHitsOf(t, s, word+" ", 10)
	if got := ftsScores(t, s, `"`+word+`"`, hits); !slices.EqualFunc(got, want, closeTo) {
		t.Errorf("before the refresh: the hits' FTS5 scores %v, FTS5 ranks %v", got, want)
	}
	tuning = smallTuning
	// Terms rare in the first session that the others make common: their
	// best entries from the first session must join their champion lists.
	before := map[string]int64{}
	rows, _ := s.db.Query(`SELECT term, df FROM search_terms WHERE df BETWEEN 3 AND ?`, smallTuning.common)
	for rows.Next() {
		var term string
		var df int64
		rows.Scan(&term, &df)
		before[term] = df
	}
	rows.Close()
	rep, err := s.RefreshSearchIndex(ctx)
	if err != nil || rep.Rebuilt || rep.Entries == 0 {
		t.Fatalf("refresh %+v %v", rep, err)
	}
	// Counted in several chunks, terms becoming common in a later one.
	if hits := entryHitsOf(t, s, word+" ", 10); !sameScores(hits, want) {
		t.Errorf("after the refresh: scores %v, FTS5 ranks %v", scoresOf(hits), want)
	}
	crossed := 0
	for term := range before {
		var df int64
		s.db.QueryRow(`SELECT df FROM search_terms WHERE term = ?`, term).Scan(&df)
		if df <= smallTuning.common {
			continue
		}
		pks, want := exactTop(t, s, `"`+term+`"`, 10)
		if !slices.ContainsFunc(pks, func(pk int64) bool { return pk < firstNew }) {
			continue
		}
		crossed++
		if hits := entryHitsOf(t, s, term+" ", 10); !sameScores(hits, want) {
			t.Errorf("%q, common since the refresh: scores %v, FTS5 ranks %v", term, scoresOf(hits), want)
		}
	}
	if crossed < 5 {
		t.Fatalf("%d terms became common with their best entries in the first session", crossed)
	}
	assertCountsAsFTS5(t, s)
}

// assertCountsAsFTS5 checks the keyword index counts what FTS5 indexes.
func assertCountsAsFTS5(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.db.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, entries_fts, row)`); err != nil {
		t.Fatal(err)
	}
	var bad int
	s.db.QueryRow(`SELECT count(*) FROM temp.v v LEFT JOIN search_terms t ON t.term = v.term WHERE t.df IS NOT v.doc`).Scan(&bad)
	var extra int
	s.db.QueryRow(`SELECT count(*) FROM search_terms WHERE term NOT IN (SELECT term FROM temp.v)`).Scan(&extra)
	if bad != 0 || extra != 0 {
		t.Errorf("keyword index: %d terms counted differently from FTS5, %d not in FTS5", bad, extra)
	}
}

// When a session's entries are deleted (its file rewritten), the next
// refresh starts the index again, so the counts are FTS5's.
func TestRefreshRebuildsAfterDeletes(t *testing.T) {
	setTuning(t, smallTuning)
	s := realLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	var pk int64
	s.db.QueryRow(`SELECT pk FROM sessions WHERE file_name = 'large-session.jsonl'`).Scan(&pk)
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ClearSession(pk); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.RefreshSearchIndex(ctx)
	if err != nil || !rep.Rebuilt {
		t.Fatalf("refresh %+v %v", rep, err)
	}
	assertCountsAsFTS5(t, s)
	// Nothing new: a refresh reads nothing.
	if rep, err := s.RefreshSearchIndex(ctx); err != nil || rep.Entries != 0 || rep.Rebuilt {
		t.Errorf("second refresh %+v %v", rep, err)
	}
}

// The last word matches as a prefix, standing for the library's terms it
// begins; filters keep only what they name.
func TestSearchPrefixAndFilters(t *testing.T) {
	s := realLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	hits := entryHitsOf(t, s, "compac", 5)
	if len(hits) != 5 {
		t.Fatalf("compac: %d hits", len(hits))
	}
	for _, h := range hits {
		if !strings.Contains(strings.ToLower(h.Snippet), SnippetStart+"compac") {
			t.Errorf("compac: snippet %q", h.Snippet)
		}
	}
	hits, err := s.SearchWith(ctx, "theme", SearchFilter{Roles: []string{"user"}}, 50)
	if err != nil || len(hits) == 0 {
		t.Fatalf("user filter: %v %v", hits, err)
	}
	for _, h := range hits {
		if h.Kind != "entry" && h.Kind != "node" || h.Kind == "entry" && h.Role != "user" {
			t.Errorf("user filter let %s %s through", h.Kind, h.Role)
		}
	}
	hits, _ = s.SearchWith(ctx, "theme", SearchFilter{Kinds: []string{"node"}}, 50)
	for _, h := range hits {
		if h.Kind != "node" {
			t.Errorf("node filter let an %s through", h.Kind)
		}
	}
	hits, _ = s.SearchWith(ctx, "theme", SearchFilter{Kinds: []string{"entry"}, From: "2099-01-01"}, 50)
	if len(hits) != 0 {
		t.Errorf("entries from 2099: %d hits", len(hits))
	}
	// A session's or a project's filter finds every entry of its own the
	// unfiltered search finds (the match reads only the range of the
	// entries it can keep: entryRange), and nothing else.
	all, err := s.SearchWith(ctx, "session", SearchFilter{Kinds: []string{"entry"}}, 5000)
	if err != nil || len(all) < 20 {
		t.Fatalf("unfiltered: %d hits, %v", len(all), err)
	}
	bySession := map[string]int{}
	for _, h := range all {
		bySession[h.SessionID]++
	}
	if len(bySession) < 2 {
		t.Fatalf("hits from %d sessions: the filter shows nothing", len(bySession))
	}
	for id, n := range bySession {
		hits, err := s.SearchWith(ctx, "session", SearchFilter{Kinds: []string{"entry"}, SessionID: id}, 5000)
		if err != nil || len(hits) != n {
			t.Errorf("session %s: %d hits, %d unfiltered; %v", id, len(hits), n, err)
		}
		for _, h := range hits {
			if h.SessionID != id {
				t.Errorf("session %s's filter let an entry of %s through", id, h.SessionID)
			}
		}
	}
	if hits, err := s.SearchWith(ctx, "session", SearchFilter{Project: "/nowhere"}, 50); err != nil || len(hits) != 0 {
		t.Errorf("a project with no session: %d hits, %v", len(hits), err)
	}
}

// The hybrid search's view of nodes and entries: a node's degree and edge
// types are its edges', an entry takes them from its segment's node, and
// its tools and model from its JSON.
func TestSearchSourceDocs(t *testing.T) {
	s := analyzedLibrary(t)
	ctx := context.Background()
	var nodeID string
	var pks []int64
	rows, _ := s.db.Query(`SELECT n.id, e.pk FROM nodes n JOIN segments g ON g.session_pk = n.session_pk AND g.idx = n.segment_idx
		JOIN entries e ON e.session_pk = g.session_pk AND e.seq BETWEEN g.start_seq AND g.end_seq
		WHERE n.id IN (SELECT source_id FROM edges) AND e.role = 'assistant' ORDER BY e.pk LIMIT 30`)
	for rows.Next() {
		var pk int64
		rows.Scan(&nodeID, &pk)
		pks = append(pks, pk)
	}
	rows.Close()
	if len(pks) < 2 {
		t.Fatal("no entries of a node with edges")
	}
	in, out, err := s.NodeEdges(ctx, nodeID)
	if err != nil {
		t.Fatal(err)
	}
	items := []string{NodeItem(nodeID)}
	for _, pk := range pks {
		items = append(items, EntryItem(pk))
	}
	docs, err := s.SearchSource().Docs(ctx, items, search.Filter{Tools: []string{"bash"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(items) {
		t.Fatalf("%d docs for %d items", len(docs), len(items))
	}
	n := docs[NodeItem(nodeID)]
	if n.Degree != len(in)+len(out) || len(n.Relations) == 0 || n.Time.IsZero() || n.Text == "" || n.URI != "rhizome:node/"+nodeID {
		t.Errorf("node doc: degree %d, want %d; %+v", n.Degree, len(in)+len(out), n)
	}
	if len(n.Tools) == 0 || len(n.Models) == 0 {
		t.Errorf("node doc without tools or models: %v %v", n.Tools, n.Models)
	}
	// A new version of the node: its facets follow (the update trigger).
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	node, err := tx.Node(nodeID)
	if err != nil {
		t.Fatal(err)
	}
	node.Content.ToolsUsed = []string{"grep"}
	var sessPK int64
	var idx int
	s.db.QueryRow(`SELECT session_pk, segment_idx FROM nodes WHERE id = ?`, nodeID).Scan(&sessPK, &idx)
	if err := tx.PutNode(sessPK, idx, node, TriggerReplace); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	again, _ := s.SearchSource().Docs(ctx, []string{NodeItem(nodeID)}, search.Filter{})
	if got := again[NodeItem(nodeID)].Tools; len(got) != 1 || got[0] != "grep" {
		t.Errorf("tools after a new version: %v", got)
	}
	tools := 0
	for _, pk := range pks {
		d := docs[EntryItem(pk)]
		if d.Degree != n.Degree || d.NodeID != nodeID || d.Role != "assistant" || len(d.Models) != 1 || !strings.HasPrefix(d.URI, "rhizome:entry/"+d.SessionID+"/") {
			t.Errorf("entry %d: degree %d node %s role %s models %v", pk, d.Degree, d.NodeID, d.Role, d.Models)
		}
		tools += len(d.Tools)
	}
	if tools == 0 {
		t.Error("no tool calls read from the assistant entries")
	}
}

// A selective query with a common word is ranked from its few matches' text
// (sparing FTS5's count of the common word's doclist), with FTS5's scores.
func TestMixedQueryRanksAsFTS5(t *testing.T) {
	setTuning(t, smallTuning)
	s := realLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"the poem ", "theme harmonious ", "file tmux ", "agent tmux "} {
		plan, err := s.planSearch(ctx, search.ParseQuery(q))
		if err != nil {
			t.Fatal(err)
		}
		if !plan.exact() || !plan.byText() {
			t.Fatalf("%q: exact %v, by text %v", q, plan.exact(), plan.byText())
		}
		_, want := exactTop(t, s, plan.match, 10)
		hits := entryHitsOf(t, s, q, 10)
		if len(want) == 0 || !sameScores(hits, want) {
			t.Errorf("%q: scores %v, FTS5 ranks %v", q, scoresOf(hits), want)
		}
	}
}
