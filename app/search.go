package app

// Search is full-text search over node summaries, tags, topics and files
// touched, and over the text of every entry.
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
// best first (bm25), each with the node to open: the entry's segment node for
// entry hits. Nodes consolidation archived, and their entries, are left out
// (the Memory view's hybrid search brings them back). No match gives [].
func (s *Search) Query(q string, limit int) ([]SearchHit, error) {
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	archived, err := s.c.store.ArchivedNodeIDs(s.c.context())
	if err != nil {
		return nil, err
	}
	ask := limit
	if len(archived) > 0 {
		ask = min(2*limit+20, 2*maxSearchLimit)
	}
	hits, err := s.c.store.Search(s.c.context(), q, ask)
	if err != nil {
		return nil, err
	}
	out := make([]SearchHit, 0, min(len(hits), limit))
	for _, h := range hits {
		if archived[h.NodeID] {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, SearchHit{Kind: h.Kind, NodeID: h.NodeID, SessionID: h.SessionID, Title: h.Title, Snippet: h.Snippet, Score: h.Score})
	}
	return out, nil
}
