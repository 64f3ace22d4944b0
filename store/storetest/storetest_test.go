package storetest

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"rhizome/store"
)

// A copied library is the library store.Open makes of a missing file: the
// same schema, object for object (every migration applied), the user's
// alone, and a copy of its own for each call.
func TestPathIsANewLibrary(t *testing.T) {
	a, b := Path(t), Path(t)
	if a == b {
		t.Fatalf("two calls share %s", a)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat %v, %v: want mode 0600", fi, err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	st, err := store.Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	want, got := schema(t, fresh), schema(t, a)
	if len(want) < 20 || len(got) != len(want) {
		t.Fatalf("%d schema objects in the copy, %d in a new library", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("schema object %d: %q, want %q", i, got[i], want[i])
		}
	}
	if st, err := store.Open(a); err != nil {
		t.Errorf("open the copy: %v", err)
	} else {
		st.Close()
	}
}

// schema lists the library's schema objects, its user_version and the
// migrations it records.
func schema(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	var applied string
	if err := db.QueryRow(`SELECT group_concat(version) FROM (SELECT version FROM schema_migrations ORDER BY version)`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	out := []string{"user_version " + v, "migrations " + applied}
	rows, err := db.Query(`SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
