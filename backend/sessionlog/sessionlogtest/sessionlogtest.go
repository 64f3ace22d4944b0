// Package sessionlogtest holds the checks and benchmarks every reader built
// on sessionlog shares (claudecode, codex, qwen, copilot): the fuzz target's
// promises, its seeds, the reading benchmarks against a bare decode, the
// real files' positions, line counts, resumes and golden summaries, and
// malformed input. pisession's tests use its entry loop. It is for tests.
package sessionlogtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// Open makes a reader of one format over a whole file; Resume one that goes
// on from a State (the format's NewReader and NewReaderAt).
type (
	Open[S any]   func(r io.Reader, file string) *sessionlog.Reader[S]
	Resume[S any] func(r io.Reader, file string, st sessionlog.State[S]) *sessionlog.Reader[S]
)

// Seeds are fuzz seeds: every run of three lines of files, each file's
// first 12 lines cut in the middle of the last one and with their newlines
// removed, then extra (garbage, short hand-made cases).
func Seeds(tb testing.TB, files []string, extra ...string) [][]byte {
	tb.Helper()
	var seeds [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i := 0; i+3 <= len(lines); i += 3 {
			seeds = append(seeds, bytes.Join(lines[i:i+3], nil))
		}
		n := min(len(lines), 12)
		head := bytes.Join(lines[:n], nil)
		seeds = append(seeds, head[:len(head)-len(lines[n-1])/2], bytes.ReplaceAll(head, []byte("\n"), nil))
	}
	for _, s := range extra {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// CheckReader reads data (arbitrary input: a fuzz target's body) and checks
// the reader's promises: no panic, a header error matching ErrNoHeader,
// every entry's Raw the input at its Offset, lines and offsets increasing,
// problems inside the input, Consumed at a line end, a State that
// round-trips through JSON, and a read resumed from the State at the line
// nearest the middle giving the entries of a full read.
func CheckReader[S any](t *testing.T, data []byte, open Open[S], resume Resume[S]) {
	t.Helper()
	r := open(bytes.NewReader(data), "f")
	full, err := read(t, r, data, 0)
	if err != nil {
		return
	}
	for _, p := range append(r.Malformed(), r.Warnings()...) {
		if p.Line < 1 || p.Offset < 0 || p.Offset >= int64(len(data)) || p.Reason == "" || p.File != "f" {
			t.Fatalf("problem %v outside the input", p)
		}
	}
	c := r.Consumed()
	if c < 0 || c > int64(len(data)) || c > 0 && data[c-1] != '\n' && c != int64(len(data)) {
		t.Fatalf("Consumed %d of %d not at a line end", c, len(data))
	}
	st := r.State()
	if p := r.Pending(); p == nil && st.Seq == len(full) && c != int64(len(data)) || p != nil && p.Offset < c {
		t.Fatalf("pending %v, consumed %d of %d", p, c, len(data))
	}
	if b, err := json.Marshal(st); err != nil || json.Unmarshal(b, new(sessionlog.State[S])) != nil {
		t.Fatalf("state does not round-trip: %v", err)
	}
	// Resume at the line boundary nearest the middle.
	nl := bytes.IndexByte(data[len(data)/2:], '\n')
	if nl < 0 {
		return
	}
	cut := len(data)/2 + nl + 1
	first := open(bytes.NewReader(data[:cut]), "f")
	head, err := read(t, first, data[:cut], 0)
	if err != nil {
		return
	}
	back, keep := stored(t, first.State(), head)
	rest := resume(bytes.NewReader(data[back.Offset:]), "f", back)
	tail, err := read(t, rest, data[back.Offset:], back.Offset)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got := append(head[:keep:keep], tail...); !reflect.DeepEqual(got, full) {
		t.Fatalf("resumed at byte %d: %d entries, full read %d", back.Offset, len(got), len(full))
	}
}

// stored is st written as the library stores it (JSON) and read back, and
// how many entries of head, a read up to st, come before its commit point:
// the others come again from a read resumed at st.
func stored[S any](t *testing.T, st sessionlog.State[S], head []session.Entry) (sessionlog.State[S], int) {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back sessionlog.State[S]
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	keep := 0
	for keep < len(head) && head[keep].Seq < back.Seq {
		keep++
	}
	return back, keep
}

// read reads r to its end, checking each entry against data (the input
// from byte base of the file on).
func read[S any](t *testing.T, r *sessionlog.Reader[S], data []byte, base int64) ([]session.Entry, error) {
	t.Helper()
	if _, err := r.Header(); err != nil {
		if !errors.Is(err, session.ErrNoHeader) {
			t.Fatalf("header error %v does not match ErrNoHeader", err)
		}
		return nil, err
	}
	var es []session.Entry
	lastLine, lastOff := 0, base-1
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		rel := e.Offset - base
		if e.Type == "" || e.ID == "" || e.Line < lastLine || e.Offset <= lastOff || rel < 0 || rel+int64(len(e.Raw)) > int64(len(data)) ||
			!bytes.Equal(data[rel:rel+int64(len(e.Raw))], e.Raw) {
			t.Fatalf("entry %d: type %q id %q line %d offset %d: bad position or Raw", len(es), e.Type, e.ID, e.Line, e.Offset)
		}
		_ = session.EntryText(e)
		lastLine, lastOff = e.Line, e.Offset
		es = append(es, *e)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after the end: %v", err)
	}
	return es, nil
}

// Corpus is files copied end to end until it holds at least 4 MB, and its
// line count: the reading benchmarks' input.
func Corpus(b *testing.B, files []string) ([]byte, int) {
	b.Helper()
	var one []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, data...)
	}
	var corpus []byte
	for len(corpus) < 4<<20 {
		corpus = append(corpus, one...)
	}
	return corpus, bytes.Count(corpus, []byte("\n"))
}

// BenchReader reads corpus with the format's reader: lines, a typed decode
// of every line, the mapping to entries and the format's state; with text,
// EntryText of every entry too (what the import indexes for search). The
// corpus's formats make one entry per line: a count that differs fails.
// Compare with BenchBareDecode on the same bytes (issue 11 §4: within 3x).
func BenchReader[S any](b *testing.B, corpus []byte, lines int, open Open[S], text bool) {
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		r := open(bytes.NewReader(corpus), "bench.jsonl")
		n := 0
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if text {
				_ = session.EntryText(e)
			}
			n++
		}
		if n != lines {
			b.Fatalf("%d entries for %d lines", n, lines)
		}
	}
}

// BenchBareDecode is the yardstick: json.Unmarshal of every line of corpus
// into a map[string]any, the lines split beforehand.
func BenchBareDecode(b *testing.B, corpus []byte) {
	lines := bytes.Split(corpus, []byte("\n"))
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if len(l) == 0 {
				continue
			}
			m := map[string]any{}
			if err := json.Unmarshal(l, &m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchResumeAppend is an append import: corpus was read and its State kept;
// the writer appended appended (about 1 KB, one entry); the import resumes at
// the stored offset and reads only the new bytes (issue 11 §2: under 50 ms
// whatever the file's size). Its time does not grow with the corpus.
func BenchResumeAppend[S any](b *testing.B, corpus, appended []byte, open Open[S], resume Resume[S]) {
	r := open(bytes.NewReader(corpus), "bench.jsonl")
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
	}
	st := r.State()
	file := append(append([]byte{}, corpus...), appended...)
	b.SetBytes(int64(len(appended)))
	b.ReportAllocs()
	for b.Loop() {
		rr := resume(bytes.NewReader(file[st.Offset:]), "bench.jsonl", st)
		n := 0
		for {
			_, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1 {
			b.Fatalf("%d entries appended", n)
		}
	}
}

// EntryReader is what Each reads through: Next, which every reader has
// (sessionlog.Reader, pisession.Reader and the formats' Readers).
type EntryReader interface {
	Next() (*session.Entry, error)
}

// Each reads r to its end, calling f on every entry as Next returns it
// (before the next call may reuse what the entry points into). An error
// other than io.EOF fails the test. Entries, IDs and CheckBadInput read
// with it, and so do pisession's line-limit tests.
func Each(t testing.TB, r EntryReader, f func(*session.Entry)) {
	t.Helper()
	for {
		e, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		f(e)
	}
}

// Entries reads r to its end and returns its entries.
func Entries(t testing.TB, r EntryReader) []session.Entry {
	t.Helper()
	var es []session.Entry
	Each(t, r, func(e *session.Entry) { es = append(es, *e) })
	return es
}

// IDs reads r to its end and returns its entries' ids, in order.
func IDs(t testing.TB, r EntryReader) []string {
	t.Helper()
	var ids []string
	Each(t, r, func(e *session.Entry) { ids = append(ids, e.ID) })
	return ids
}

// CheckResumeAtEveryLine reads a prefix of each file ending at every line
// boundary, stores the State as JSON and resumes from it over the rest:
// together they must give exactly the entries and the final State (the
// format's metadata with it) of a full read (issue 11 §2, appends resume
// at the stored offset).
func CheckResumeAtEveryLine[S any](t *testing.T, files []string, open Open[S], resume Resume[S]) {
	t.Helper()
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full := open(bytes.NewReader(data), path)
		want := Entries(t, full)
		wantState, _ := json.Marshal(full.State())
		for cut := 0; cut <= len(data); cut++ {
			if cut > 0 && data[cut-1] != '\n' {
				continue
			}
			first := open(bytes.NewReader(data[:cut]), path)
			if _, err := first.Header(); err != nil {
				continue // no line of the format in the prefix yet
			}
			head := Entries(t, first)
			st := first.State()
			if st.Offset > int64(cut) {
				t.Fatalf("%s cut at %d: state offset %d", path, cut, st.Offset)
			}
			back, keep := stored(t, st, head)
			rest := resume(bytes.NewReader(data[back.Offset:]), path, back)
			got := append(head[:keep:keep], Entries(t, rest)...)
			if !reflect.DeepEqual(got, want) {
				for i := range min(len(got), len(want)) {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Logf("first difference at entry %d (line %d)", i, want[i].Line)
						break
					}
				}
				t.Fatalf("%s resumed at byte %d (cut %d): %d entries differ from the full read's %d", path, back.Offset, cut, len(got), len(want))
			}
			if gotState, _ := json.Marshal(rest.State()); !bytes.Equal(gotState, wantState) {
				t.Fatalf("%s resumed at byte %d: final state differs", path, back.Offset)
			}
		}
	}
}

// lineCountScript counts, independently of Go, each file's lines, blank
// lines and JSON objects (json.JSONDecoder.raw_decode over every line, so
// a line of two objects counts two).
const lineCountScript = `
import json, sys
dec = json.JSONDecoder()
for path in sys.argv[1:]:
    lines = blank = objects = 0
    with open(path, "rb") as f:
        for raw in f:
            lines += 1
            s = raw.decode("utf-8").strip()
            if not s:
                blank += 1
                continue
            i = 0
            while i < len(s):
                _, j = dec.raw_decode(s, i)
                objects += 1
                while j < len(s) and s[j] in " \t\r\n":
                    j += 1
                i = j
    print(path, lines, blank, objects)
`

// CheckLinesAccountedFor compares the reader with a count written in
// Python: entries + malformed + blank lines = lines, and entries = JSON
// objects (issue 11 §4, every line accounted for). It skips when python3 is
// not installed.
func CheckLinesAccountedFor[S any](t *testing.T, files []string, open Open[S]) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the independent line count needs it")
	}
	out, err := exec.Command(py, append([]string{"-c", lineCountScript}, files...)...).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	rows := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(rows) != len(files) {
		t.Fatalf("python3 counted %d files of %d", len(rows), len(files))
	}
	for _, row := range rows {
		var path string
		var lines, blank, objects int
		if _, err := fmt.Sscan(row, &path, &lines, &blank, &objects); err != nil {
			t.Fatalf("python3 output %q: %v", row, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := open(bytes.NewReader(data), path)
		if _, err := r.Header(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		entries := len(Entries(t, r))
		if entries != objects || entries+r.MalformedCount()+blank != lines || r.Lines() != lines {
			t.Errorf("%s: python counts %d lines, %d blank, %d objects; reader %d entries, %d malformed, %d lines",
				path, lines, blank, objects, entries, r.MalformedCount(), r.Lines())
		}
	}
}

// BadCase is one case of malformed or foreign input for CheckBadInput: the
// input (read as "x.jsonl"), and either the error Header returns (a part of
// its text; it must match session.ErrNoHeader) or the ids of the entries
// that come out, the malformed lines, the half-written last line and the
// bytes consumed (-1: the whole input).
type BadCase struct {
	Name      string
	Input     string
	IDs       []string
	Problems  []Problem
	Pending   *Problem
	Consumed  int
	HeaderErr string
}

// Problem is a problem CheckBadInput wants: its line, a marker whose first
// occurrence in the input is the problem's offset (a pending line's: its
// last occurrence) and a part of its reason.
type Problem struct {
	Line   int
	Marker string
	Reason string
}

// CheckBadInput reads each case with open and checks the header error, or
// the entries (each one's Raw the input at its Offset), the problems and
// Consumed.
func CheckBadInput[S any](t *testing.T, cases []BadCase, open Open[S]) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			r := open(strings.NewReader(tc.Input), "x.jsonl")
			_, err := r.Header()
			if tc.HeaderErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.HeaderErr) || !errors.Is(err, session.ErrNoHeader) {
					t.Fatalf("Header error %v, want one containing %q matching ErrNoHeader", err, tc.HeaderErr)
				}
				if _, err2 := r.Next(); err2 == nil {
					t.Errorf("Next after a header error: nil error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			Each(t, r, func(e *session.Entry) {
				if tc.Input[e.Offset:e.Offset+int64(len(e.Raw))] != string(e.Raw) {
					t.Errorf("entry %s: Raw is not the input at %d", e.ID, e.Offset)
				}
				ids = append(ids, e.ID)
			})
			if strings.Join(ids, ",") != strings.Join(tc.IDs, ",") {
				t.Errorf("ids %v, want %v", ids, tc.IDs)
			}
			checkProblems(t, tc.Input, "malformed", r.Malformed(), tc.Problems)
			var pend []session.Problem
			if p := r.Pending(); p != nil {
				pend = append(pend, *p)
			}
			var wantPend []Problem
			if tc.Pending != nil {
				wantPend = append(wantPend, *tc.Pending)
			}
			checkProblems(t, tc.Input, "pending", pend, wantPend)
			want := int64(tc.Consumed)
			if tc.Consumed == -1 {
				want = int64(len(tc.Input))
			}
			if r.Consumed() != want {
				t.Errorf("Consumed %d, want %d", r.Consumed(), want)
			}
		})
	}
}

func checkProblems(t *testing.T, input, what string, got []session.Problem, want []Problem) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s %v, want %d", what, got, len(want))
		return
	}
	for i, w := range want {
		p := got[i]
		off := strings.Index(input, w.Marker)
		if what == "pending" {
			off = strings.LastIndex(input, w.Marker) // the last line
		}
		if p.File != "x.jsonl" || p.Line != w.Line || p.Offset != int64(off) || !strings.Contains(p.Reason, w.Reason) {
			t.Errorf("%s %d = %v, want line %d offset %d reason ~%q", what, i, p, w.Line, off, w.Reason)
		}
	}
}

// CheckLossless checks a whole read s of data (the file at path) against
// the bytes: entries numbered from 0 in file order, each one's Raw the file
// at its Offset, nothing malformed, warned about or pending, every byte
// consumed and every line counted.
func CheckLossless[M, S any](t *testing.T, path string, data []byte, s *sessionlog.Session[M, S]) {
	t.Helper()
	for i, e := range s.Entries {
		end := e.Offset + int64(len(e.Raw))
		if e.Seq != i || end > int64(len(data)) || !bytes.Equal(data[e.Offset:end], e.Raw) {
			t.Fatalf("%s: entry %d (line %d, offset %d): bad Seq, Raw or position", path, i, e.Line, e.Offset)
		}
	}
	if len(s.Malformed) != 0 || len(s.Warnings) != 0 || s.Pending != nil || s.Consumed != int64(len(data)) ||
		s.Lines != bytes.Count(data, []byte("\n")) {
		t.Errorf("%s: malformed %v warnings %v pending %v consumed %d of %d lines %d", path, s.Malformed, s.Warnings, s.Pending, s.Consumed, len(data), s.Lines)
	}
}

// ReadJSON decodes the JSON file at path (a test's expected values) into a
// new T.
func ReadJSON[T any](tb testing.TB, path string) *T {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var x T
	if err := json.Unmarshal(b, &x); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return &x
}

// FuzzReader is a reader's fuzz target: seeds (see Seeds) added to the
// corpus, then CheckReader on every input. claudecode, codex, qwen and
// copilot fuzz their readers with it.
func FuzzReader[S any](f *testing.F, seeds [][]byte, open Open[S], resume Resume[S]) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		CheckReader(t, data, open, resume)
	})
}

// Benchmarks runs a reader's benchmarks over files (its real sessions)
// copied into one Corpus, as sub-benchmarks: Read (BenchReader), ReadEntryText
// (BenchReader with EntryText), BareDecode (BenchBareDecode, the yardstick
// to compare Read with) and ResumeAppend (BenchResumeAppend; what is
// appended is line, one entry, then a line of spaces that brings it to
// about 1 KB). claudecode, codex, qwen and copilot benchmark with it.
func Benchmarks[S any](b *testing.B, files []string, line string, open Open[S], resume Resume[S]) {
	corpus, lines := Corpus(b, files)
	appended := []byte(line + "\n")
	appended = append(appended, bytes.Repeat([]byte(" "), max(0, 1024-len(appended)))...)
	appended = append(appended, '\n')
	b.Run("Read", func(b *testing.B) { BenchReader(b, corpus, lines, open, false) })
	b.Run("ReadEntryText", func(b *testing.B) { BenchReader(b, corpus, lines, open, true) })
	b.Run("BareDecode", func(b *testing.B) { BenchBareDecode(b, corpus) })
	b.Run("ResumeAppend", func(b *testing.B) { BenchResumeAppend(b, corpus, appended, open, resume) })
}

// LimitReader is what CheckHugeLine reads through: a reader whose line
// limit can be set (the claudecode, codex, qwen and copilot Readers).
type LimitReader interface {
	EntryReader
	SetMaxLineBytes(n int)
	Malformed() []session.Problem
}

// CheckHugeLine sets r's line limit to 1 MiB (1048576 bytes) and reads it
// to its end. r reads in, whose line numbered line is huge, longer than
// the limit: the entries' ids must be ids (joined by commas) and the one
// malformed line huge's, at its offset, reported as over the limit.
// claudecode, codex, qwen and copilot check their line limit with it.
func CheckHugeLine(t *testing.T, r LimitReader, in, huge string, line int, ids string) {
	t.Helper()
	r.SetMaxLineBytes(1 << 20)
	got := IDs(t, r)
	ps := r.Malformed()
	if strings.Join(got, ",") != ids || len(ps) != 1 || ps[0].Line != line || !strings.Contains(ps[0].Reason, "over the 1048576-byte limit") ||
		ps[0].Offset != int64(strings.Index(in, huge)) {
		t.Errorf("ids %v problems %v", got, ps)
	}
}

// ReadLossless reads the file at path with read (a format's Read) and
// checks the whole read against the file's bytes with CheckLossless; it
// returns the bytes and the session for the format's own checks. A file
// that cannot be read or has no header fails the test. claudecode, codex,
// qwen and copilot check their real files' positions with it.
func ReadLossless[M, S any](t *testing.T, path string, read func(io.Reader, string) (*sessionlog.Session[M, S], error)) ([]byte, *sessionlog.Session[M, S]) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := read(bytes.NewReader(data), path)
	if err != nil {
		t.Fatal(err)
	}
	CheckLossless(t, path, data, s)
	return data, s
}

// CheckAtLineStarts checks each entry of es, read from data (the file at
// path), against the file's lines: its Offset is the first byte of its
// Line, and it has an ID and a Type. claudecode and qwen, whose formats
// make one entry per line, check their real files with it.
func CheckAtLineStarts(t *testing.T, path string, data []byte, es []session.Entry) {
	t.Helper()
	lineStart := []int64{0}
	for i, c := range data {
		if c == '\n' {
			lineStart = append(lineStart, int64(i+1))
		}
	}
	for i, e := range es {
		if lineStart[e.Line-1] != e.Offset {
			t.Fatalf("%s: entry %d (line %d, offset %d): not at its line's start", path, i, e.Line, e.Offset)
		}
		if e.ID == "" || e.Type == "" {
			t.Errorf("%s: entry %d has no id or type", path, i)
		}
	}
}

// CheckGolden compares summary, a test's digest of the session file at
// path, written as indented JSON with a final newline, with the golden
// file golden; with update it writes golden first, making its folder. A
// missing golden file fails with the command that makes it (go test
// ./backend/<the test's package folder> -update); a difference fails
// naming both files and showing the new summary. claudecode, codex, qwen
// and copilot compare their real files' summaries with it.
func CheckGolden(t *testing.T, path, golden string, summary any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		wd, _ := os.Getwd()
		t.Fatalf("%v (run go test ./backend/%s -update to create it)", err, filepath.Base(wd))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (review, then -update):\n%s", path, golden, got)
	}
}

// TextHash is the first 8 bytes of s's SHA-256, in hex: how golden
// summaries record a text without holding it (claudecode, codex, qwen,
// copilot).
func TextHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
