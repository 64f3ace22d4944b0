package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Snippet markers: a match in SearchHit.Snippet lies between SnippetStart
// and SnippetEnd.
const (
	SnippetStart = "\u0001"
	SnippetEnd   = "\u0002"
)

// SearchHit is one full-text match: a node (its summary, tags, topics or
// files) or an entry (its text), with the node to show for it.
type SearchHit struct {
	Kind      string // "node" or "entry"
	NodeID    string // the node, or the node of the entry's segment
	SessionID string
	Title     string
	Snippet   string  // plain text, matches between SnippetStart and SnippetEnd
	Score     float64 // -bm25: higher is better
	EntrySeq  int     // entries: the entry's seq
}

// MatchQuery turns what a person typed into a safe FTS5 query: every word
// becomes a quoted term, "quoted text" a phrase, all of them required, and
// the last word also matches as a prefix (search while typing). FTS5 syntax
// in the input (AND, NEAR, *, :, ^, parentheses, quotes) is taken literally,
// so any string is a valid query. It returns "" when nothing searchable is
// left.
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
	rest := q
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		if rest[0] == '"' {
			if end := strings.IndexByte(rest[1:], '"'); end >= 0 {
				addPhrase(rest[1:1+end], false)
				rest = rest[end+2:]
				continue
			}
			rest = rest[1:] // an unclosed quote: the words after it
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		rest = rest[end:]
		last := strings.TrimSpace(rest) == "" && !strings.HasSuffix(q, " ")
		addPhrase(word, last)
	}
	return strings.Join(parts, " ")
}

// Search runs the query q (as MatchQuery makes it safe) over nodes and
// entries and returns at most limit hits, best first (bm25). An empty query
// gives no hits.
func (s *Store) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	hits := []SearchHit{}
	match := MatchQuery(q)
	if match == "" || limit <= 0 {
		return hits, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, s.id, n.summary,
		snippet(nodes_fts, -1, char(1), char(2), '…', 24), bm25(nodes_fts, 4.0, 2.0, 2.0, 1.0) AS rank
	FROM nodes_fts JOIN nodes n ON n.pk = nodes_fts.rowid JOIN sessions s ON s.pk = n.session_pk
	WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search nodes for %q: %w", q, err)
	}
	for rows.Next() {
		h := SearchHit{Kind: "node"}
		var rank float64
		if err := rows.Scan(&h.NodeID, &h.SessionID, &h.Title, &h.Snippet, &rank); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: unable to read a node hit: %w", err)
		}
		h.Score = -rank
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to search nodes for %q: %w", q, err)
	}

	rows, err = s.db.QueryContext(ctx, `SELECT e.seq, e.type, e.role, s.id,
		CASE WHEN s.name <> '' THEN s.name ELSE s.file_name END,
		coalesce((SELECT n.id FROM segments g JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			WHERE g.session_pk = e.session_pk AND g.start_seq <= e.seq AND g.end_seq >= e.seq LIMIT 1), ''),
		snippet(entries_fts, 0, char(1), char(2), '…', 24), bm25(entries_fts) AS rank
	FROM entries_fts JOIN entries e ON e.pk = entries_fts.rowid JOIN sessions s ON s.pk = e.session_pk
	WHERE entries_fts MATCH ? ORDER BY rank LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search entries for %q: %w", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		h := SearchHit{Kind: "entry"}
		var typ, role, session string
		var rank float64
		if err := rows.Scan(&h.EntrySeq, &typ, &role, &h.SessionID, &session, &h.NodeID, &h.Snippet, &rank); err != nil {
			return nil, fmt.Errorf("store: unable to read an entry hit: %w", err)
		}
		what := typ
		if role != "" {
			what = role
		}
		h.Title = fmt.Sprintf("%s · %s #%d", session, what, h.EntrySeq)
		h.Score = -rank
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to search entries for %q: %w", q, err)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}
