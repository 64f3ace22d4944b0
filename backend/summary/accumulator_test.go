package summary

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
)

// synthetic returns the i-th entry of an endless session: a user request,
// the assistant's edit of a new file, and its report, in turn.
func synthetic(i int) *session.Entry {
	e := &session.Entry{Seq: i, ID: fmt.Sprintf("%08x", i), Type: session.TypeMessage}
	n := i / 3
	switch i % 3 {
	case 0:
		e.Message = &session.Message{Role: session.RoleUser, Content: []session.Block{{Type: session.BlockText,
			Text: fmt.Sprintf("please add feature %d to the parser module, with tests\n```\n%s\n```", n, strings.Repeat("x", 2000))}}}
	case 1:
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("src/feature%d/parser.go", n), "content": strings.Repeat("y", 4000)})
		e.Message = &session.Message{Role: session.RoleAssistant, Content: []session.Block{{Type: session.BlockToolCall, Name: "write", Arguments: args}}}
	case 2:
		e.Message = &session.Message{Role: session.RoleAssistant, Content: []session.Block{{Type: session.BlockText,
			Text: fmt.Sprintf("Done. Added feature %d to the parser, with tests.", n)}}}
	}
	return e
}

// TestAccumulatorBounded: a session of 150,000 entries (50,000 requests,
// each editing a new file) leaves the accumulator with bounded state, and
// the heap does not grow with the session.
func TestAccumulatorBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	a := NewAccumulator()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for i := range 30_000 {
		a.Add(synthetic(i))
	}
	early := heap()
	for i := 30_000; i < 150_000; i++ {
		a.Add(synthetic(i))
	}
	late := heap()
	if len(a.pool) > maxPoolTurns || len(a.files) > maxFiles || len(a.fileOrder) > maxFiles {
		t.Errorf("pool %d turns, %d files: over the bounds %d and %d", len(a.pool), len(a.files), maxPoolTurns, maxFiles)
	}
	if late > early+4<<20 {
		t.Errorf("heap grew from %d to %d bytes over 120,000 more entries", early, late)
	}
	if a.requests != 50_000 {
		t.Errorf("%d requests counted, want 50000", a.requests)
	}
	// The pool still spans the session: its turns are spread from start to end.
	ts := a.turns()
	if ts[0].seq != 0 || ts[len(ts)-1].seq != 149_997 {
		t.Errorf("turns run from %d to %d, want the first and the last request", ts[0].seq, ts[len(ts)-1].seq)
	}
	for i := 1; i < len(ts); i++ {
		if ts[i].seq <= ts[i-1].seq {
			t.Fatalf("turns out of order at %d", i)
		}
		if gap := ts[i].seq - ts[i-1].seq; gap > 150_000/8 {
			t.Errorf("a gap of %d entries between kept turns %d and %d: the pool does not cover the session", gap, i-1, i)
		}
	}
	s := a.Session("synthetic", "", madeAt)
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	if !strings.HasPrefix(s.Title, "Add feature 0 to the parser module") || !strings.Contains(s.Text, "2000 files edited") {
		t.Errorf("session summary %+v", s)
	}
}

// TestResetReuses: a reset accumulator summarises the next segment as a new
// one would.
func TestResetReuses(t *testing.T) {
	a, b := NewAccumulator(), NewAccumulator()
	for i := range 30 {
		a.Add(synthetic(i))
	}
	a.Reset()
	for i := 30; i < 60; i++ {
		a.Add(synthetic(i))
		b.Add(synthetic(i))
	}
	sa, sb := a.Session("x", "", madeAt), b.Session("x", "", madeAt)
	if sa != sb {
		t.Errorf("after Reset:\n%+v\nfresh:\n%+v", sa, sb)
	}
}

func BenchmarkAccumulatorRealSession(b *testing.B) {
	s, err := pisession.ReadFile(pitest.Sample("large-session.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	a := NewAccumulator()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.Reset()
		for i := range s.Entries {
			a.Add(&s.Entries[i])
		}
		_ = a.Session(s.Header.ID, "", madeAt)
	}
}
