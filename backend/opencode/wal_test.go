package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// folderState is a folder's files (not its sub-folders) with their sizes
// and modification times: what a read must leave as it found it.
func folderState(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		if e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = info.ModTime().UTC().Format(time.RFC3339Nano) + " " + info.Mode().String() + " " + strconv.FormatInt(info.Size(), 10)
	}
	return out
}

// walAtRest puts the copy of the database at path in WAL mode as OpenCode
// leaves it once it has quit: the mode set, then its last connection
// closed, which moves the log into the file and removes the -wal and -shm
// files.
func walAtRest(t *testing.T, path string) {
	t.Helper()
	w := writer(t, path, "wal")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + ext); err == nil {
			t.Fatalf("%s left by OpenCode's last connection", filepath.Base(path+ext))
		}
	}
	var v [2]byte
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(v[:], 18); err != nil || v != [2]byte{2, 2} {
		t.Fatalf("header versions %v (%v): not WAL", v, err)
	}
}

// TestWALReadLeavesFolderAsFound: a WAL database no program has open
// (OpenCode quit) is read (checked, listed, every session exported) without
// a file created, removed or touched in its folder, the database's bytes
// and time included; a read-only reader with locks would leave an empty
// -wal and a 32 KiB -shm behind (SQLite cannot checkpoint read-only, so it
// does not remove them). The reading is the one the same database gives in
// rollback-journal mode.
func TestWALReadLeavesFolderAsFound(t *testing.T) {
	path := copyHome(t, false)
	walAtRest(t, path)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	before := folderState(t, dir)
	bytesBefore, _ := os.ReadFile(path)

	ctx := context.Background()
	d := openDB(t, path)
	if err := d.Check(ctx); err != nil {
		t.Fatal(err)
	}
	ss, err := d.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.SessionIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	for _, s := range ss {
		docs[s.ID] = mustExport(t, d, s.ID)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if after := folderState(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("the folder changed:\nbefore %v\nafter  %v", before, after)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, bytesBefore) {
		t.Error("the database's bytes changed")
	}

	want, wantSS := realDocs(t)
	if !reflect.DeepEqual(ss, wantSS) {
		t.Errorf("sessions %+v\nin rollback-journal mode %+v", ss, wantSS)
	}
	var wantIDs []string
	for _, s := range wantSS {
		wantIDs = append(wantIDs, s.ID)
	}
	slices.Sort(wantIDs)
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("SessionIDs %v, want %v", ids, wantIDs)
	}
	for id, doc := range want {
		if !bytes.Equal(docs[id], doc) {
			t.Errorf("%s: the export differs from the rollback-journal one at byte %d", id, firstDiff(docs[id], doc))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestImmutableReadDroppedWhenWritten: OpenCode starts while a database
// at rest is read (no lock is taken then) and commits a turn to its log:
// the reading made without locks, which cannot see the log, is dropped and
// made again with locks, which sees the turn. When OpenCode wrote and quit
// within the read (its last connection moved the log into the file while
// the reading may have been under way), the reading is dropped too and
// made again without locks (the database is at rest again), leaving no
// -wal or -shm file. What OpenCode wrote is all there afterwards.
func TestImmutableReadDroppedWhenWritten(t *testing.T) {
	x := readExpected(t)
	for _, quit := range []bool{false, true} {
		path := copyHome(t, false)
		walAtRest(t, path)
		d := openDB(t, path)
		ctx := context.Background()
		count := func(q interface {
			QueryRowContext(context.Context, string, ...any) *sql.Row
		}) int {
			var n int
			if err := q.QueryRowContext(ctx, `SELECT count(*) FROM message WHERE session_id = ?`, x.Session).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		n0 := count(d.imm)
		var w *sql.DB
		calls, n := 0, 0
		err := d.read(ctx, "counting", func(tx *sql.Tx) error {
			calls++
			if calls == 1 {
				w = writer(t, path, "")
				appendTurn(t, w, x.Session, "msg_zzzz00000001", "prt_zzzz00000001", 1796290999000)
				if quit {
					w.Close() // the last connection: the log moved into the file
				}
			}
			var err error
			err = tx.QueryRowContext(ctx, `SELECT count(*) FROM message WHERE session_id = ?`, x.Session).Scan(&n)
			if calls == 1 {
				return nil // what the reading without locks met does not matter: it is dropped
			}
			return err
		})
		if err != nil || calls != 2 || n != n0+1 {
			t.Errorf("quit %v: %d readings (%v), %d messages; want 2, the second seeing %d", quit, calls, err, n, n0+1)
		}
		if quit {
			// At rest again: read again without locks, nothing left behind.
			for _, ext := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(path + ext); err == nil {
					t.Errorf("%s left behind", filepath.Base(path+ext))
				}
			}
		}
		w.Close()
		if after := count(openDB(t, path).db); after != n0+1 {
			t.Errorf("quit %v: %d messages in the database, OpenCode wrote %d", quit, after, n0+1)
		}
	}
}
