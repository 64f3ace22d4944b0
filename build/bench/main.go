// Command bench measures import speed for `make bench`: it builds a corpus of
// about --mb megabytes by copying the real sample sessions with fresh session
// ids (pitest.WriteCorpus), times a bare encoding/json decode of every object
// of those bytes and the formats' readers alone over them (the per-line
// structures the importer needs), then imports the corpus into an empty
// library with the real binary and reports MB/s, entries/s, peak RSS and the
// ratio to the faster of the two decodes, all in one run.
// It does the same for a corpus of --formats-mb megabytes of the real Claude
// Code and Codex logs (copies with new UUIDs: writeOtherCorpus), then times
// appends of 1 KB to a session of --append-mb megabytes of each format
// against reading that session whole (benchAppends).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"rhizome/backend/claudecode"
	"rhizome/backend/cline"
	"rhizome/backend/codex"
	"rhizome/backend/copilot"
	"rhizome/backend/gemini"
	"rhizome/backend/opencode"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/qwen"
	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
)

func main() {
	bin := flag.String("bin", "build/bin/rhizome", "rhizome binary")
	mb := flag.Int("mb", 300, "corpus size in MB")
	samples := flag.String("samples", "app/samples", "folder of real sessions to copy")
	keep := flag.Bool("keep", false, "keep the corpus and library")
	formatsMB := flag.Int("formats-mb", -1, "Claude Code and Codex corpus size in MB (-1: as --mb, 0: skip)")
	agentsMB := flag.Int("agents-mb", 20, "size in MB of the corpus of each newer agent's real sessions (Gemini CLI, Qwen Code, Copilot CLI, Cline, OpenCode; 0: skip)")
	appendMB := flag.Int("append-mb", 155, "size in MB of the session appended to, per format (0: skip)")
	rounds := flag.Int("append-rounds", 20, "appends of 1 KB per format")
	appendFormats := flag.String("append-formats", "pi,claude-code,codex,gemini-cli,qwen-code,copilot-cli", "formats appended to, comma-separated")
	cpuProfile := flag.String("append-cpuprofile", "", "write a CPU profile of the appends (not the full imports) to this file")
	flag.Parse()
	if *formatsMB < 0 {
		*formatsMB = *mb
	}
	dir, err := os.MkdirTemp("", "rhizome-bench-")
	if err == nil && !*keep {
		defer os.RemoveAll(dir)
	}
	var pi importCost
	if err == nil && *mb > 0 {
		fmt.Println("== pi sessions (copies of app/samples)")
		pi, err = run(*bin, filepath.Join(dir, "pi"), int64(*mb)<<20, func(corpus string, target int64) (int, int64, error) {
			return pitest.WriteCorpus(*samples, corpus, target)
		})
	}
	if err == nil && *formatsMB > 0 {
		fmt.Println("== Claude Code and Codex logs (copies of the real generated files, new UUIDs)")
		_, err = run(*bin, filepath.Join(dir, "formats"), int64(*formatsMB)<<20, writeOtherCorpus)
	}
	if err == nil && *agentsMB > 0 {
		err = benchAgents(*bin, dir, int64(*agentsMB)<<20, pi)
	}
	if err == nil && *appendMB > 0 {
		fmt.Println("== appends of 1 KB to one long session, in process")
		err = benchAppends(dir, *appendMB, *rounds, strings.Split(*appendFormats, ","), *cpuProfile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// importCost is what importing a corpus cost: its session bytes, and the
// import process's CPU time (user and system) and wall time.
type importCost struct {
	bytes     int64
	cpu, wall time.Duration
}

// perMB is the CPU time per MB of session bytes, in seconds.
func (c importCost) perMB() float64 { return c.cpu.Seconds() / (float64(c.bytes) / 1e6) }

// run builds a corpus of about target bytes in dir with write, then times a
// bare decode of it and its import by the binary bin, prints the figures
// and returns the import's cost.
func run(bin, dir string, target int64, write func(corpus string, target int64) (int, int64, error)) (importCost, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return importCost{}, err
	}
	corpus := filepath.Join(dir, "corpus")
	files, size, err := write(corpus, target)
	if err != nil {
		return importCost{}, err
	}
	fmt.Printf("corpus: %d files, %.1f MB in %s\n", files, float64(size)/1e6, corpus)

	start := time.Now()
	objects, err := bareDecode(corpus)
	if err != nil {
		return importCost{}, err
	}
	bare := time.Since(start)
	fmt.Printf("bare encoding/json decode: %d objects in %v (%.1f MB/s)\n", objects, bare.Round(time.Millisecond), float64(size)/1e6/bare.Seconds())
	start = time.Now()
	entries, err := readerDecode(corpus)
	if err != nil {
		return importCost{}, err
	}
	readers := time.Since(start)
	fmt.Printf("the formats' readers alone: %d entries in %v (%.1f MB/s)\n", entries, readers.Round(time.Millisecond), float64(size)/1e6/readers.Seconds())
	// The baseline is the faster of the two decodes of the same bytes:
	// never one slower than what the importer needs.
	if readers < bare {
		bare = readers
	}

	db := filepath.Join(dir, "library.db")
	cmd := exec.Command(bin, "import", "--db", db, "--json", corpus)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start = time.Now()
	if err := cmd.Run(); err != nil {
		return importCost{}, fmt.Errorf("import: %w", err)
	}
	took := time.Since(start)
	var report struct {
		Totals struct {
			Files, Failed, Entries, Segments int
			ReadableSeconds, CompleteSeconds float64
		} `json:"totals"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		return importCost{}, fmt.Errorf("import report: %w", err)
	}
	if report.Totals.Failed > 0 {
		return importCost{}, fmt.Errorf("import: %d of %d files failed", report.Totals.Failed, report.Totals.Files)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rss := ru.Maxrss // KiB on Linux
	cost := importCost{bytes: size, wall: took, cpu: time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))}
	st, _ := os.Stat(db)
	fmt.Printf("import: %d files (%d failed), %d entries, %d segments in %v\n",
		report.Totals.Files, report.Totals.Failed, report.Totals.Entries, report.Totals.Segments, took.Round(time.Millisecond))
	fmt.Printf("import speed: %.1f MB/s, %.0f entries/s, peak RSS %.0f MB, library %.0f MB\n",
		float64(size)/1e6/took.Seconds(), float64(report.Totals.Entries)/took.Seconds(), float64(rss)/1024, float64(st.Size())/1e6)
	// Readable: the sessions' entries, segments and nodes stored and
	// searched; complete: their summaries, knowledge, relations, vectors
	// and index merges derived too (issue 25).
	t := report.Totals
	fmt.Printf("import: readable after %.2f s = %.2fx the bare decode (target <= 2x pi, <= 2.5x mixed); complete after %.2f s = %.2fx (target <= 4x)\n",
		t.ReadableSeconds, t.ReadableSeconds/bare.Seconds(), t.CompleteSeconds, t.CompleteSeconds/bare.Seconds())
	fmt.Printf("import / bare decode: %.2fx wall, the process included; peak RSS target < 200 MB; CPU %v (%.2f s/MB)\n", took.Seconds()/bare.Seconds(), cost.cpu.Round(time.Millisecond), cost.perMB())
	if err := reimportUnchanged(bin, db, corpus, bare); err != nil {
		return importCost{}, err
	}
	return cost, nil
}

// reimportUnchanged imports the corpus again, unchanged, into the library
// it was imported into: its wall time and CPU against the bare decode of
// the same bytes (issue 25: at most 5 % of it; the files' sizes and
// modification times are trusted, store.FileStamps).
func reimportUnchanged(bin, db, corpus string, bare time.Duration) error {
	cmd := exec.Command(bin, "import", "--db", db, "--json", corpus)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import again: %w", err)
	}
	took := time.Since(start)
	var report struct {
		Totals struct{ Files, Unchanged int } `json:"totals"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		return fmt.Errorf("import again: report: %w", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	fmt.Printf("import again, unchanged: %d of %d files unchanged in %v, CPU %v: %.1f %% of the bare decode (target <= 5 %%)\n",
		report.Totals.Unchanged, report.Totals.Files, took.Round(time.Millisecond), cpu.Round(time.Millisecond), 100*took.Seconds()/bare.Seconds())
	return nil
}

// readerDecode reads every corpus file (*.jsonl below dir) with the reader
// of its format, as the importer does, into the entries it stores (each
// line decoded into the structures the importer needs and no further), and
// counts them.
func readerDecode(dir string) (int, error) {
	n := 0
	br := bufio.NewReaderSize(nil, 1<<20) // one buffer for every file: allocating one each cost a second
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isSessionFile(p) {
			return err
		}
		if isOpenCodeDB(p) {
			// A database: each session exported, then read whole.
			return eachOpenCodeDoc(p, func(id string, doc []byte) error {
				parsed, err := opencode.ParseDocument(doc, id)
				if err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
				n += len(parsed.Entries)
				return nil
			})
		}
		if strings.HasSuffix(p, cline.MessagesSuffix) {
			// A whole document: Cline's reader parses it at once.
			doc, err := cline.ReadFile(p)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			n += len(doc.Items)
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, sessionformat.HeadBytes)
		k, _ := io.ReadFull(f, head)
		format, why := sessionformat.Detect(head[:k])
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		br.Reset(f)
		r := br
		var next func() (*session.Entry, error)
		switch format {
		case sessionformat.Pi:
			next = pisession.NewReader(r, p).Next
		case sessionformat.ClaudeCode:
			next = claudecode.NewReader(r, p).Next
		case sessionformat.Codex:
			next = codex.NewReader(r, p).Next
		case sessionformat.Gemini:
			next = gemini.NewReader(r, p).Next
		case sessionformat.QwenCode:
			next = qwen.NewReader(r, p).Next
		case sessionformat.Copilot:
			next = copilot.NewReader(r, p).Next
		default:
			return fmt.Errorf("%s: %s", p, why)
		}
		for {
			if _, err := next(); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			n++
		}
	})
	return n, err
}

// bareDecode decodes every JSON object of every corpus file (*.jsonl below
// dir) into map[string]any with encoding/json and counts them.
func bareDecode(dir string) (int, error) {
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isSessionFile(p) {
			names = append(names, p)
		}
		return nil
	})
	n := 0
	br := bufio.NewReaderSize(nil, 1<<20) // one buffer for every file: allocating one each cost a second
	for _, name := range names {
		if isOpenCodeDB(name) {
			// A database: each session exported, its document decoded.
			err := eachOpenCodeDoc(name, func(id string, doc []byte) error {
				var v map[string]any
				if err := json.Unmarshal(doc, &v); err != nil {
					return fmt.Errorf("%s: %s: %w", name, id, err)
				}
				n++
				return nil
			})
			if err != nil {
				return n, err
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return n, err
		}
		br.Reset(f)
		dec := json.NewDecoder(br) // a line's object, or a whole document
		for {
			var v map[string]any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				f.Close()
				return n, fmt.Errorf("%s: %w", name, err)
			}
			n++
		}
		f.Close()
	}
	return n, nil
}

// isSessionFile tells the corpus's session files: JSON Lines, Cline's
// conversations (one JSON document each) and OpenCode's database (its
// sessions exported, one document each).
func isSessionFile(p string) bool {
	return strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, cline.MessagesSuffix) || isOpenCodeDB(p)
}
