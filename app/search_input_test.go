package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// Any input is a query the hybrid search answers (the Memory view, the
// command line and MCP ask it): an empty query, stop words or punctuation
// alone, 10,000 characters, unbalanced quotes and every FTS5 operator give
// a result or nothing, never an SQL error; words beside the operators are
// still found.
func TestHybridTakesAnyInput(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, filepath.Join("samples", "large-session.jsonl"))
	long := strings.Repeat("theme colors ", 800) // 10,400 characters
	for _, q := range []string{"", "   ", "the of and", "!!! ??? ...", `"unclosed theme`, `theme" colors"`, `AND OR NOT`,
		`NEAR(theme colors, 3)`, `theme*`, `^theme`, `col:theme`, `{a b}: c`, `(theme`, `theme)`, `-theme`, `+theme`,
		`'; DROP TABLE entries; --`, "\x00", long, `theme AND colors`} {
		res, err := l.Search.Hybrid(HybridQuery{Query: q, Limit: 5})
		if err != nil {
			t.Errorf("query %.40q: %v", q, err)
			continue
		}
		if res.Hits == nil {
			t.Errorf("query %.40q: hits null, want a list", q)
		}
		// "col:theme" is the phrase "col theme", as the index splits it.
		if strings.Contains(q, "theme") && q != "col:theme" && len(res.Hits) == 0 {
			t.Errorf("query %.40q found nothing, though its words are in the library", q)
		}
	}
}
