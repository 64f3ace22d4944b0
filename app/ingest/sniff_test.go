package ingest

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/pisession/pitest"
	"rhizome/backend/sessionformat"
)

// TestSniffOnceAsBefore holds sniffSource, which reads a file's head once
// before the import, to the separate reads it replaced: claudeStart (the
// order of Claude Code files) and detectFormat (the format job.open
// uses), and claudeHead to Detect over the first 4 KiB, on every real and
// hand-made file of the readers and on heads made to tell the 4 KiB and 64
// KiB heads apart (a first line longer than 4 KiB, blank lines or spaces
// before or after it, a first line longer than 64 KiB).
func TestSniffOnceAsBefore(t *testing.T) {
	var paths []string
	for _, dir := range []string{pitest.SamplesDir(), "../../backend/claudecode/testdata", "../../backend/codex/testdata",
		"../../backend/memobrain/testdata", "../../backend/loom/testdata"} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
				paths = append(paths, p)
			}
			return nil
		})
	}
	claudeLine := `{"type":"user","sessionId":"s","uuid":"u","timestamp":"2026-01-02T03:04:05Z","message":{"role":"user","content":"` +
		strings.Repeat("x", 5000) + `"}}`
	short := `{"type":"user","sessionId":"s","uuid":"u","timestamp":"2026-01-02T03:04:05Z","message":{"role":"user","content":"hi"}}`
	made := map[string]string{
		"long-first-line.jsonl":   claudeLine + "\n" + short + "\n",
		"blank-before.jsonl":      strings.Repeat("\n", 5000) + short + "\n",
		"spaces-after.jsonl":      short + strings.Repeat(" ", 5000) + "\n" + short + "\n",
		"spaces-then-junk.jsonl":  short + strings.Repeat(" ", 5000) + "{}\n" + short + "\n",
		"spaces-no-newline.jsonl": short + strings.Repeat(" ", 5000),
		"bom.jsonl":               "\xEF\xBB\xBF" + short + "\n",
		"huge-meta.jsonl": `{"timestamp":"2026-01-02T03:04:05Z","type":"session_meta","payload":{"id":"01a20d3a-bd07-7491-8132-c49792fbf869","base_instructions":"` +
			strings.Repeat("y", 70000) + `"}}` + "\n",
		"half.jsonl":  short[:60],
		"empty.jsonl": "",
		"array.json":  "[1,2,3]",
	}
	dir := t.TempDir()
	for name, body := range made {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	claude := 0
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		src := fileSource(p, "host", info.Size(), info.ModTime().UnixNano())
		got := sniffSource(src, true)
		if got.isReasoning {
			continue
		}
		ts, ok := claudeStart(src)
		if got.isClaude != ok || got.claudeStart != ts {
			t.Errorf("%s: sniffed Claude Code start %q %v, claudeStart %q %v", p, got.claudeStart, got.isClaude, ts, ok)
		}
		if ok {
			claude++
		}
		f, err := src.open()
		if err != nil {
			t.Fatal(err)
		}
		format, ferr := detectFormat(f, info.Size())
		head := make([]byte, sessionformat.HeadBytes)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if !got.detected || got.format != format || errString(got.formatErr) != errString(ferr) {
			t.Errorf("%s: sniffed format %v %q %v, detectFormat %q %v", p, got.detected, got.format, got.formatErr, format, ferr)
		}
		head = head[:n]
		f4, _ := sessionformat.Detect(head[:min(n, 4<<10)])
		f64, _ := sessionformat.Detect(head)
		if claudeHead(head, int64(min(n, 4<<10)), f64) != (f4 == sessionformat.ClaudeCode) {
			t.Errorf("%s: claudeHead %v, Detect of 4 KiB %q", p, !(f4 == sessionformat.ClaudeCode), f4)
		}
		for _, cut := range []int{100, 4 << 10, 4<<10 + 1, 5000, 5200} {
			if cut < n {
				h := head[:cut]
				f4, _ := sessionformat.Detect(h[:min(cut, 4<<10)])
				fh, _ := sessionformat.Detect(h)
				if claudeHead(h, int64(min(cut, 4<<10)), fh) != (f4 == sessionformat.ClaudeCode) {
					t.Errorf("%s cut at %d: claudeHead disagrees with Detect of 4 KiB (%q)", p, cut, f4)
				}
			}
		}
	}
	if claude < 5 {
		t.Errorf("only %d Claude Code files", claude)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSniffSourcesKeepsOrder checks that the sources sniffed at once come
// back in their order, each with its own answer.
func TestSniffSourcesKeepsOrder(t *testing.T) {
	short := []byte(`{"type":"user","sessionId":"s","uuid":"u","timestamp":"2026-01-02T03:04:0`)
	var srcs []Source
	for i := range 40 {
		b := append(append([]byte{}, short...), []byte(string(rune('0'+i%10))+`Z","message":{"role":"user","content":"hi"}}`+"\n")...)
		if i%3 == 0 {
			b = bytes.ReplaceAll(b, []byte(`"sessionId"`), []byte(`"other"`))
		}
		srcs = append(srcs, InMemory("m", b))
	}
	got := sniffSources(t.Context(), srcs)
	for i, s := range srcs {
		ts, ok := claudeStart(s)
		if got[i].isClaude != ok || got[i].claudeStart != ts {
			t.Fatalf("Source %d: sniffed %q %v, claudeStart %q %v", i, got[i].claudeStart, got[i].isClaude, ts, ok)
		}
	}
}
