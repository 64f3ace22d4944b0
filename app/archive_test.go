package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rhizome/app/ingest"
	"rhizome/backend/sessionformat"
	"rhizome/store"
)

// everyRealFile lists every real session file of the repository, by format:
// the pi samples and pi's own v3 files, the hand-made pi files, and the real
// and hand-made Claude Code and Codex files.
func everyRealFile(t *testing.T) map[string][]string {
	t.Helper()
	out := otherFiles(t)
	pi, _ := filepath.Glob("samples/*.jsonl")
	v3, _ := filepath.Glob(v3Dir + "/*.jsonl")
	hand, _ := filepath.Glob("../backend/pisession/testdata/handmade/*.jsonl")
	out[sessionformat.Pi] = append(append(pi, v3...), hand...)
	if len(out[sessionformat.Pi]) < 10 {
		t.Fatalf("pi files %v", out[sessionformat.Pi])
	}
	return out
}

// corruptions are changes to a real file's bytes that a writer, an editor,
// a crash or another program leave in session files: the library must keep
// them as they are.
var corruptions = []struct {
	name string
	do   func(b []byte) []byte
}{
	{"as is", func(b []byte) []byte { return b }},
	{"CRLF", func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }},
	{"blank and space lines", func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		var out []byte
		for i, l := range lines {
			out = append(out, l...)
			switch i % 4 {
			case 1:
				out = append(out, '\n')
			case 2:
				out = append(out, "  \t\n\n\n"...)
			}
		}
		return out
	}},
	{"malformed lines and values", func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		var out []byte
		for i, l := range lines {
			out = append(out, l...)
			if i == 2 {
				out = append(out, `{"type": "message", "broken`+"\n"+`[1, 2, 3]`+"\n"+`"just a string"`+"\n"...)
			}
		}
		return out
	}},
	{"two objects on a line, spaced", func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		if len(lines) < 4 {
			return b
		}
		joined := append(bytes.TrimRight(lines[2], "\n"), "   \t"...)
		lines[2] = append(joined, bytes.TrimRight(lines[3], "\n")...)
		lines[2] = append(lines[2], "  \n"...)
		lines[3] = nil
		return bytes.Join(lines, nil)
	}},
	{"invalid UTF-8 in a string", func(b []byte) []byte {
		return regexp.MustCompile(`"(text|content)":"`).ReplaceAllFunc(b, func(m []byte) []byte {
			return append(append([]byte(nil), m...), 0xff, 0xfe, 'x', 0xc3)
		})
	}},
	{"byte order mark", func(b []byte) []byte { return append([]byte{0xEF, 0xBB, 0xBF}, b...) }},
	{"no newline at the end", func(b []byte) []byte { return bytes.TrimRight(b, "\n") }},
	{"half-written last line", func(b []byte) []byte {
		return append(append([]byte(nil), b...), `{"type":"message","id":"zz","message":{"role":"user","content":"wri`...)
	}},
	{"a malformed line longer than a gap row", func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		long := append([]byte(`{"type":"x","pad":"`), bytes.Repeat([]byte("é"), 300<<10)...)
		long = append(long, "\n"...) // unterminated string: malformed
		return bytes.Join(append(lines[:2:2], append([][]byte{long}, lines[2:]...)...), nil)
	}},
}

// exportBack exports the session id of l to a file and returns its bytes.
func exportBack(t *testing.T, l *testLib, item string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "back.jsonl")
	if _, err := l.ExportSession(item, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The library keeps every byte (issue 11 §2): each real file of each
// format, as is and with each corruption, imported and written back by
// export-session, is the file byte for byte: raw lines, blank and
// malformed lines, the exact line ends, a byte order mark, invalid UTF-8, a
// half-written last line.
func TestExportSessionByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-corpus matrix (every real file with each corruption, a library each): make test runs it")
	}
	for format, files := range everyRealFile(t) {
		for _, path := range files {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range corruptions {
				t.Run(fmt.Sprintf("%s/%s/%s", format, filepath.Base(path), c.name), func(t *testing.T) {
					t.Parallel() // a library of its own: two at once on two cores
					b := c.do(orig)
					dir := t.TempDir()
					p := filepath.Join(dir, filepath.Base(path))
					if err := os.WriteFile(p, b, 0o644); err != nil {
						t.Fatal(err)
					}
					l := newTestLib(t)
					fr := l.importPaths(t, p).Files[0]
					if fr.Status != ingest.StatusImported || fr.Format != format {
						t.Fatalf("%+v", fr)
					}
					back := exportBack(t, l, fr.SessionID)
					if !bytes.Equal(back, b) {
						t.Fatalf("exported %d bytes, the file has %d; first difference at byte %d", len(back), len(b), firstByteDiff(back, b))
					}
					// By the path it was imported from, and by a node URI.
					if again := exportBack(t, l, p); !bytes.Equal(again, b) {
						t.Errorf("by path: differs")
					}
					ids := sessionNodes(t, l, fr.SessionID)
					if again := exportBack(t, l, "rhizome:node/"+ids[0]); !bytes.Equal(again, b) {
						t.Errorf("by node URI: differs")
					}
				})
			}
		}
	}
}

func firstByteDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A file that grew while it was imported, in several steps cut anywhere
// (mid-line too), is written back as it is at the end: the appends keep
// every byte as the first import does.
func TestExportAfterAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-corpus matrix (every real file cut three times, a library each): make test runs it")
	}
	for format, files := range everyRealFile(t) {
		for _, path := range files {
			orig, _ := os.ReadFile(path)
			for _, c := range corruptions[:4] {
				b := c.do(orig)
				t.Run(fmt.Sprintf("%s/%s/%s", format, filepath.Base(path), c.name), func(t *testing.T) {
					t.Parallel() // a library of its own: two at once on two cores
					p := filepath.Join(t.TempDir(), filepath.Base(path))
					l := newTestLib(t)
					var id string
					for _, frac := range []int{3, 2, 1} {
						cut := len(b) * (frac + 1) / 5
						if frac == 1 {
							cut = len(b)
						}
						if err := os.WriteFile(p, b[:cut], 0o644); err != nil {
							t.Fatal(err)
						}
						fr := l.importPaths(t, p).Files[0]
						if fr.Status == ingest.StatusFailed {
							if cut < len(b) && strings.Contains(fr.Error, "still being written") {
								continue // the header itself is half written
							}
							t.Fatalf("cut %d: %+v", cut, fr)
						}
						id = fr.SessionID
					}
					if back := exportBack(t, l, id); !bytes.Equal(back, b) {
						t.Fatalf("after appends: exported %d bytes, the file has %d; first difference at byte %d", len(back), len(b), firstByteDiff(back, b))
					}
				})
			}
		}
	}
}

// Export refuses what it cannot give back whole: an unknown item, and a
// session whose bytes the library does not all hold.
func TestExportSessionErrors(t *testing.T) {
	l := newTestLib(t)
	fr := l.importPaths(t, filepath.Join("samples", "session-with-compaction.jsonl")).Files[0]
	out := filepath.Join(t.TempDir(), "x.jsonl")
	if _, err := l.ExportSession("no-such-session", out); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "no-such-session") {
		t.Errorf("unknown: %v", err)
	}
	if _, err := l.db(t).Exec(`DELETE FROM session_gaps`); err != nil {
		t.Fatal(err)
	}
	_, err := l.ExportSession(fr.SessionID, out)
	if !errors.Is(err, store.ErrExportMismatch) {
		t.Errorf("gaps gone: %v", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Errorf("a partial file was left at %s", out)
	}
}

// Codex moves a rollout into archived_sessions/ when its thread is archived:
// met there, the same bytes are the same session, its path moved, nothing
// imported twice and nothing marked deleted.
func TestCodexRolloutMovedToTheArchive(t *testing.T) {
	home := filepath.Join(t.TempDir(), "codex")
	copyTree(t, home, codexHome, func(_ string, b []byte) []byte { return b })
	l := newTestLib(t)
	first := l.importPaths(t, home)
	name := "rollout-2026-11-24T11-04-43-" + codexAgent + ".jsonl"
	from := filepath.Join(home, "sessions/2026/11/24", name)
	to := filepath.Join(home, "archived_sessions", name)
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	again := l.importPaths(t, home)
	if again.Totals.Unchanged != first.Totals.Files || again.Totals.Imported != 0 {
		t.Fatalf("after the move: %+v", again.Totals)
	}
	ss, err := l.Library.Sessions("")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range ss {
		if s.ID == codexAgent {
			n++
			if s.Path != to || s.SourceDeleted {
				t.Errorf("the moved session: path %s, source deleted %v", s.Path, s.SourceDeleted)
			}
		}
	}
	if n != 1 || len(ss) != first.Totals.Files {
		t.Errorf("%d sessions %s among %d, want one among %d", n, codexAgent, len(ss), first.Totals.Files)
	}
}

// checkExportedBack fails t unless export-session gives the imported file
// of fr back byte for byte.
func checkExportedBack(t *testing.T, l *testLib, fr FileReport) {
	t.Helper()
	orig, err := os.ReadFile(fr.Path)
	if err != nil {
		t.Fatal(err)
	}
	if back := exportBack(t, l, fr.SessionID); !bytes.Equal(back, orig) {
		t.Errorf("%s: export-session gave %d bytes back, the file has %d; first difference at byte %d", fr.SessionID, len(back), len(orig), firstByteDiff(back, orig))
	}
}

// sessionsByID is the library's sessions by id.
func sessionsByID(t *testing.T, l *testLib) map[string]SessionSummary {
	t.Helper()
	sessions, err := l.Library.Sessions("")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]SessionSummary{}
	for _, s := range sessions {
		byID[s.ID] = s
	}
	return byID
}
