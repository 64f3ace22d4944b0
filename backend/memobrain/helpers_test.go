package memobrain

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readExample reads MemoBrain's example shape (testdata/example_snapshot.json,
// wrapped) and returns the snapshot.
func readExample(t testing.TB) *Snapshot {
	t.Helper()
	s, err := ReadSnapshot(readFile(t, "example_snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeSnapshot(t testing.TB, s *Snapshot) []byte {
	t.Helper()
	b, err := WriteSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonEqual reports whether a and b are the same JSON value: objects
// compared by key, numbers by their text.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	decode := func(x []byte) any {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, x)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// golden compares got with testdata/golden/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func indentJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustPatch(t testing.TB, s string) MemoryPatch {
	t.Helper()
	p, err := ReadPatch([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustFlushAndFold(t testing.TB, s string) FlushAndFoldOp {
	t.Helper()
	f, err := ReadFlushAndFold([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
