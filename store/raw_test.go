package store

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rhizome/backend/pisession/pitest"
)

// Every line of the real sample sessions is kept as it is (short) or
// compressed (long), and comes back byte for byte, through Go and through
// SQL's unpack_raw; the long ones take at most two thirds of their bytes.
func TestRawPackedComesBackExactly(t *testing.T) {
	var lines [][]byte
	for _, p := range pitest.Samples() {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
		f.Close()
	}
	s, err := Open(filepath.Join(t.TempDir(), "library.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var arena []byte
	var long, packed int
	for i, l := range lines {
		v, a := packRaw(arena, l)
		arena = a
		var stored []byte
		switch x := v.(type) {
		case string:
			if len(l) >= rawPackMin && i%50 == 0 {
				t.Logf("line %d of %d bytes kept as it is (it does not shrink)", i, len(l))
			}
			stored = []byte(x)
		case []byte:
			long += len(l)
			packed += len(x)
			stored = bytes.Clone(x)
		}
		back, err := unpackRaw(stored)
		if err != nil || !bytes.Equal(back, l) {
			t.Fatalf("line %d (%d bytes) came back %d bytes: %v", i, len(l), len(back), err)
		}
		var viaSQL string
		if err := s.db.QueryRow(`SELECT unpack_raw(?)`, v).Scan(&viaSQL); err != nil || viaSQL != string(l) {
			t.Fatalf("line %d through unpack_raw: %v", i, err)
		}
	}
	if long == 0 || packed*3 > long*2 {
		t.Errorf("long lines: %d bytes compressed to %d", long, packed)
	}
	t.Logf("%d lines; the long ones, %d bytes, compressed to %d (%.0f %%)", len(lines), long, packed, 100*float64(packed)/float64(long))
	// A damaged one says so, in Go and in SQL.
	v, _ := packRaw(nil, bytes.Repeat([]byte(`{"a":"bcdefgh"}`), 100))
	bad := bytes.Clone(v.([]byte))
	bad = bad[:len(bad)/2]
	if _, err := unpackRaw(bad); !errors.Is(err, errRawPacked) {
		t.Errorf("a cut compressed object: %v", err)
	}
	var x string
	if err := s.db.QueryRow(`SELECT unpack_raw(?)`, bad).Scan(&x); err == nil {
		t.Error("unpack_raw of a cut compressed object: no error")
	}
}

// No stored value makes unpackRaw panic.
func FuzzUnpackRaw(f *testing.F) {
	v, _ := packRaw(nil, bytes.Repeat([]byte(`{"role":"user","text":"hello"}`), 40))
	f.Add(v.([]byte))
	f.Add([]byte(`{"type":"message"}`))
	f.Add(rawPackMagic)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = unpackRaw(b)
	})
}
