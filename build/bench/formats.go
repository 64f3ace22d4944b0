package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"rhizome/app"
	"rhizome/store"
)

// The Claude Code and Codex figures of issue 11: a corpus of the real logs
// the real programs wrote (backend/claudecode and backend/codex testdata),
// copied until it holds about --formats-mb megabytes; and appends of 1 KB to
// one session of 155 MB of each format.

// uuidRE matches a UUID; copies get new ones.
var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// agentIDRE matches a Claude Code sub-agent id (agent-<id>.jsonl, "agentId"):
// copies get new ones too, as every real spawn has its own (with the id
// kept, the copies of one sub-agent file were one session rewritten by each
// copy: 992 rewrites in 300 MB, which a real corpus does not have).
var agentIDRE = regexp.MustCompile(`\ba[0-9a-f]{16}\b`)

// remapper gives each UUID of a copy a new one, the same everywhere in the
// copy (so that a fork still names its parent and a sub-agent its session):
// the last 12 hex digits are new, the rest (a UUIDv7's time, the version)
// kept; and each sub-agent id a new one. keep lists UUIDs left as they are.
type remapper struct {
	m    map[string]string
	keep map[string]bool
}

func newRemapper(keep ...string) *remapper {
	r := &remapper{m: map[string]string{}, keep: map[string]bool{}}
	for _, k := range keep {
		r.keep[k] = true
	}
	return r
}

func (r *remapper) uuid(u string) string {
	if r.keep[u] {
		return u
	}
	if v, ok := r.m[u]; ok {
		return v
	}
	var b [6]byte
	rand.Read(b[:])
	v := u[:24] + hex.EncodeToString(b[:])
	r.m[u] = v
	return v
}

func (r *remapper) bytes(b []byte) []byte {
	b = uuidRE.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(r.uuid(string(m))) })
	return agentIDRE.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(r.agentID(string(m))) })
}

// agentID maps a sub-agent id to a new one of the same shape.
func (r *remapper) agentID(id string) string {
	if v, ok := r.m[id]; ok {
		return v
	}
	var b [8]byte
	rand.Read(b[:])
	v := "a" + hex.EncodeToString(b[:])
	r.m[id] = v
	return v
}

// otherSources are the real Claude Code and Codex homes, as the programs
// wrote them (relative paths kept in copies).
var otherSources = []string{
	"backend/claudecode/testdata/claude-home/projects",
	"backend/codex/testdata/codex-home/sessions",
	"backend/codex/testdata/codex-home/archived_sessions",
}

// writeOtherCorpus copies the real Claude Code and Codex session files into
// dst until it holds target bytes: each copy is a folder with the files at
// their relative paths, every UUID in their names and content new (the same
// throughout the copy). It returns the files and bytes written.
func writeOtherCorpus(dst string, target int64) (files int, size int64, err error) {
	type src struct {
		rel  string
		data []byte
	}
	var srcs []src
	for _, root := range otherSources {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Dir(root), p)
			srcs = append(srcs, src{rel, b})
			return nil
		})
		if err != nil {
			return 0, 0, fmt.Errorf("corpus: %w", err)
		}
	}
	if len(srcs) == 0 {
		return 0, 0, errors.New("corpus: no Claude Code or Codex files found (run from the repository's root)")
	}
	for copyN := 0; size < target; copyN++ {
		r := newRemapper()
		for _, s := range srcs {
			p := filepath.Join(dst, fmt.Sprintf("copy-%05d", copyN), r.uuid0(s.rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return files, size, err
			}
			b := r.bytes(s.data)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return files, size, err
			}
			files++
			size += int64(len(b))
		}
	}
	return files, size, nil
}

// uuid0 remaps the UUIDs of a path.
func (r *remapper) uuid0(p string) string { return string(r.bytes([]byte(p))) }

// piIDRE matches a pi entry id field (8 hex digits) and the fields naming
// one.
var piIDRE = regexp.MustCompile(`"(id|parentId|firstKeptEntryId|targetId|fromId)":"([0-9a-f]{8})"`)

// bigSession writes one session file of format of about target bytes into
// dir, made of the body of a real session repeated with its ids new in each
// repetition (the session's own id kept), and returns its path and the
// next 1 KB a writer would append (another repetition's first lines).
func bigSession(dir, format string, target int64) (path string, appendix func() []byte, err error) {
	var src, id string
	switch format {
	case "pi":
		src = "app/samples/large-session.jsonl"
	case "claude-code":
		src = "backend/claudecode/testdata/claude-home/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api/5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41.jsonl"
		id = "5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41"
	case "codex":
		src = "backend/codex/testdata/codex-home/sessions/2026/11/24/rollout-2026-11-24T11-04-43-01a20d3a-bd07-7491-8132-c49792fbf869.jsonl"
		id = "01a20d3a-bd07-7491-8132-c49792fbf869"
	case "gemini-cli":
		src = "backend/gemini/testdata/gemini-home/tmp/acme-api/chats/session-2026-12-03T09-36-3f0c8a52.jsonl"
		id = "3f0c8a52-6d1e-4b7a-9e25-1c4d7b8a9f60"
	case "qwen-code":
		src = "backend/qwen/testdata/qwen-home/projects/-tmp-rhizome-qwen-fixtures-work-acme-api/chats/9d4e6b21-3c7a-4f08-b5e2-6a1c0d8f7e39.jsonl"
		id = "9d4e6b21-3c7a-4f08-b5e2-6a1c0d8f7e39"
	case "copilot-cli":
		src = "backend/copilot/testdata/copilot-home/session-state/c0b1d2e3-4f56-4789-8abc-def012345678/events.jsonl"
		id = "c0b1d2e3-4f56-4789-8abc-def012345678"
	default:
		return "", nil, fmt.Errorf("append: unknown format %q (pi, claude-code, codex, gemini-cli, qwen-code or copilot-cli)", format)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return "", nil, err
	}
	head, body := []byte(nil), data
	// The first line is the session's own once (pi's header, Gemini CLI's
	// metadata record, Copilot CLI's session.start).
	if format == "pi" || format == "gemini-cli" || format == "copilot-cli" {
		nl := bytes.IndexByte(data, '\n') + 1
		head, body = data[:nl], data[nl:]
	}
	n := 0
	repeat := func() []byte {
		n++
		if format == "pi" {
			m := map[string]string{}
			return piIDRE.ReplaceAllFunc(body, func(b []byte) []byte {
				sub := piIDRE.FindSubmatch(b)
				v, ok := m[string(sub[2])]
				if !ok {
					var x [4]byte
					rand.Read(x[:])
					v = hex.EncodeToString(x[:])
					m[string(sub[2])] = v
				}
				return []byte(`"` + string(sub[1]) + `":"` + v + `"`)
			})
		}
		return newRemapper(id).bytes(body)
	}
	path = filepath.Join(dir, filepath.Base(src))
	f, err := os.Create(path)
	if err != nil {
		return "", nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(head)
	size := int64(len(head))
	for size < target {
		b := repeat()
		w.Write(b)
		size += int64(len(b))
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return "", nil, err
	}
	// Appends: whole lines of further repetitions, at least 1 KB each.
	var rest []byte
	appendix = func() []byte {
		var out []byte
		for len(out) < 1024 {
			if len(rest) == 0 {
				rest = repeat()
			}
			nl := bytes.IndexByte(rest, '\n') + 1
			out = append(out, rest[:nl]...)
			rest = rest[nl:]
		}
		return out
	}
	return path, appendix, nil
}

// benchAppends imports a session of about mb megabytes of each format into
// a fresh library (the baseline: reading it whole), then appends about 1 KB
// to it rounds times, importing after each, in this process, and prints the
// times (issue 11 §2: under 50 ms), and the time the background work (the
// relations queue, relations_queue.go; the full-text indexes merged,
// index_merge.go) takes after the full import and after each append. A non-empty cpuProfile receives a CPU
// profile of the appends alone (the full imports left out).
func benchAppends(dir string, mb int, rounds int, formats []string, cpuProfile string) error {
	var prof *os.File
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		prof = f
	}
	for _, format := range formats {
		fdir := filepath.Join(dir, "append-"+format)
		os.MkdirAll(fdir, 0o755)
		path, appendix, err := bigSession(fdir, format, int64(mb)<<20)
		if err != nil {
			return err
		}
		fi, _ := os.Stat(path)
		db := filepath.Join(fdir, "library.db")
		st, err := store.Open(db)
		if err != nil {
			return err
		}
		a := app.New(st, db)
		// As in the window: the appends leave their project's relations
		// to the relations queue, timed apart (the embedding queue is not
		// started).
		a.DeferRelations()
		start := time.Now()
		rep, err := a.Import.ImportPaths([]string{path})
		full := time.Since(start)
		if err != nil || rep.Totals.Imported != 1 {
			st.Close()
			return fmt.Errorf("%s: full import: %v %+v", format, err, rep.Files)
		}
		entries := rep.Files[0].Entries
		// The full import's background work: its full-text index segments
		// merged (app/index_merge.go), as a running app does before the
		// agent writes on. Without it the fifth append paid for merging
		// them (150-170 ms).
		start = time.Now()
		if err := a.WaitBackground(context.Background()); err != nil {
			st.Close()
			return fmt.Errorf("%s: background work after the full import: %w", format, err)
		}
		settle := time.Since(start)
		var times, after []time.Duration
		var bytesAppended int
		if prof != nil {
			if err := pprof.StartCPUProfile(prof); err != nil {
				st.Close()
				return err
			}
		}
		for range rounds {
			b := appendix()
			bytesAppended += len(b)
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				st.Close()
				return err
			}
			f.Write(b)
			f.Close()
			start := time.Now()
			rep, err := a.Import.ImportPaths([]string{path})
			took := time.Since(start)
			if err != nil || rep.Files[0].Status != "appended" {
				st.Close()
				return fmt.Errorf("%s: append: %v %+v", format, err, rep.Files)
			}
			times = append(times, took)
			// The queue's work, before the next append is timed.
			start = time.Now()
			if err := a.WaitBackground(context.Background()); err != nil {
				st.Close()
				return fmt.Errorf("%s: relations after an append: %w", format, err)
			}
			after = append(after, time.Since(start))
		}
		if prof != nil {
			pprof.StopCPUProfile()
			prof = nil // one profile per file: the first format's
		}
		st.Close()
		sorted := append([]time.Duration(nil), times...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		sort.Slice(after, func(i, j int) bool { return after[i] < after[j] })
		fmt.Printf("append %-11s session %.0f MB (%d entries): full import %v, its index merged in the background in %v; %d appends of %d bytes on average: median %v, slowest %v (target < 50 ms); then the project's relations and index merging in the background: median %v\n",
			format, float64(fi.Size())/1e6, entries, full.Round(time.Millisecond), settle.Round(time.Millisecond), rounds, bytesAppended/rounds,
			sorted[len(sorted)/2].Round(100*time.Microsecond), sorted[len(sorted)-1].Round(100*time.Microsecond),
			after[len(after)/2].Round(time.Millisecond))
	}
	return nil
}
