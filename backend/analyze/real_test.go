package analyze

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The real sessions of app/samples (see its README.md) and the files a grep
// of each shows it touches.
var realSessions = []struct {
	name string
	// files that grep shows the session touches, relative to its cwd:
	// through read/edit/write tool paths and through bash commands.
	files []string
}{
	{"large-session", []string{
		"packages/coding-agent/src/tui/user-message-selector.ts", // edit path
		"packages/tui/test/test-themes.ts",                       // write path
		"packages/coding-agent/docs/theme.md",                    // read path
		"packages/tui/test/editor.test.ts",                       // bash: sed -i '' 's/...' packages/tui/test/editor.test.ts
		"/tmp/fix_markdown.py",                                   // bash: cat > /tmp/fix_markdown.py << 'EOF'
	}},
	{"session-with-compaction", []string{
		"packages/coding-agent/docs/skills.md",               // write path (absolute in the session)
		"packages/coding-agent/src/core/settings-manager.ts", // read path
	}},
	{"compact-with-images", []string{
		"packages/coding-agent/examples/hooks/custom-compaction.ts", // write path (absolute)
		"packages/coding-agent/CHANGELOG.md",                        // edit path
	}},
}

// analyzedAt is the fixed analysis time of the golden nodes.
var analyzedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// analyzeReal reads a real session, segments it and analyzes every segment
// with an accumulator fed entry by entry, as the importer does.
func analyzeReal(t testing.TB, name string) (*pisession.Session, []segment.Segment, []graph.Node) {
	t.Helper()
	s, err := pisession.ReadFile(pitest.Sample(name + ".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	segs := segment.Split(s.Entries, segment.DefaultOptions())
	nodes := make([]graph.Node, 0, len(segs))
	a := NewAccumulator()
	for i, sg := range segs {
		a.Reset()
		for j := sg.StartSeq; j <= sg.EndSeq; j++ {
			a.Add(&s.Entries[j])
		}
		in := Input{Header: s.Header, SessionFile: "/sessions/" + name + ".jsonl", Computer: "test-host",
			Segment: sg, IsNewProject: i == 0, Abandoned: LeftByNavigation(segs, i)}
		nodes = append(nodes, a.Node(in, analyzedAt))
	}
	return s, segs, nodes
}

// rawObjects decodes every JSON object of a session file (several may share
// a line) into generic maps, independently of package pisession.
func rawObjects(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(pitest.Sample(name + ".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []map[string]any
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, m)
	}
}

// get walks nested maps by keys.
func get(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func TestRealSessions(t *testing.T) {
	for _, rs := range realSessions {
		t.Run(rs.name, func(t *testing.T) {
			s, segs, nodes := analyzeReal(t, rs.name)
			objs := rawObjects(t, rs.name)

			// Cost: the nodes' costs add up to the session's cost, summed
			// independently from usage.cost.total of every assistant
			// message: exactly in 1e-12 USD, and within 1e-9 USD as floats.
			var wantFloat, gotFloat float64
			var wantPico, gotPico int64
			var wantTokens, gotTokens int64
			for _, o := range objs {
				if get(o, "message", "role") != "assistant" {
					continue
				}
				c, _ := get(o, "message", "usage", "cost", "total").(float64)
				wantFloat += c
				wantPico += int64(math.Round(c * 1e12))
				u, _ := get(o, "message", "usage").(map[string]any)
				if tt, ok := u["totalTokens"].(float64); ok && tt > 0 {
					wantTokens += int64(tt)
				} else {
					for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
						f, _ := u[k].(float64)
						wantTokens += int64(f)
					}
				}
			}
			for _, n := range nodes {
				gotFloat += n.Metadata.Cost
				gotPico += pico(n.Metadata.Cost)
				gotTokens += n.Metadata.TokensUsed
				var perModel int64
				for _, m := range n.Observations.ModelsUsed {
					perModel += pico(m.Cost)
				}
				if perModel != pico(n.Metadata.Cost) {
					t.Errorf("node %s: models cost %d != node cost %d (1e-12 USD)", n.ID, perModel, pico(n.Metadata.Cost))
				}
			}
			if gotPico != wantPico || math.Abs(gotFloat-wantFloat) > 1e-9 {
				t.Errorf("cost: nodes %.12f (%d), assistant messages %.12f (%d)", gotFloat, gotPico, wantFloat, wantPico)
			}
			if gotTokens != wantTokens {
				t.Errorf("tokens: nodes %d, assistant messages %d", gotTokens, wantTokens)
			}

			// Files: every path of a read, edit or write tool call (found
			// independently) is in some node's filesTouched, and so are the
			// files grep shows the session touches through bash.
			all := map[string]bool{}
			for _, n := range nodes {
				for _, f := range n.Content.FilesTouched {
					all[f] = true
				}
			}
			for _, o := range objs {
				content, _ := get(o, "message", "content").([]any)
				for _, b := range content {
					bm, _ := b.(map[string]any)
					if bm["type"] != "toolCall" || !slices.Contains([]any{"read", "edit", "write"}, bm["name"]) {
						continue
					}
					p, _ := get(bm, "arguments", "path").(string)
					if p == "" {
						continue
					}
					p = path.Clean(p)
					if strings.HasPrefix(p, s.Header.Cwd+"/") {
						p = p[len(s.Header.Cwd)+1:]
					}
					if !all[p] {
						t.Errorf("%s of a %s call is not in filesTouched", p, bm["name"])
					}
				}
			}
			for _, f := range rs.files {
				if !all[f] {
					t.Errorf("filesTouched lacks %s", f)
				}
			}

			// Every segment with user text has a summary; every node is
			// well formed.
			for i, n := range nodes {
				hasUser := false
				for j := segs[i].StartSeq; j <= segs[i].EndSeq; j++ {
					e := &s.Entries[j]
					if e.Message != nil && e.Message.Role == session.RoleUser && strings.TrimSpace(session.EntryText(e)) != "" {
						hasUser = true
					}
				}
				if hasUser && n.Content.Summary == "" {
					t.Errorf("segment %d has user text but no summary", i)
				}
				if len([]rune(n.Content.Summary)) > maxSummaryRunes {
					t.Errorf("segment %d: summary of %d runes", i, len([]rune(n.Content.Summary)))
				}
				if n.Source.Segment.EntryCount != segs[i].EntryCount || n.ID != NodeID(s.Header.ID, segs[i].StartSeq) {
					t.Errorf("segment %d: source %+v id %s", i, n.Source.Segment, n.ID)
				}
				if !slices.Contains(graph.NodeTypes, n.Classification.Type) {
					t.Errorf("segment %d: type %q", i, n.Classification.Type)
				}
			}
		})
	}
}

// TestRealSessionsGolden compares the nodes of every real session with
// testdata/golden/<name>.json; go test -update rewrites them. Review the diff:
// the summaries must make sense to a reader.
func TestRealSessionsGolden(t *testing.T) {
	for _, rs := range realSessions {
		t.Run(rs.name, func(t *testing.T) {
			_, _, nodes := analyzeReal(t, rs.name)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(nodes); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			golden := filepath.Join("testdata", "golden", rs.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("nodes differ from %s (run go test -update and review the diff)", golden)
			}
		})
	}
}

// TestRealSessionsStreamingEqualsWhole checks that feeding entries one by one
// (the importer's way) gives the nodes Analyze gives over the whole slice.
func TestRealSessionsStreamingEqualsWhole(t *testing.T) {
	for _, rs := range realSessions {
		s, segs, nodes := analyzeReal(t, rs.name)
		for i, sg := range segs {
			in := Input{Header: s.Header, SessionFile: "/sessions/" + rs.name + ".jsonl", Computer: "test-host",
				Segment: sg, IsNewProject: i == 0, Abandoned: LeftByNavigation(segs, i)}
			want, _ := json.Marshal(Analyze(in, s.Entries[sg.StartSeq:sg.EndSeq+1], analyzedAt))
			got, _ := json.Marshal(nodes[i])
			if !bytes.Equal(got, want) {
				t.Errorf("%s segment %d: streaming and whole analysis differ", rs.name, i)
			}
		}
	}
}

// BenchmarkAdd measures Accumulator.Add over the entries of the real
// sessions (about 2,500 entries, 3.5 MB); ns/op is per entry.
func BenchmarkAdd(b *testing.B) {
	var entries []session.Entry
	var size int64
	for _, rs := range realSessions {
		p := pitest.Sample(rs.name + ".jsonl")
		s, err := pisession.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		entries = append(entries, s.Entries...)
		st, _ := os.Stat(p)
		size += st.Size()
	}
	a := NewAccumulator()
	b.SetBytes(size / int64(len(entries)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%len(entries) == 0 {
			a.Reset()
		}
		a.Add(&entries[i%len(entries)])
	}
}

// BenchmarkNode measures building a node from a large segment's facts.
func BenchmarkNode(b *testing.B) {
	s, err := pisession.ReadFile(pitest.Sample("large-session.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	a := NewAccumulator()
	for i := range s.Entries {
		a.Add(&s.Entries[i])
	}
	in := Input{Header: s.Header}
	b.ReportAllocs()
	for b.Loop() {
		a.Node(in, analyzedAt)
	}
}
