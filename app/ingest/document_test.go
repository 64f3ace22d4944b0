package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"rhizome/backend/sessiondoc"
)

// A conversation read against a stored state leaves the messages that
// state holds undecoded (sessiondoc.Known); compared with another state
// (the library changed before the import decided), it is read again when
// that state does not hold them all, and stands when it does (a state
// that only grew).
func TestDocumentReadAgainAgainstAnotherState(t *testing.T) {
	const id = "1796293572120_9cho8"
	p := filepath.Join("..", "..", "backend", "cline", "testdata", "cline-home", "sessions", id, id+".messages.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := parseCline(b, p, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	same := sessiondoc.State{}.Diff(whole).Next
	all := sessiondoc.State{Keys: same.Keys, Fingerprint: "another reading of the same messages"}
	half := sessiondoc.State{Keys: all.Keys[:len(all.Keys)/2], Fingerprint: "older"}
	undecoded := func(j *job) int {
		n := 0
		for _, it := range j.doc.Items {
			if it.Entry == nil {
				n++
			}
		}
		return n
	}
	read := func(st sessiondoc.State) *job {
		j := &job{src: Source{path: p}, format: formatCline, docBytes: b}
		d, against, err := parseCline(b, p, "", nil, func(string) (sessiondoc.State, bool) { return st, true })
		if err != nil {
			t.Fatal(err)
		}
		j.doc, j.docAgainst = d, against
		return j
	}
	j := read(all)
	if n := undecoded(j); n != len(all.Keys) {
		t.Fatalf("read against the whole state: %d of %d undecoded", n, len(all.Keys))
	}
	if err := j.readDocumentAgainst(half); err != nil {
		t.Fatal(err)
	}
	if n := undecoded(j); n != len(half.Keys) {
		t.Errorf("against a state holding half: %d undecoded, want %d", n, len(half.Keys))
	}
	if ch := half.Diff(j.doc); len(ch.Fresh) != len(all.Keys)-len(half.Keys) {
		t.Errorf("%d fresh, want %d", len(ch.Fresh), len(all.Keys)-len(half.Keys))
	}
	if err := j.readDocumentAgainst(sessiondoc.State{}); err != nil {
		t.Fatal(err)
	}
	if n := undecoded(j); n != 0 {
		t.Errorf("against no state: %d undecoded", n)
	}
	// A reading against half stands for the whole state (it grew).
	j = read(half)
	before := j.doc
	if err := j.readDocumentAgainst(all); err != nil || j.doc != before {
		t.Errorf("read again against a state that grew: %v", err)
	}
	// Against the reading the library holds (the same fingerprint), the
	// document is not read; compared with any other state, it is.
	j = read(same)
	if !j.doc.Unread || len(j.doc.Items) != 0 || j.doc.Fingerprint != same.Fingerprint || j.doc.Header.ID != whole.Header.ID {
		t.Fatalf("against the same reading: %+v", j.doc)
	}
	if err := j.readDocumentAgainst(all); err != nil {
		t.Fatal(err)
	}
	if j.doc.Unread || undecoded(j) != len(all.Keys) {
		t.Errorf("an unread document compared with another state: unread %v, %d undecoded", j.doc.Unread, undecoded(j))
	}
}
