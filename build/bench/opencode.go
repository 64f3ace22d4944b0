package main

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"rhizome/backend/opencode"
)

// OpenCode's corpus: OpenCode keeps its sessions in one SQLite database, so
// its home cannot be copied file by file with new ids. The corpus is one
// database: the real one (backend/opencode/testdata/opencode-home, its
// tool-output/ beside it) with its sessions copied into it again and again,
// every session, message and part id new in each copy (in the columns and
// inside the rows' JSON: a task's child session, a message's parentID),
// each copy's times later, until the sessions' documents (what the import
// reads: opencode.DB.Export) hold the target's bytes. The import reads the
// database as `rhizome import ~/.local/share/opencode` does.

// openCodeIDRE matches OpenCode's ids: "ses_", "msg_" or "prt_", 12 hex
// digits and 14 base62 characters.
var openCodeIDRE = regexp.MustCompile(`\b(?:ses|msg|prt)_[0-9a-f]{12}[A-Za-z0-9]{14}\b`)

// openCodeTables are the tables a session's copy is made of, with the
// column that names the session (the session row's own id for "session").
var openCodeTables = []struct{ name, session string }{
	{"session", "id"}, {"message", "session_id"}, {"part", "session_id"}, {"todo", "session_id"}, {"event_sequence", "aggregate_id"},
}

// writeOpenCodeCorpus makes the corpus database in dst from the real home
// root (see above); it returns the sessions and their documents' bytes.
func writeOpenCodeCorpus(root, dst string, target int64) (sessions int, size int64, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	path := filepath.Join(dst, "opencode.db")
	n, once, err := openCodeDocBytes(path)
	if err != nil {
		return 0, 0, err
	}
	if once == 0 {
		return 0, 0, fmt.Errorf("corpus: no OpenCode session in %s", root)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	rows := map[string][][]any{}
	cols := map[string][]string{}
	for _, t := range openCodeTables {
		r, err := tx.Query(`SELECT * FROM ` + t.name)
		if err != nil {
			return 0, 0, fmt.Errorf("corpus: %s: %w", t.name, err)
		}
		cols[t.name], _ = r.Columns()
		for r.Next() {
			vals := make([]any, len(cols[t.name]))
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				r.Close()
				return 0, 0, err
			}
			rows[t.name] = append(rows[t.name], vals)
		}
		r.Close()
	}
	sessions, size = n, once
	for copyN := 1; size < target; copyN++ {
		remap := func(s string) string {
			return openCodeIDRE.ReplaceAllStringFunc(s, func(id string) string { return fmt.Sprintf("%s%06d", id[:len(id)-6], copyN) })
		}
		for _, t := range openCodeTables {
			q := `INSERT INTO ` + t.name + ` (` + strings.Join(cols[t.name], ", ") + `) VALUES (?` + strings.Repeat(", ?", len(cols[t.name])-1) + `)`
			for _, vals := range rows[t.name] {
				out := make([]any, len(vals))
				for i, v := range vals {
					switch x := v.(type) {
					case string:
						out[i] = remap(x)
					case []byte:
						out[i] = remap(string(x))
					case int64:
						if c := cols[t.name][i]; strings.HasPrefix(c, "time_") && x > 0 {
							x += int64(copyN) * 10_000_000 // each copy 10,000 s later
						}
						out[i] = x
					default:
						out[i] = v
					}
				}
				if _, err := tx.Exec(q, out...); err != nil {
					return 0, 0, fmt.Errorf("corpus: copy %d of %s: %w", copyN, t.name, err)
				}
			}
		}
		sessions += n
		size += once
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, err
	}
	return sessions, size, nil
}

// openCodeDocBytes exports every session of the database at path and
// returns the sessions and their documents' bytes.
func openCodeDocBytes(path string) (int, int64, error) {
	var n int
	var size int64
	err := eachOpenCodeDoc(path, func(id string, doc []byte) error {
		n++
		size += int64(len(doc))
		return nil
	})
	return n, size, err
}

// eachOpenCodeDoc calls f with every session of the OpenCode database at
// path and its document (opencode.DB.Export), as the import reads them.
func eachOpenCodeDoc(path string, f func(id string, doc []byte) error) error {
	d, err := opencode.OpenDB(path)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx := context.Background()
	ss, err := d.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range ss {
		doc, err := d.Export(ctx, s.ID)
		if err != nil {
			return err
		}
		if err := f(s.ID, doc); err != nil {
			return err
		}
	}
	return nil
}

// isOpenCodeDB tells the corpus's OpenCode database.
func isOpenCodeDB(p string) bool { return filepath.Base(p) == "opencode.db" }
