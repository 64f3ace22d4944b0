package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// The import cost of the newer agents' formats (issue 24: per byte within
// 1.5x of pi's): for each, a corpus of a few hundred sessions made of the
// real files its program wrote (backend/<agent>/testdata/<agent>-home), the
// home copied with new ids until it holds the corpus's bytes, imported by
// the binary as the pi corpus is, in the same run.

// agentHome is an agent's real home as its generator left it.
type agentHome struct {
	format string // sessionformat name
	root   string // the home, relative to the repository's root
	// corpus writes the corpus from the home; nil: writeHomeCopies.
	corpus func(root, dst string, target int64) (int, int64, error)
}

var agentHomes = []agentHome{
	{"pi", "backend/segment/testdata/v3/sessions", nil}, // the baseline: pi 0.73.1's own small sessions
	{"gemini-cli", "backend/gemini/testdata/gemini-home", nil},
	{"qwen-code", "backend/qwen/testdata/qwen-home", nil},
	{"copilot-cli", "backend/copilot/testdata/copilot-home", nil},
	{"cline", "backend/cline/testdata/cline-home", nil},
	// A database, not files: its sessions copied within it (opencode.go).
	{"opencode", "backend/opencode/testdata/opencode-home", writeOpenCodeCorpus},
}

// callIDRE matches an OpenAI-style tool call id ("call_IiGUgr73okfu…"),
// which names a Qwen Code sub-agent's transcript: copies get new ones.
var callIDRE = regexp.MustCompile(`\bcall_[A-Za-z0-9]{8,}\b`)

// benchAgents imports a corpus of about target bytes of each agent's real
// sessions and prints its CPU time per MB beside pi's: pi's own generated
// sessions copied the same way (a few hundred small sessions, as the other
// agents'), and the corpus of real pi sessions of this run (a few large
// ones; none when it was skipped).
func benchAgents(bin, dir string, target int64, piLarge importCost) error {
	costs := map[string]importCost{}
	for _, h := range agentHomes {
		fmt.Printf("== %s sessions (copies of %s, new ids)\n", h.format, h.root)
		write := h.corpus
		if write == nil {
			write = writeHomeCopies
		}
		c, err := run(bin, filepath.Join(dir, "agent-"+h.format), target, func(corpus string, target int64) (int, int64, error) {
			return write(h.root, corpus, target)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", h.format, err)
		}
		costs[h.format] = c
	}
	pi := costs["pi"]
	fmt.Printf("import CPU per MB against pi's small sessions (%.2f s/MB, same run; target <= 1.5x):", pi.perMB())
	for _, h := range agentHomes[1:] {
		c := costs[h.format]
		fmt.Printf("  %s %.2f s/MB (%.2fx)", h.format, c.perMB(), c.perMB()/pi.perMB())
	}
	fmt.Println()
	if piLarge.bytes > 0 {
		fmt.Printf("(pi's large real sessions above: %.2f s/MB)\n", piLarge.perMB())
	}
	return nil
}

// writeHomeCopies copies every file of the home root into dst until the
// session files (isSessionFile) hold target bytes: each copy a folder with the
// files at their relative paths, every UUID, Claude-style agent id and
// tool call id in names and content new (the same throughout the copy). It
// returns the session files and their bytes.
func writeHomeCopies(root, dst string, target int64) (files int, size int64, err error) {
	type src struct {
		rel  string
		data []byte
	}
	var srcs []src
	var sessionBytes int64
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		srcs = append(srcs, src{rel, b})
		if isSessionFile(p) {
			sessionBytes += int64(len(b))
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	if sessionBytes == 0 {
		return 0, 0, fmt.Errorf("corpus: no session files in %s (run from the repository's root)", root)
	}
	for copyN := 0; size < target; copyN++ {
		remap := newCopyRemap(copyN)
		// The contents first: a file's name may hold a prefix of an id
		// that only its content spells out whole.
		data := make([][]byte, len(srcs))
		for i, s := range srcs {
			data[i] = remap(s.data)
		}
		for i, s := range srcs {
			p := filepath.Join(dst, fmt.Sprintf("copy-%05d", copyN), string(remap([]byte(s.rel))))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return files, size, err
			}
			b := data[i]
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return files, size, err
			}
			if isSessionFile(p) {
				files++
				size += int64(len(b))
			}
		}
	}
	return files, size, nil
}

// copyRemap gives one copy of a home new ids: every UUID a new one (all of
// it: Gemini CLI names a chat file after its session UUID's first 8 hex
// digits, "session-<time>-3f0c8a52.jsonl", so those change too, wherever
// they stand alone), Claude-style agent ids and tool call ids.
type copyRemap struct {
	copyN  int
	ids    map[string]string
	prefix map[string]string // a UUID's first 8 hex digits -> its new one's
	agents *remapper
}

var hex8RE = regexp.MustCompile(`\b[0-9a-f]{8}\b`)

// clineIDRE matches the millisecond time a Cline session or sub-agent id
// starts with ("1796293572120_9cho8", "agent_1796293579109_125i2q").
var clineIDRE = regexp.MustCompile(`\b[0-9]{13}_`)

func newCopyRemap(copyN int) func([]byte) []byte {
	c := &copyRemap{copyN: copyN, ids: map[string]string{}, prefix: map[string]string{}, agents: newRemapper()}
	return c.bytes
}

func (c *copyRemap) bytes(b []byte) []byte {
	b = uuidRE.ReplaceAllFunc(b, func(m []byte) []byte {
		v, ok := c.ids[string(m)]
		if !ok {
			var x [16]byte
			rand.Read(x[:])
			h := hex.EncodeToString(x[:])
			v = h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
			c.ids[string(m)] = v
			c.prefix[string(m[:8])] = v[:8]
		}
		return []byte(v)
	})
	b = hex8RE.ReplaceAllFunc(b, func(m []byte) []byte {
		if v, ok := c.prefix[string(m)]; ok {
			return []byte(v)
		}
		return m
	})
	b = agentIDRE.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(c.agents.agentID(string(m))) })
	b = clineIDRE.ReplaceAllFunc(b, func(m []byte) []byte {
		ms, _ := strconv.ParseInt(string(m[:13]), 10, 64)
		return fmt.Appendf(nil, "%013d_", ms+int64(c.copyN)*10_000_000) // each copy 10,000 s later
	})
	return callIDRE.ReplaceAllFunc(b, func(m []byte) []byte {
		v, ok := c.ids[string(m)]
		if !ok {
			v = fmt.Sprintf("call_%s%06d", m[5:min(len(m), 15)], c.copyN)
			c.ids[string(m)] = v
		}
		return []byte(v)
	})
}
