package app

import (
	"fmt"
	"slices"
	"strings"

	"rhizome/backend/link"
	"rhizome/store"
)

// Search is full-text search over node summaries, tags, topics and files
// touched, the text of every entry, and loom trees and nodes, notes and
// summaries; and the picker's search for any item to link to (Items).
type Search struct {
	c *core
}

// Search limits: the default number of hits and the most a query returns.
const (
	defaultSearchLimit = 50
	maxSearchLimit     = 500
)

// Query searches for q, any text: words are all required, "quoted words" a
// phrase, the last word also matches as a prefix; operators are taken
// literally. It returns at most limit hits (50 when limit <= 0, at most 500),
// best first (bm25), each with the item to open (uri: an entry hit names
// the exact entry) and, for nodes and entries, the node. No match gives [].
func (s *Search) Query(q string, limit int) ([]SearchHit, error) {
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	hits, err := s.c.store.Search(s.c.context(), q, limit)
	if err != nil {
		return nil, err
	}
	out := make([]SearchHit, 0, len(hits))
	for _, h := range hits {
		out = append(out, SearchHit{Kind: h.Kind, URI: h.Item.String(), Within: h.Within, NodeID: h.NodeID, SessionID: h.SessionID,
			Title: h.Title, Snippet: h.Snippet, Score: h.Score})
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
			return nil, fmt.Errorf("app: kinds: unknown item kind %q (want node, session, loom, loomNode, note, entry or project)", k)
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
