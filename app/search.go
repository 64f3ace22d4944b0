package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rhizome/backend/link"
	"rhizome/backend/search"
	"rhizome/backend/summary"
	"rhizome/store"
)

// Search is full-text search over the summaries items show (session titles
// and summaries, segment summaries, a person's edits among them), node
// summaries, tags, topics and files touched, the text of every entry, and
// loom trees and nodes and notes; and the picker's search for any item to
// link to (Items).
type Search struct {
	c *core
}

// Search limits: the default number of hits and the most a query returns.
const (
	defaultSearchLimit = 50
	maxSearchLimit     = 500
	// sessionHitLimit bounds the sessions found by their title or summary,
	// listed before the other hits.
	sessionHitLimit = 5
)

// Query searches for q, any text: words are all required, "quoted words" a
// phrase, the last word also matches as a prefix; operators are taken
// literally. It returns at most limit hits (50 when limit <= 0, at most 500):
// first the sessions whose title or summary matches (kind "session", best
// first, opening the session's first segment), then the nodes, entries,
// loom trees, loom nodes and notes, best first (bm25), each with the item
// to open (uri: an entry hit names the exact entry) and, for nodes and
// entries, the node. A node hit is titled by the summary the node shows and
// is also found by it (a person's edit, a model's summary); an entry hit
// names its session by its title. Nodes consolidation archived, and their
// entries, are left out (the Memory view's hybrid search brings them back).
// No match gives [].
func (s *Search) Query(q string, limit int) ([]SearchHit, error) {
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	ctx := s.c.context()
	archived, err := s.c.store.ArchivedNodeIDs(ctx)
	if err != nil {
		return nil, err
	}
	hits, err := s.c.store.SearchWith(ctx, q, store.SearchFilter{ExcludeArchived: len(archived) > 0}, limit)
	if err != nil {
		return nil, err
	}
	var found []store.SummaryRow
	if match := store.MatchQuery(q); match != "" {
		if found, err = s.c.store.SearchSummaries(ctx, match, limit); err != nil {
			return nil, err
		}
	}
	matcher := search.NewMatcher(search.ParseQuery(q), nil)
	snippet := func(text string) string {
		return search.Snippet(text, matcher.Find(text).Hits, search.SnippetTokens, store.SnippetStart, store.SnippetEnd)
	}

	out := make([]SearchHit, 0, len(hits)+len(found))
	nodeHit := map[string]bool{}
	var edited []store.SummaryRow // segments found by a summary their node's own text lacks
	for _, r := range found {
		switch summary.Kind(r.Kind) {
		case summary.KindSession:
			if countKind(out, "session") >= sessionHitLimit {
				continue
			}
			segs, err := s.c.store.Segments(ctx, r.Subject)
			if err != nil {
				continue // a session gone since: nothing to open
			}
			open := ""
			for _, sg := range segs {
				if !archived[sg.NodeID] {
					open = sg.NodeID
					break
				}
			}
			if open == "" {
				continue // no segments, or all of them archived
			}
			text := r.Shown.Title + ". " + r.Shown.Text
			out = append(out, SearchHit{Kind: "session", URI: link.Session(r.Subject).String(), NodeID: open, SessionID: r.Subject,
				Title: r.Shown.Title, Snippet: snippet(text)})
		case summary.KindSegment:
			edited = append(edited, r)
		}
	}

	// Titles: nodes by the summary they show, sessions by theirs.
	var nodeIDs, sessionIDs []string
	for _, h := range hits {
		nodeIDs = append(nodeIDs, h.NodeID)
		sessionIDs = append(sessionIDs, h.SessionID)
	}
	nodeSums, err := s.c.store.SummariesOf(ctx, string(summary.KindSegment), nodeIDs)
	if err != nil {
		return nil, err
	}
	sesSums, err := s.c.store.SummariesOf(ctx, string(summary.KindSession), sessionIDs)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		title := h.Title
		switch h.Kind {
		case "node":
			nodeHit[h.NodeID] = true
			if r := nodeSums[h.NodeID]; r != nil && r.Shown.Text != "" {
				title = r.Shown.Text
			}
		case "entry":
			if r := sesSums[h.SessionID]; r != nil && r.Shown.Title != "" {
				title = r.Shown.Title + " · " + entryWhat(h)
			}
		}
		out = append(out, SearchHit{Kind: h.Kind, URI: h.Item.String(), Within: h.Within, NodeID: h.NodeID, SessionID: h.SessionID,
			Title: title, Snippet: h.Snippet, Score: h.Score})
	}
	// Segments whose shown summary matched but whose node did not (the
	// node's text is the offline summary): after the rest.
	for _, r := range edited {
		if nodeHit[r.Subject] || archived[r.Subject] {
			continue
		}
		n, err := s.c.store.Node(ctx, r.Subject)
		if err != nil {
			continue
		}
		out = append(out, SearchHit{Kind: "node", URI: link.Node(r.Subject).String(), NodeID: r.Subject, SessionID: n.SessionID, Title: r.Shown.Text, Snippet: snippet(r.Shown.Text)})
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Picker limits: items of each kind by default, and at most.
const (
	defaultPickerLimit = 6
	maxPickerLimit     = 50
)

// Items finds items to link to, for the picker ("Link to…", [[mentions]]):
// at most limit of each kind (6 when limit <= 0, at most 50), grouped by
// kind (nodes, sessions, loom trees, loom nodes, notes, entries, projects),
// best first within a kind. kinds narrows them (link kinds: "node",
// "session", "loom", "loomNode", "note", "entry", "project"; none = all).
// Sessions and projects match on name and path, the rest on their text; a
// URI finds its item alone; an empty query gives the newest sessions and
// loom trees. Errors: an unknown kind.
func (s *Search) Items(q string, kinds []string, limit int) ([]ItemHit, error) {
	if limit <= 0 {
		limit = defaultPickerLimit
	}
	limit = min(limit, maxPickerLimit)
	var ks []link.Kind
	for _, k := range kinds {
		if !slices.Contains(store.PickerKinds, link.Kind(k)) {
			return nil, fmt.Errorf("app: kinds: unknown item kind %q (want node, knowledge, session, loom, loomNode, note, reasoning, reasoningNode, entry or project)", k)
		}
		ks = append(ks, link.Kind(k))
	}
	hits, err := s.c.store.SearchItems(s.c.context(), strings.TrimSpace(q), ks, limit)
	if err != nil {
		return nil, err
	}
	out := make([]ItemHit, 0, len(hits))
	for _, h := range hits {
		out = append(out, ItemHit{Item: s.c.itemView(h.ItemRecord), Snippet: h.Snippet})
	}
	return out, nil
}

// countKind counts the hits of kind.
func countKind(hits []SearchHit, kind string) int {
	n := 0
	for _, h := range hits {
		if h.Kind == kind {
			n++
		}
	}
	return n
}

// entryWhat is an entry hit's "user #12": its role (else its type) and seq.
func entryWhat(h store.SearchHit) string {
	what := h.Type
	if h.Role != "" {
		what = h.Role
	}
	return what + " #" + strconv.Itoa(h.EntrySeq)
}
