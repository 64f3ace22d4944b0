package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"rhizome/backend/link"
	"rhizome/backend/search"
)

// Snippet markers: a match in SearchHit.Snippet lies between SnippetStart
// and SnippetEnd.
const (
	SnippetStart = "\u0001"
	SnippetEnd   = "\u0002"
)

// SearchHit is one full-text match: a node (its summary, tags, topics or
// files) or an entry (its text), with the node to show for it; or one of
// the items search_items holds (Kind "loom", "loomNode", "note",
// "summary"; see searchItems).
type SearchHit struct {
	Kind      string // "node" or "entry"
	NodeID    string // the node, or the node of the entry's segment
	SessionID string
	Title     string
	Snippet   string  // plain text, matches between SnippetStart and SnippetEnd
	Score     float64 // bm25, positive: higher is better
	EntrySeq  int     // entries: the entry's seq
	EntryPK   int64   // entries: the entry's key (search items "entry:<key>")
	Role      string  // entries: the message role, else ""
	Type      string  // entries: the entry type; nodes: the node type
	Timestamp string  // entries: the entry's time; nodes: the segment start
	// Item is what the hit is: the node, the entry (its session and entry
	// id), or the loom tree, loom node, note or summarised item of an item
	// hit (search_items.go). Zero for an entry without an id.
	Item link.Item
	// Within is, for a loom node, its tree's title; for a summary, the
	// summarised item's kind. Else "".
	Within string
}

// MatchQuery turns what a person typed into a safe FTS5 query: every word
// becomes a quoted term, "quoted text" a phrase, all of them required, and
// the last word also matches as a prefix (search while typing). FTS5 syntax
// in the input (AND, NEAR, *, :, ^, parentheses, quotes) is taken literally,
// so any string is a valid query. It returns "" when nothing searchable is
// left. Search itself reads queries with search.ParseQuery, which splits
// words as the index does and rewrites prefixes to the library's terms.
func MatchQuery(q string) string {
	var parts []string
	addPhrase := func(words string, prefix bool) {
		// Keep only what the tokenizer indexes; an empty phrase matches
		// nothing and would hide the other terms.
		if !strings.ContainsFunc(words, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			return
		}
		p := `"` + strings.ReplaceAll(words, `"`, `""`) + `"`
		if prefix {
			p += "*"
		}
		parts = append(parts, p)
	}
	search.Lex(q, addPhrase)
	return strings.Join(parts, " ")
}

// SearchFilter narrows a search; empty fields do not filter. From and To
// are ISO 8601 dates or times compared with the entry's time (a node's: its
// segment start); a date-only To includes that whole day.
type SearchFilter struct {
	Kinds     []string // "node", "entry", and the item kinds of search_items ("loom", "loomNode", "note", "summary"); none: all
	Project   string   // the session's working directory
	SessionID string
	Roles     []string // entries: message roles (user, assistant, toolResult, ...)
	NodeTypes []string // nodes: node types (coding, debugging, ...)
	From, To  string
	// AnyWord ranks the items holding any of the query's words (stopwords
	// aside) by bm25, instead of those holding all of them: the retrieval a
	// hybrid ranking starts from.
	AnyWord bool
	// KeysOnly makes entry hits carry their key (EntryPK), kind and score
	// alone, without the text, title, snippet and node that showing them
	// takes: the hybrid search reads what it scores itself (Docs).
	KeysOnly bool
	// ExcludeArchived leaves out the nodes consolidation archived
	// (memory_state) and their entries, in the query itself: a search asks
	// for limit hits and gets limit live ones.
	ExcludeArchived bool
}

func (f SearchFilter) wants(kind string) bool {
	return len(f.Kinds) == 0 || containsString(f.Kinds, kind)
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// entrySQL returns the WHERE conditions (each starting with " AND") and
// their arguments for entries e of sessions s; nodeSQL the same for nodes n.
func (f SearchFilter) entrySQL() (string, []any) {
	cond, args := f.whereSQL("s.cwd", "e.role", f.Roles, "e.timestamp")
	if f.ExcludeArchived {
		cond += ` AND NOT EXISTS (SELECT 1 FROM segments g JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			JOIN memory_state m ON m.item = 'rhizome:node/' || n.id AND m.archived = 1
			WHERE g.session_pk = e.session_pk AND g.start_seq <= e.seq AND g.end_seq >= e.seq)`
	}
	return cond, args
}

func (f SearchFilter) nodeSQL() (string, []any) {
	cond, args := f.whereSQL("n.project", "n.type", f.NodeTypes, "n.timestamp")
	if f.ExcludeArchived {
		cond += ` AND NOT EXISTS (SELECT 1 FROM memory_state m WHERE m.item = 'rhizome:node/' || n.id AND m.archived = 1)`
	}
	return cond, args
}

// whereSQL is the filter's conditions over the columns named: the project,
// one of values in column in (none: any), and the time range.
func (f SearchFilter) whereSQL(project, column string, values []string, timestamp string) (string, []any) {
	var b strings.Builder
	var args []any
	if f.Project != "" {
		b.WriteString(` AND ` + project + ` = ?`)
		args = append(args, f.Project)
	}
	if f.SessionID != "" {
		b.WriteString(` AND s.id = ?`)
		args = append(args, f.SessionID)
	}
	if len(values) > 0 {
		b.WriteString(` AND ` + column + ` IN (?` + strings.Repeat(`, ?`, len(values)-1) + `)`)
		for _, v := range values {
			args = append(args, v)
		}
	}
	from, to := f.timeBounds()
	if from != "" {
		b.WriteString(` AND ` + timestamp + ` >= ?`)
		args = append(args, from)
	}
	if to != "" {
		b.WriteString(` AND ` + timestamp + ` <= ?`)
		args = append(args, to)
	}
	return b.String(), args
}

func (f SearchFilter) timeBounds() (from, to string) {
	from, to = f.From, f.To
	if len(to) == len("2006-01-02") {
		to += "T99" // the whole day: any time on it sorts before this
	}
	return from, to
}

func (f SearchFilter) entryFiltered() bool {
	return f.ExcludeArchived || f.Project != "" || f.SessionID != "" || len(f.Roles) > 0 || f.From != "" || f.To != ""
}

// Search runs the query q over nodes and entries and returns at most limit
// hits, best first (bm25). An empty query gives no hits. See SearchWith.
func (s *Store) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	return s.SearchWith(ctx, q, SearchFilter{}, limit)
}

// keywordTuning is how the keyword search trades exactness for speed. See
// the package comment of backend/search for the design these numbers
// belong to.
type keywordTuning struct {
	// exactLimit: a query whose most selective clause is held by at most
	// this many entries is ranked exactly by FTS5's bm25 over all its
	// matches (a few milliseconds); above it, from the champion lists.
	exactLimit int64
	// common: a term held by more entries keeps a champion list. Not above
	// exactLimit, so that every query too broad to rank exactly has a
	// champion list to start from.
	common int64
	// champions is how many entries a champion list keeps.
	champions int
	// recent is how many of the newest matching entries a query too broad
	// to rank exactly also ranks, besides the champions: the entries the
	// champion lists cannot know yet (imported since the keyword index was
	// refreshed) and conjunctions of common words that no single word's
	// champions hold.
	recent int
	// nodes bounds the node matches a query ranks: the newest ones. A
	// library has about one node per 250 entries, so this is exact up to
	// some 125,000 entries' worth of matching nodes; beyond, a broad query
	// ranks its newest 500 node matches (in 100,000 nodes, ranking 2,000 cost
	// a hybrid search 6 ms of its 15 ms p50). Node champion lists would lift
	// this; they are not built yet.
	nodes int
	// prefixTerms is how many of the library's terms a prefix stands for
	// (the most frequent ones), as a search engine rewrites a prefix query
	// to its top terms.
	prefixTerms int
	// chunk is how many entries one RefreshSearchIndex transaction reads.
	chunk int
}

// tuning is the keyword search's; tests lower it to reach the common path on
// small libraries.
var tuning = keywordTuning{exactLimit: 3000, common: 3000, champions: 256, recent: 200, nodes: 500, prefixTerms: 24, chunk: 20000}

// SearchWith runs the query q (read by search.ParseQuery: words all
// required, "quoted" phrases, the last word also a prefix) over nodes and
// entries that pass f, and returns at most limit hits, best first by bm25
// (node and entry scores come from their own indexes, merged as they are),
// and over loom trees, loom nodes, notes and summaries (searchItems) unless
// f filters by what only sessions have.
//
// Entries are ranked in one of two ways (see backend/search's package
// comment): when the query's most selective clause is held by at most
// 3,000 entries, FTS5 ranks every match by bm25 (exact); when every clause
// is common, the candidates are the champion lists of the query's terms (the
// entries where each weighs most), the 200 newest matches, and the entries imported since the keyword index was last
// refreshed, and they are ranked by the same bm25 formula computed here from
// their text: the best of those, in a few milliseconds, rather than every one
// of 100,000 matches. A prefix (the last word) stands for the 24 most
// frequent terms of the library it begins (see keywordTuning). Snippets are made here from
// the hits' text, in FTS5's snippet format.
func (s *Store) SearchWith(ctx context.Context, q string, f SearchFilter, limit int) ([]SearchHit, error) {
	hits := []SearchHit{}
	query := search.ParseQuery(q)
	if f.AnyWord {
		query = query.AnyWord()
	}
	if query.Empty() || limit <= 0 {
		return hits, nil
	}
	plan, err := s.planSearch(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search for %q: %w", q, err)
	}
	if f.wants(HitNode) {
		nodeHits, err := s.searchNodes(ctx, plan, f, limit)
		if err != nil {
			return nil, fmt.Errorf("store: unable to search nodes for %q: %w", q, err)
		}
		hits = append(hits, nodeHits...)
	}
	if f.wants(HitEntry) {
		entryHits, err := s.searchEntries(ctx, plan, f, limit)
		if err != nil {
			return nil, fmt.Errorf("store: unable to search entries for %q: %w", q, err)
		}
		hits = append(hits, entryHits...)
	}
	if kinds := f.itemKinds(); len(kinds) > 0 {
		itemHits, err := s.searchItems(ctx, plan, kinds, limit)
		if err != nil {
			return nil, fmt.Errorf("store: unable to search loom trees, notes and summaries for %q: %w", q, err)
		}
		hits = append(hits, itemHits...)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// searchPlan is a parsed query with what the keyword index knows of its
// terms.
type searchPlan struct {
	query      search.Query
	expansions map[string][]string // prefix -> the terms it stands for
	terms      map[string]termInfo // every term of the query and of the expansions
	match      string              // the FTS5 MATCH expression, prefixes rewritten
	matcher    *search.Matcher
	state      indexState
	docs       int64   // entries in the full-text index (FTS5's count)
	avgdl      float64 // their average length in tokens (FTS5's)
}

type termInfo struct {
	df        int64
	champions []champion
}

func (p *searchPlan) expand(prefix string) []string { return p.expansions[prefix] }

// clauseDF estimates how many entries hold clause c: a term's count, the
// smallest of a phrase's terms, the sum over a prefix's terms. known is false
// when a term is not in the keyword index.
func (p *searchPlan) clauseDF(c search.Clause) (df int64, known bool) {
	df, known = -1, true
	for i, t := range c.Terms {
		var n int64
		if i == len(c.Terms)-1 && c.Prefix {
			ts := p.expansions[t]
			if len(ts) == 0 {
				return 0, false
			}
			for _, e := range ts {
				n += p.terms[e].df
			}
		} else {
			ti, ok := p.terms[t]
			if !ok {
				known = false
			}
			n = ti.df
		}
		if df < 0 || n < df {
			df = n
		}
	}
	return df, known
}

// planSearch reads what the keyword index knows of the query's terms and
// the full-text index's totals.
func (s *Store) planSearch(ctx context.Context, q search.Query) (*searchPlan, error) {
	p := &searchPlan{query: q, expansions: map[string][]string{}, terms: map[string]termInfo{}}
	var err error
	if p.state, err = readIndexState(ctx, cachedDB{s}); err != nil {
		return nil, err
	}
	if p.docs, p.avgdl, err = ftsTotals(ctx, cachedDB{s}, "entries_fts"); err != nil {
		return nil, err
	}
	want := q.AllTerms()
	if p.state.indexedTo > 0 {
		for _, c := range q.Clauses {
			if !c.Prefix {
				continue
			}
			prefix := c.Terms[len(c.Terms)-1]
			exp, err := prefixTerms(ctx, cachedDB{s}, prefix)
			if err != nil {
				return nil, err
			}
			p.expansions[prefix] = exp
			want = append(want, exp...)
		}
		if err := p.loadTerms(ctx, cachedDB{s}, want); err != nil {
			return nil, err
		}
	}
	p.match = q.FTS5(p.expand)
	p.matcher = search.NewMatcher(q, p.expand)
	return p, nil
}

// prefixTerms returns the tuning.prefixTerms terms of the keyword index that
// begin with prefix and are held by the most entries, the prefix itself
// first when it is a term.
func prefixTerms(ctx context.Context, db queryer, prefix string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT term FROM search_terms WHERE term >= ? AND term < ?
		ORDER BY term = ? DESC, df DESC LIMIT ?`, prefix, prefix+"\U0010FFFF", prefix, tuning.prefixTerms)
	if err != nil {
		return nil, fmt.Errorf("unable to expand prefix %q: %w", prefix, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("unable to expand prefix %q: %w", prefix, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (p *searchPlan) loadTerms(ctx context.Context, db queryer, terms []string) error {
	list, _ := json.Marshal(terms)
	rows, err := db.QueryContext(ctx, `SELECT term, df, top FROM search_terms WHERE term IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return fmt.Errorf("unable to read the keyword index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var ti termInfo
		var top []byte
		if err := rows.Scan(&t, &ti.df, &top); err != nil {
			return fmt.Errorf("unable to read the keyword index: %w", err)
		}
		if ti.champions, err = decodeChampions(top); err != nil {
			return fmt.Errorf("unable to read the champion list of %q: %w", t, err)
		}
		p.terms[t] = ti
	}
	return rows.Err()
}

// idf is each clause's IDF for the common path, from the keyword index's
// counts (a phrase: as its rarest term, an upper bound of its count),
// extrapolated to the entries imported since the index was refreshed.
func (p *searchPlan) idf() []float64 {
	out := make([]float64, len(p.query.Clauses))
	for i, c := range p.query.Clauses {
		df, _ := p.clauseDF(c)
		if p.state.docs > 0 && p.docs > p.state.docs {
			df = int64(math.Round(float64(df) * float64(p.docs) / float64(p.state.docs)))
		}
		out[i] = search.IDF(p.docs, df)
	}
	return out
}

// exact reports whether the query is selective enough to rank every match.
func (p *searchPlan) exact() bool {
	if p.state.indexedTo == 0 {
		return true // no keyword index yet: FTS5 alone, as before
	}
	best, sum := int64(-1), int64(0)
	for _, c := range p.query.Clauses {
		df, known := p.clauseDF(c)
		if !known {
			df = 0 // a term the index has not seen: rare, or new since the last refresh
		}
		if best < 0 || df < best {
			best = df
		}
		sum += df
	}
	if p.query.Any {
		return sum <= tuning.exactLimit
	}
	return best <= tuning.exactLimit
}

// entryCandidate is an entry being ranked.
type entryCandidate struct {
	pk    int64
	score float64
	text  string
	match search.Match
}

func (s *Store) searchEntries(ctx context.Context, p *searchPlan, f SearchFilter, limit int) ([]SearchHit, error) {
	var cands []entryCandidate
	var err error
	if p.exact() {
		if p.byText() {
			cands, err = s.rankFewByText(ctx, p, f, limit)
		} else {
			cands, err = s.rankEntriesExact(ctx, p, f, limit)
		}
	} else {
		cands, err = s.rankEntriesCommon(ctx, p, f, limit)
	}
	if err != nil {
		return nil, err
	}
	if f.KeysOnly {
		hits := make([]SearchHit, len(cands))
		for i, c := range cands {
			hits[i] = SearchHit{Kind: HitEntry, EntryPK: c.pk, Score: c.score}
		}
		return hits, nil
	}
	return s.entryHits(ctx, p, cands)
}

// byText reports whether an exact ranking is cheaper from the matches'
// text than through FTS5's bm25: when the matches are few (at most
// textRankLimit, the rarest clause's count) but a clause is common, bm25()
// would read that clause's whole doclist to count it ("agent poem": the
// 111,714 entries holding agent, 8 ms), while the keyword index knows the
// count. Words only: a phrase's count is not in the index. A prefix is
// scored as one phrase, as FTS5 scores "poe"*.
func (p *searchPlan) byText() bool {
	if p.state.indexedTo == 0 || p.query.Any {
		return false
	}
	least, most := int64(-1), int64(0)
	for _, c := range p.query.Clauses {
		if len(c.Terms) > 1 {
			return false // a phrase's count is FTS5's to make
		}
		df, known := p.clauseDF(c)
		if !known {
			return false
		}
		if least < 0 || df < least {
			least = df
		}
		most = max(most, df)
	}
	return least <= textRankLimit && most > tuning.common
}

// textRankLimit is the most matches byText ranks from their text.
const textRankLimit = 500

// rankFewByText ranks every match of a selective query by bm25 computed from
// the matches' text.
func (s *Store) rankFewByText(ctx context.Context, p *searchPlan, f SearchFilter, limit int) ([]entryCandidate, error) {
	rows, err := (cachedDB{s}).QueryContext(ctx, `SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?`, p.match, 4*textRankLimit)
	if err != nil {
		return nil, err
	}
	var pks []int64
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			rows.Close()
			return nil, err
		}
		pks = append(pks, pk)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(pks) == 4*textRankLimit { // more than the counts said: let FTS5 rank them all
		return s.rankEntriesExact(ctx, p, f, limit)
	}
	return s.rankByText(ctx, p, f, pks, limit)
}

// rankEntriesExact ranks every match with FTS5's bm25.
func (s *Store) rankEntriesExact(ctx context.Context, p *searchPlan, f SearchFilter, limit int) ([]entryCandidate, error) {
	var rows *sql.Rows
	var err error
	if f.entryFiltered() {
		cond, args := f.entrySQL()
		lo, hi, err := s.entryRange(ctx, f)
		if err != nil {
			return nil, err
		}
		rows, err = (cachedDB{s}).QueryContext(ctx, `SELECT x.rowid, x.r FROM (SELECT rowid, bm25(entries_fts) AS r
			FROM entries_fts WHERE entries_fts MATCH ? AND rowid BETWEEN ? AND ?) x JOIN entries e ON e.pk = x.rowid JOIN sessions s ON s.pk = e.session_pk
			WHERE 1 = 1`+cond+` ORDER BY x.r LIMIT ?`, append(append([]any{p.match, lo, hi}, args...), limit)...)
		if err != nil {
			return nil, err
		}
	} else {
		rows, err = (cachedDB{s}).QueryContext(ctx, `SELECT rowid, rank FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rank LIMIT ?`, p.match, limit)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entryCandidate
	for rows.Next() {
		var c entryCandidate
		if err := rows.Scan(&c.pk, &c.score); err != nil {
			return nil, err
		}
		c.score = -c.score
		out = append(out, c)
	}
	return out, rows.Err()
}

// entryRange returns the smallest and largest pk of the entries a filter
// by project or session can keep (the whole range without one): the
// full-text match of a filtered search reads only the index between them
// (FTS5 seeks a rowid range), and scores the matches of the other projects
// no more. A project imported at once holds one narrow range.
func (s *Store) entryRange(ctx context.Context, f SearchFilter) (lo, hi int64, err error) {
	lo, hi = math.MinInt64, math.MaxInt64
	var q string
	var arg any
	switch {
	case f.SessionID != "":
		q, arg = `SELECT min(e.pk), max(e.pk) FROM sessions s JOIN entries e ON e.session_pk = s.pk WHERE s.id = ?`, f.SessionID
	case f.Project != "":
		q, arg = `SELECT min(e.pk), max(e.pk) FROM sessions s JOIN entries e ON e.session_pk = s.pk WHERE s.cwd = ?`, f.Project
	default:
		return lo, hi, nil
	}
	var min, max sql.NullInt64
	if err := (cachedDB{s}).QueryRowContext(ctx, q, arg).Scan(&min, &max); err != nil {
		return 0, 0, fmt.Errorf("store: unable to find the entries of %v: %w", arg, err)
	}
	if !min.Valid {
		return 1, 0, nil // nothing to find
	}
	return min.Int64, max.Int64, nil
}

// rankEntriesCommon ranks the champions of the query's terms, the newest
// matches and the entries not in the keyword index yet, by bm25 computed
// from their text.
func (s *Store) rankEntriesCommon(ctx context.Context, p *searchPlan, f SearchFilter, limit int) ([]entryCandidate, error) {
	seen := map[int64]bool{}
	var pks []int64
	add := func(pk int64) {
		if !seen[pk] {
			seen[pk] = true
			pks = append(pks, pk)
		}
	}
	// Champions: for each clause, those of its rarest term (a prefix: the
	// best of those of the terms it stands for, by their weight times the
	// term's IDF). Every match holds the query's rarest clause, whose IDF
	// weighs most: its tuning.champions best; of the other clauses, a
	// quarter as many.
	type clauseChampions struct {
		df int64
		cs []champion
	}
	var per []clauseChampions
	for _, c := range p.query.Clauses {
		var terms []string
		var bestDF int64 = -1
		for i, t := range c.Terms {
			if i == len(c.Terms)-1 && c.Prefix {
				var sum int64
				for _, e := range p.expansions[t] {
					sum += p.terms[e].df
				}
				if bestDF < 0 || sum < bestDF {
					bestDF, terms = sum, p.expansions[t]
				}
				continue
			}
			if ti := p.terms[t]; bestDF < 0 || ti.df < bestDF {
				bestDF, terms = ti.df, []string{t}
			}
		}
		var cs []champion
		for _, t := range terms {
			ti := p.terms[t]
			idf := search.IDF(p.docs, ti.df)
			for _, ch := range ti.champions {
				cs = append(cs, champion{pk: ch.pk, weight: ch.weight * float32(idf)})
			}
		}
		if len(terms) > 1 {
			cs = bestChampions(cs)
		}
		per = append(per, clauseChampions{bestDF, cs})
	}
	sort.SliceStable(per, func(i, j int) bool { return per[i].df < per[j].df })
	for i, pc := range per {
		n := len(pc.cs)
		if i > 0 && !p.query.Any {
			n = min(n, tuning.champions/4)
		}
		for _, ch := range pc.cs[:n] {
			add(ch.pk)
		}
	}
	// The newest matches, and those not in the keyword index yet.
	cond, args := "", []any(nil)
	join := ""
	if f.entryFiltered() {
		cond, args = f.entrySQL()
		join = ` JOIN entries e ON e.pk = entries_fts.rowid JOIN sessions s ON s.pk = e.session_pk`
	}
	var last int64
	if err := (cachedDB{s}).QueryRowContext(ctx, `SELECT coalesce(max(pk), 0) FROM entries`).Scan(&last); err != nil {
		return nil, err
	}
	windows := []int64{0}
	if last > p.state.indexedTo {
		windows = append(windows, p.state.indexedTo)
	}
	for _, after := range windows {
		rows, err := (cachedDB{s}).QueryContext(ctx, `SELECT entries_fts.rowid FROM entries_fts`+join+`
			WHERE entries_fts MATCH ? AND entries_fts.rowid > ?`+cond+` ORDER BY entries_fts.rowid DESC LIMIT ?`,
			append(append([]any{p.match, after}, args...), tuning.recent)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var pk int64
			if err := rows.Scan(&pk); err != nil {
				rows.Close()
				return nil, err
			}
			add(pk)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return s.rankByText(ctx, p, f, pks, limit)
}

// rankByText ranks the entries pks (those that pass f and hold the query)
// by bm25 computed from their text with the keyword index's counts.
func (s *Store) rankByText(ctx context.Context, p *searchPlan, f SearchFilter, pks []int64, limit int) ([]entryCandidate, error) {
	cond, args := "", []any(nil)
	if f.entryFiltered() {
		cond, args = f.entrySQL()
	}
	idf := p.idf()
	list, _ := json.Marshal(pks)
	query := `SELECT e.pk, e.text FROM entries e`
	if f.entryFiltered() {
		query += ` JOIN sessions s ON s.pk = e.session_pk`
	}
	rows, err := (cachedDB{s}).QueryContext(ctx, query+` WHERE e.pk IN (SELECT value FROM json_each(?))`+cond,
		append([]any{string(list)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entryCandidate
	for rows.Next() {
		var c entryCandidate
		if err := rows.Scan(&c.pk, &c.text); err != nil {
			return nil, err
		}
		c.match = p.matcher.Find(c.text)
		if !c.match.All() && !(p.query.Any && c.match.Any()) {
			continue
		}
		c.score = c.match.Score(idf, p.avgdl)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].pk > out[j].pk
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// entryHits reads what a hit shows for each ranked entry, in order.
func (s *Store) entryHits(ctx context.Context, p *searchPlan, cands []entryCandidate) ([]SearchHit, error) {
	if len(cands) == 0 {
		return []SearchHit{}, nil
	}
	pks := make([]int64, len(cands))
	for i, c := range cands {
		pks[i] = c.pk
	}
	list, _ := json.Marshal(pks)
	rows, err := (cachedDB{s}).QueryContext(ctx, `SELECT e.pk, e.seq, e.entry_id, e.type, e.role, e.timestamp, e.text, s.id,
		CASE WHEN s.name <> '' THEN s.name ELSE s.file_name END,
		coalesce((SELECT n.id FROM segments g JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			WHERE g.session_pk = e.session_pk AND g.start_seq <= e.seq AND g.end_seq >= e.seq LIMIT 1), '')
	FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE e.pk IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type shown struct {
		hit  SearchHit
		text string
	}
	byPK := make(map[int64]shown, len(cands))
	for rows.Next() {
		var h SearchHit
		var session, text, entryID string
		if err := rows.Scan(&h.EntryPK, &h.EntrySeq, &entryID, &h.Type, &h.Role, &h.Timestamp, &text, &h.SessionID, &session, &h.NodeID); err != nil {
			return nil, err
		}
		if entryID != "" {
			h.Item = link.Entry(h.SessionID, entryID)
		}
		what := h.Type
		if h.Role != "" {
			what = h.Role
		}
		h.Kind = HitEntry
		h.Title = fmt.Sprintf("%s · %s #%d", session, what, h.EntrySeq)
		byPK[h.EntryPK] = shown{h, text}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]SearchHit, 0, len(cands))
	for _, c := range cands {
		sh, ok := byPK[c.pk]
		if !ok {
			continue // deleted since it was ranked
		}
		h := sh.hit
		h.Score = c.score
		m := c.match
		if m.TF == nil {
			m = p.matcher.Find(sh.text)
		}
		h.Snippet = search.Snippet(sh.text, m.Hits, search.SnippetTokens, SnippetStart, SnippetEnd)
		out = append(out, h)
	}
	return out, nil
}

// searchNodes ranks the nodes matching the query by FTS5's bm25 (summary
// weighs 4, tags and topics 2, files 1), among the 500 newest matches (see
// keywordTuning.nodes).
func (s *Store) searchNodes(ctx context.Context, p *searchPlan, f SearchFilter, limit int) ([]SearchHit, error) {
	cond, args := f.nodeSQL()
	rows, err := (cachedDB{s}).QueryContext(ctx, `SELECT n.id, s.id, n.type, n.timestamp, n.summary, n.tags, n.topics, n.files, x.r
		FROM (SELECT rowid, bm25(nodes_fts, 4.0, 2.0, 2.0, 1.0) AS r FROM nodes_fts WHERE nodes_fts MATCH ?
			ORDER BY rowid DESC LIMIT ?) x
		JOIN nodes n ON n.pk = x.rowid JOIN sessions s ON s.pk = n.session_pk
		WHERE 1 = 1`+cond+` ORDER BY x.r LIMIT ?`, append(append([]any{p.match, tuning.nodes}, args...), limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SearchHit{}
	for rows.Next() {
		h := SearchHit{Kind: HitNode}
		var summary, tags, topics, files string
		var rank float64
		if err := rows.Scan(&h.NodeID, &h.SessionID, &h.Type, &h.Timestamp, &summary, &tags, &topics, &files, &rank); err != nil {
			return nil, err
		}
		h.Title, h.Score, h.Item = summary, -rank, link.Node(h.NodeID)
		h.Snippet = bestFieldSnippet(p.matcher, summary, tags, topics, files)
		out = append(out, h)
	}
	return out, rows.Err()
}

// bestFieldSnippet is the snippet of the field with the most hits (the
// first on a tie), as FTS5's snippet() over all columns chooses.
func bestFieldSnippet(m *search.Matcher, fields ...string) string {
	best, bestHits := 0, -1
	var bestMatch search.Match
	for i, f := range fields {
		mt := m.Find(f)
		if len(mt.Hits) > bestHits {
			best, bestHits, bestMatch = i, len(mt.Hits), mt
		}
	}
	return search.Snippet(fields[best], bestMatch.Hits, search.SnippetTokens, SnippetStart, SnippetEnd)
}

// ftsTotals reads an FTS5 index's row count and average row length (tokens,
// all columns) from its averages record, as bm25() does.
func ftsTotals(ctx context.Context, db queryer, table string) (docs int64, avgdl float64, err error) {
	var block []byte
	err = db.QueryRowContext(ctx, `SELECT block FROM `+table+`_data WHERE id = 1`).Scan(&block)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("unable to read the totals of %s: %w", table, err)
	}
	n, off := sqliteVarint(block)
	var tokens int64
	for off < len(block) {
		v, k := sqliteVarint(block[off:])
		if k == 0 {
			break
		}
		tokens += int64(v)
		off += k
	}
	if n == 0 {
		return 0, 0, nil
	}
	return int64(n), float64(tokens) / float64(n), nil
}

// sqliteVarint decodes SQLite's big-endian variable-length integer (FTS5's
// records use it) and returns it with its length in bytes (0: truncated).
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
