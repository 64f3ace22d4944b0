package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rhizome/app/ingest"
	"rhizome/backend/session"
)

// More malformed lines than the reader keeps: the report, its totals and
// the library say the true number, the reasons kept are a bounded sample
// (the first ones, in file order), and an append adds to the true number.
func TestMalformedLinesCountedPastTheSample(t *testing.T) {
	full, _ := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	lines := bytes.SplitAfter(full, []byte("\n"))
	const bad = session.MaxStoredProblems + 250
	var b bytes.Buffer
	b.Write(lines[0]) // the header
	for i := 0; i < bad; i++ {
		fmt.Fprintf(&b, "garbage %d {{\n", i)
	}
	for _, ln := range lines[1:200] {
		b.Write(ln)
	}
	p := filepath.Join(t.TempDir(), "noisy.jsonl")
	os.WriteFile(p, b.Bytes(), 0o644)

	l := newTestLib(t)
	rep := l.importPaths(t, p)
	fr := rep.Files[0]
	if fr.Status != ingest.StatusImported || fr.Entries != 199 {
		t.Fatalf("%s: %d entries", fr.Status, fr.Entries)
	}
	if fr.MalformedCount != bad || rep.Totals.Malformed != bad {
		t.Errorf("report says %d malformed lines (totals %d), want %d", fr.MalformedCount, rep.Totals.Malformed, bad)
	}
	if len(fr.MalformedLines) != session.MaxStoredProblems || fr.MalformedLines[0].Line != 2 {
		t.Errorf("%d malformed lines listed, first at line %d; want the first %d, from line 2",
			len(fr.MalformedLines), fr.MalformedLines[0].Line, session.MaxStoredProblems)
	}
	ss, _ := l.Library.Sessions("")
	if len(ss) != 1 || ss[0].Malformed != bad {
		t.Errorf("library says %d malformed lines, want %d", ss[0].Malformed, bad)
	}
	if n := l.tableCounts(t)["import_problems"]; n != session.MaxStoredProblems {
		t.Errorf("%d problems stored, want the sample of %d", n, session.MaxStoredProblems)
	}

	// pi goes on writing: 3 more malformed lines among new entries.
	for i, ln := range lines[200:260] {
		if i%20 == 0 {
			b.WriteString("more garbage {{\n")
		}
		b.Write(ln)
	}
	os.WriteFile(p, b.Bytes(), 0o644)
	rep = l.importPaths(t, p)
	fr = rep.Files[0]
	if fr.Status != ingest.StatusAppended || fr.MalformedCount != bad+3 || rep.Totals.Malformed != bad+3 {
		t.Errorf("append: %s, %d malformed lines (totals %d), want appended, %d", fr.Status, fr.MalformedCount, rep.Totals.Malformed, bad+3)
	}
	ss, _ = l.Library.Sessions("")
	if ss[0].Malformed != bad+3 {
		t.Errorf("library says %d malformed lines after the append, want %d", ss[0].Malformed, bad+3)
	}
	// Unchanged: the stored count is reported.
	if fr := l.importPaths(t, p).Files[0]; fr.Status != ingest.StatusUnchanged || fr.MalformedCount != bad+3 {
		t.Errorf("again: %s, %d malformed lines, want unchanged, %d", fr.Status, fr.MalformedCount, bad+3)
	}
}
