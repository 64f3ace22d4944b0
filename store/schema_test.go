package store

import (
	"fmt"
	"strings"
	"testing"
)

// No two indexes of a table index the same columns under the same
// condition: every row written is written into each (entries had two on
// (session_pk, entry_id), from migrations 0030 and 0060, until 0101).
func TestNoDuplicateIndexes(t *testing.T) {
	s, _ := openTemp(t)
	rows, err := s.db.Query(`SELECT name, tbl_name, coalesce(sql, '') FROM sqlite_master WHERE type = 'index'`)
	if err != nil {
		t.Fatal(err)
	}
	type index struct{ name, table, sql string }
	var all []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.name, &ix.table, &ix.sql); err != nil {
			t.Fatal(err)
		}
		all = append(all, ix)
	}
	rows.Close()
	seen := map[string]string{}
	for _, ix := range all {
		cols, err := s.db.Query(fmt.Sprintf(`SELECT name FROM pragma_index_info('%s') ORDER BY seqno`, ix.name))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for cols.Next() {
			var c *string
			if err := cols.Scan(&c); err != nil {
				t.Fatal(err)
			}
			if c == nil {
				names = append(names, "<expr>")
			} else {
				names = append(names, *c)
			}
		}
		cols.Close()
		where := ""
		if i := strings.Index(strings.ToUpper(ix.sql), " WHERE "); i >= 0 {
			where = strings.TrimSpace(ix.sql[i:])
		}
		key := ix.table + "(" + strings.Join(names, ",") + ")" + where
		if other, ok := seen[key]; ok {
			t.Errorf("indexes %s and %s both index %s", other, ix.name, key)
		}
		seen[key] = ix.name
	}
	if len(seen) < 10 {
		t.Fatalf("only %d indexes read: the query is wrong", len(seen))
	}
}
