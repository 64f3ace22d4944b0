package claudecode

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/golden*/*.json) from the real sessions")

// fixtureSet is what one run of the generator wrote with one Claude Code
// version (see testdata/generate/README.md): the sessions under Home, in
// Claude Code's layout, and the ground truth in Expected; the golden
// summaries of its files are in Golden.
type fixtureSet struct {
	Version  string
	Home     string
	Expected string
	Golden   string
	// RunningCost: the total_cost_usd of a run is the session's running
	// total (restored from its cost-state lines on --resume and carried
	// into a fork), not the run's own cost.
	RunningCost bool
}

// fixtureSets are the real sessions, oldest version first; the 2.1.197
// ones stay as they were written when a newer version is added.
var fixtureSets = []fixtureSet{
	{Version: "2.1.197", Home: "testdata/claude-home", Expected: "testdata/expected.json", Golden: "testdata/golden"},
	{Version: "2.1.332", Home: "testdata/claude-home-2.1.332", Expected: "testdata/expected-2.1.332.json", Golden: "testdata/golden-2.1.332", RunningCost: true},
}

// project is the folder of the generator's one project.
func (fx fixtureSet) project() string {
	return fx.Home + "/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api/"
}

// files are the session files the version wrote, sub-agent transcripts
// included.
func (fx fixtureSet) files(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(fx.Home+"/projects", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 3 {
		t.Fatalf("real files of %s: %v (%d)", fx.Version, err, len(files))
	}
	sort.Strings(files)
	return files
}

// expected reads the set's expected file and checks that it is the
// version's.
func (fx fixtureSet) expected(t testing.TB) *expected {
	t.Helper()
	x := sessionlogtest.ReadJSON[expected](t, fx.Expected)
	if x.ClaudeCodeVersion != fx.Version {
		t.Fatalf("%s: written by Claude Code %s, want %s", fx.Expected, x.ClaudeCodeVersion, fx.Version)
	}
	return x
}

// realFiles are the session files of every fixture set.
func realFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, fx := range fixtureSets {
		files = append(files, fx.files(t)...)
	}
	return files
}

// expected is an expected file (testdata/expected*.json), written by the
// generator: the steps it ran and every request its model server answered.
type expected struct {
	ClaudeCodeVersion string `json:"claudeCodeVersion"`
	Session           string `json:"session"`
	ForkSession       string `json:"forkSession"`
	RewindAt          string `json:"rewindAt"`
	Steps             []struct {
		Label         string  `json:"label"`
		SessionID     string  `json:"sessionId"`
		ResultCostUSD float64 `json:"resultCostUSD"`
		Requests      []int   `json:"requests"`
	} `json:"steps"`
	Requests []struct {
		N          int    `json:"n"`
		Model      string `json:"model"`
		ID         string `json:"id"`
		RequestID  string `json:"requestId"`
		StopReason string `json:"stop_reason"`
		Usage      *struct {
			Input         int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			Output        int64 `json:"output_tokens"`
			Split         struct {
				M5 int64 `json:"ephemeral_5m_input_tokens"`
				H1 int64 `json:"ephemeral_1h_input_tokens"`
			} `json:"cache_creation"`
		} `json:"usage"`
		Error *struct {
			Status int `json:"status"`
		} `json:"error"`
	} `json:"requests"`
}

func readAll(t testing.TB, r *Reader) []session.Entry {
	t.Helper()
	return sessionlogtest.Entries(t, r.Reader)
}

// TestRealFilesPositions checks every entry against the file: Raw is the
// file's bytes at Offset on Line, Seq counts from 0, nothing is malformed,
// and the whole file is consumed (§1, "store every line raw").
func TestRealFilesPositions(t *testing.T) {
	for _, path := range realFiles(t) {
		data, s := sessionlogtest.ReadLossless(t, path, Read)
		sessionlogtest.CheckAtLineStarts(t, path, data, s.Entries)
	}
}

// TestEveryLineAccountedFor compares the reader with a count written in
// Python: entries + malformed + blank lines = lines, and entries = JSON
// objects (§1, lossless). It skips when python3 is not installed.
func TestEveryLineAccountedFor(t *testing.T) {
	sessionlogtest.CheckLinesAccountedFor(t, realFiles(t), openLog)
}

// TestResumeAtEveryLine reads a prefix of each real file ending at every
// line boundary, stores the State as JSON, resumes with NewReaderAt over
// the rest: together they give exactly the entries, metadata and final
// State of a full read (issue 11 §2, appends resume at the stored offset).
func TestResumeAtEveryLine(t *testing.T) {
	sessionlogtest.CheckResumeAtEveryLine(t, realFiles(t), openLog, resumeLog)
}

// TestUsageAgainstTheServer checks usage on the real files against what the
// scripted server reported (the set's expected file), independently of the
// reader: each response recorded in a file carries its usage exactly once,
// with the server's counts (§1.5 "count each request once", §1.6.1 split
// lines); <synthetic> lines carry none.
func TestUsageAgainstTheServer(t *testing.T) {
	for _, fx := range fixtureSets {
		t.Run(fx.Version, func(t *testing.T) { checkUsageAgainstTheServer(t, fx) })
	}
}

func checkUsageAgainstTheServer(t *testing.T, fx fixtureSet) {
	x := fx.expected(t)
	byID := map[string]int{}
	for i, r := range x.Requests {
		if r.ID != "" {
			byID[r.ID] = i
		}
	}
	responses := 0
	for _, path := range fx.files(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		counted := map[string]int{}
		seen := map[string]bool{}
		for _, e := range s.Entries {
			if e.Type != session.TypeMessage || e.Message.Role != session.RoleAssistant {
				continue
			}
			var raw struct {
				Message struct {
					ID    string `json:"id"`
					Model string `json:"model"`
				} `json:"message"`
			}
			if err := json.Unmarshal(e.Raw, &raw); err != nil {
				t.Fatal(err)
			}
			if raw.Message.Model == Synthetic {
				if e.Message.Usage != nil {
					t.Errorf("%s line %d: <synthetic> message has usage (§1.5)", path, e.Line)
				}
				continue
			}
			seen[raw.Message.ID] = true
			if e.Message.Usage == nil {
				continue
			}
			counted[raw.Message.ID]++
			i, ok := byID[raw.Message.ID]
			if !ok {
				t.Fatalf("%s line %d: message %s was not served", path, e.Line, raw.Message.ID)
			}
			su, u := x.Requests[i].Usage, e.Message.Usage
			if u.Input != su.Input || u.Output != su.Output || u.CacheRead != su.CacheRead || u.CacheWrite != su.CacheCreation ||
				u.CacheWrite5m != su.Split.M5 || u.CacheWrite1h != su.Split.H1 {
				// A forked copy of a preserved message: Claude Code zeroes
				// its usage (it was billed in the original session).
				if !(strings.Contains(path, x.ForkSession) && u.Input == 0 && u.Output == 0) {
					t.Errorf("%s line %d: usage %+v, server said %+v", path, e.Line, *u, *su)
				}
			}
		}
		for id := range seen {
			if counted[id] != 1 {
				t.Errorf("%s: response %s counted %d times, want once", path, id, counted[id])
			}
		}
		responses += len(seen)
	}
	if responses == 0 {
		t.Errorf("no response in the files of %s", fx.Version)
	}
}

// TestToolCallsPaired: in every real file each tool call has exactly one
// result, which names the call's tool (§1.3: tool_result blocks carry only
// the id), and no result is without its call; the file's sub-agent calls
// (Agent) name the sub-agent in their result.
func TestToolCallsPaired(t *testing.T) {
	paired := 0
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]string{}
		results := map[string][]*session.Entry{}
		for i := range s.Entries {
			e := &s.Entries[i]
			m := e.Message
			if m == nil || e.DuplicateOf != "" {
				continue
			}
			for _, b := range m.Content {
				if b.Type == session.BlockToolCall {
					if _, dup := calls[b.ID]; dup || b.ID == "" {
						t.Errorf("%s line %d: call id %q seen twice", path, e.Line, b.ID)
					}
					calls[b.ID] = b.Name
					if !json.Valid(b.Arguments) || b.Arguments[0] != '{' {
						t.Errorf("%s line %d: call %s arguments %s", path, e.Line, b.ID, b.Arguments)
					}
				}
			}
			if m.Role == session.RoleToolResult {
				results[m.ToolCallID] = append(results[m.ToolCallID], e)
			}
		}
		paired += len(calls)
		for id, name := range calls {
			rs := results[id]
			if len(rs) != 1 || rs[0].Message.ToolName != name {
				t.Errorf("%s: call %s (%s): %d results", path, id, name, len(rs))
				continue
			}
			if name == "Agent" && rs[0].SubagentID == "" {
				t.Errorf("%s line %d: the Agent call's result names no sub-agent", path, rs[0].Line)
			}
		}
		for id, rs := range results {
			if _, ok := calls[id]; !ok {
				t.Errorf("%s line %d: result for %s, which no call in the file made", path, rs[0].Line, id)
			}
		}
	}
	// Each run: Bash and Read in parallel, Edit, Bash, Agent; the
	// sub-agent's Bash.
	if paired != 6*len(fixtureSets) {
		t.Errorf("%d tool calls in the real files, want %d", paired, 6*len(fixtureSets))
	}
}

// listPrices are Anthropic's list prices per Mtok of the models the
// generator's runs used, written out from the models' pages on
// platform.claude.com (input, output, 5-minute and 1-hour cache writes,
// cache reads); Opus 5.5's cache reads are 0.05x input, not the usual 0.1x.
var listPrices = map[string][5]float64{
	"claude-opus-4-8": {5, 25, 6.25, 10, 0.50},
	"claude-opus-5-5": {4, 20, 5, 8, 0.20},
}

// TestCostMatchesClaudeCode prices each run's responses with the package's
// table and compares with the total_cost_usd Claude Code itself reported
// for the run (its own built-in table, a separate implementation), and with
// the list prices written out above (§1.5). From 2.1.332 total_cost_usd is
// the session's running total: a run's cost is what it added.
func TestCostMatchesClaudeCode(t *testing.T) {
	for _, fx := range fixtureSets {
		t.Run(fx.Version, func(t *testing.T) { checkCostMatchesClaudeCode(t, fx) })
	}
}

func checkCostMatchesClaudeCode(t *testing.T, fx fixtureSet) {
	x := fx.expected(t)
	byN := map[int]int{}
	for i, r := range x.Requests {
		byN[r.N] = i
	}
	before := 0.0
	for _, step := range x.Steps {
		var mine, formula float64
		for _, n := range step.Requests {
			r := x.Requests[byN[n]]
			if r.Usage == nil {
				continue
			}
			su := r.Usage
			v := usageVal{In: su.Input, Out: su.Output, Read: su.CacheRead, Create: su.CacheCreation, Create5m: su.Split.M5, Create1h: su.Split.H1}
			mine += v.Usage(r.Model).Cost.Total
			p, ok := listPrices[r.Model]
			if !ok {
				t.Fatalf("request %d: model %s has no list price written out in this test", n, r.Model)
			}
			formula += (float64(su.Input)*p[0] + float64(su.Output)*p[1] + float64(su.Split.M5)*p[2] + float64(su.Split.H1)*p[3] +
				float64(su.CacheRead)*p[4]) / 1e6
		}
		claude := step.ResultCostUSD
		if fx.RunningCost {
			claude, before = step.ResultCostUSD-before, step.ResultCostUSD
		}
		if math.Abs(mine-claude) > 1e-9 || math.Abs(mine-formula) > 1e-9 {
			t.Errorf("%s: cost %.9f, Claude Code said %.9f, the list prices %.9f", step.Label, mine, claude, formula)
		}
	}
}

// goldenEntry is one entry of a golden file: what the mapping decided.
type goldenEntry struct {
	Line       int    `json:"line"`
	ID         string `json:"id"`
	Parent     string `json:"parent,omitempty"`
	Type       string `json:"type"`
	Subtype    string `json:"subtype,omitempty"`
	Role       string `json:"role,omitempty"`
	Custom     string `json:"customType,omitempty"`
	Blocks     string `json:"blocks,omitempty"`
	Stop       string `json:"stopReason,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Turn       string `json:"turn,omitempty"`
	Usage      string `json:"usage,omitempty"`
	CostUSD    string `json:"costUSD,omitempty"`
	Flags      string `json:"flags,omitempty"`
	Subagent   string `json:"subagent,omitempty"`
	TargetID   string `json:"targetId,omitempty"`
	Name       string `json:"name,omitempty"`
	TextSHA256 string `json:"textSha256,omitempty"`
}

// golden is <set golden folder>/<file>.json: assertions tagged with the spec
// section they check, then every entry.
type golden struct {
	File       string              `json:"file"`
	Header     session.Header      `json:"spec 1.1 header: synthesised from the first lines"`
	Metadata   Metadata            `json:"spec 1.2 metadata: last one wins"`
	ByType     map[string]int      `json:"spec 1.2 entries by type and role"`
	Tree       map[string][]string `json:"spec 1.4 tree: roots; rewinds; duplicates; compactions"`
	Usage      map[string]any      `json:"spec 1.5 usage once per response and cost in USD"`
	Persisted  []string            `json:"spec 1.1 tool-results read where a line points at them"`
	Problems   map[string]int      `json:"spec 1.6 problems"`
	Consumed   int64               `json:"consumedBytes"`
	Lines      int                 `json:"lines"`
	StateBytes int                 `json:"stateJSONBytes"`
	Entries    []goldenEntry       `json:"entries"`
}

func summarize(t *testing.T, path string, s *Session) golden {
	g := golden{File: filepath.ToSlash(path), Header: s.Header, Metadata: s.Metadata, ByType: map[string]int{},
		Tree:     map[string][]string{"roots": {}, "rewinds": {}, "duplicates": {}, "compactions": {}, "danglingParents": {}},
		Problems: map[string]int{"malformed": s.MalformedCount, "warnings": s.WarningCount}, Consumed: s.Consumed, Lines: s.Lines}
	if s.Pending != nil {
		g.Problems["pending"] = 1
	}
	b, _ := json.Marshal(s.State)
	g.StateBytes = len(b)
	ids := map[string]bool{}
	var total session.Usage
	var cost float64
	responses := 0
	for i := range s.Entries {
		e := &s.Entries[i]
		ids[e.ID] = true
		k := e.Type
		ge := goldenEntry{Line: e.Line, ID: e.ID, Parent: e.ParentID, Type: e.Type, Subtype: e.Subtype, Turn: short(e.TurnID),
			Subagent: e.SubagentID, TargetID: e.TargetID, Name: e.Name}
		var flags []string
		for _, f := range []struct {
			on   bool
			name string
		}{{e.Rewind, "rewind"}, {e.Sidechain, "sidechain"}, {e.DuplicateOf != "", "duplicate"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		ge.Flags = strings.Join(flags, ",")
		if m := e.Message; m != nil {
			k += ":" + m.Role
			ge.Role, ge.Custom, ge.Stop, ge.Tool = m.Role, m.CustomType, m.StopReason, m.ToolName
			var bt []string
			for _, b := range m.Content {
				bt = append(bt, b.Type)
			}
			ge.Blocks = strings.Join(bt, ",")
			if u := m.Usage; u != nil {
				responses++
				ge.Usage = fmt.Sprintf("in %d out %d read %d write %d (5m %d, 1h %d)", u.Input, u.Output, u.CacheRead, u.CacheWrite, u.CacheWrite5m, u.CacheWrite1h)
				ge.CostUSD = fmt.Sprintf("%.6f", u.Cost.Total)
				total.Input += u.Input
				total.Output += u.Output
				total.CacheRead += u.CacheRead
				total.CacheWrite += u.CacheWrite
				total.CacheWrite5m += u.CacheWrite5m
				total.CacheWrite1h += u.CacheWrite1h
				cost += u.Cost.Total
			}
			if m.ToolCallID != "" {
				for _, po := range PersistedOutputs(path, e) {
					if po.Err != nil {
						t.Errorf("%s line %d: %v", path, e.Line, po.Err)
						continue
					}
					g.Persisted = append(g.Persisted, fmt.Sprintf("line %d: %s (%d bytes, sha256 %s)", e.Line,
						filepath.Base(po.Path), len(po.Content), sessionlogtest.TextHash(string(po.Content))))
				}
			}
		}
		if txt := session.EntryText(e); txt != "" {
			ge.TextSHA256 = sessionlogtest.TextHash(txt)
		}
		g.ByType[k]++
		switch {
		case e.Type == session.TypeCompaction:
			g.Tree["compactions"] = append(g.Tree["compactions"], fmt.Sprintf("line %d %s joined to %s", e.Line, short(e.ID), short(e.ParentID)))
		case e.ParentID == "" && e.Message != nil:
			g.Tree["roots"] = append(g.Tree["roots"], fmt.Sprintf("line %d %s", e.Line, short(e.ID)))
		}
		if e.ParentID != "" && !ids[e.ParentID] {
			g.Tree["danglingParents"] = append(g.Tree["danglingParents"], fmt.Sprintf("line %d %s -> %s", e.Line, short(e.ID), short(e.ParentID)))
		}
		if e.Rewind {
			g.Tree["rewinds"] = append(g.Tree["rewinds"], fmt.Sprintf("line %d %s under %s", e.Line, short(e.ID), short(e.ParentID)))
		}
		if e.DuplicateOf != "" {
			g.Tree["duplicates"] = append(g.Tree["duplicates"], fmt.Sprintf("line %d %s", e.Line, short(e.ID)))
		}
		g.Entries = append(g.Entries, ge)
	}
	g.Usage = map[string]any{"responses": responses, "input": total.Input, "output": total.Output, "cacheRead": total.CacheRead,
		"cacheWrite": total.CacheWrite, "cacheWrite5m": total.CacheWrite5m, "cacheWrite1h": total.CacheWrite1h,
		"costUSD": fmt.Sprintf("%.6f", cost)}
	return g
}

func short(id string) string {
	if len(id) > 8 && !strings.HasPrefix(id, "L") {
		return id[:8]
	}
	return id
}

// TestRealFilesGolden compares the parsed result of each real file with
// its set's golden folder (update with -update, review the diff).
func TestRealFilesGolden(t *testing.T) {
	for _, fx := range fixtureSets {
		for _, path := range fx.files(t) {
			s, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(filepath.Base(path), ".jsonl") + ".json"
			sessionlogtest.CheckGolden(t, path, filepath.Join(fx.Golden, name), summarize(t, path, s), *update)
		}
	}
}
