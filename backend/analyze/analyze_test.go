package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		build func(s *sessionBuilder)
		want  graph.NodeType
	}{
		{"code edits", func(s *sessionBuilder) {
			s.user("add a --verbose flag to the import command").read("cmd/import.go").edit("cmd/import.go").say("Added.")
		}, graph.TypeCoding},
		{"fix with code edits", func(s *sessionBuilder) {
			s.user("fix the crash when the config file is empty").edit("config.go").say("Fixed the nil map.")
		}, graph.TypeDebugging},
		{"fix with only doc edits is documentation", func(s *sessionBuilder) {
			s.user("fix the typos in the readme please").edit("README.md").say("Fixed three typos.")
		}, graph.TypeDocumentation},
		{"refactor beats fix", func(s *sessionBuilder) {
			s.user("refactor the parser and fix the bug in it").edit("parser.go").say("Done.")
		}, graph.TypeRefactoring},
		{"rename", func(s *sessionBuilder) {
			s.user("rename Foo to Bar everywhere").edit("a.go").edit("b.go").say("Renamed.")
		}, graph.TypeRefactoring},
		{"passing mention of fix in a long segment", func(s *sessionBuilder) {
			s.user("implement the export view with a table and filters").write("src/export.ts")
			s.user("add sorting by date to the table").edit("src/export.ts")
			s.user("and paging with 50 rows per page").edit("src/export.ts")
			s.user("the header should stick when scrolling, fix that").edit("src/export.css")
			s.user("now add a csv download button to it").edit("src/export.ts")
			s.say("Done.")
		}, graph.TypeCoding},
		{"tests edited only", func(s *sessionBuilder) {
			s.user("add cases for empty input to the parser tests").edit("parser_test.go").edit("parser_test.go")
		}, graph.TypeQA},
		{"go test without edits", func(s *sessionBuilder) {
			s.user("run the whole test suite and tell me what fails").bash("cd /x && go test ./...", "ok", false)
		}, graph.TypeQA},
		{"npm test without edits", func(s *sessionBuilder) {
			s.user("does everything pass?").bash("npm test", "ok", false)
		}, graph.TypeQA},
		{"review without edits", func(s *sessionBuilder) {
			s.user("review the changes in the last commit for problems").bash("git show HEAD", "diff", false)
		}, graph.TypeQA},
		{"reads only", func(s *sessionBuilder) {
			s.user("how does the session reader handle v1 files?").read("reader.go").bash("grep -rn migrate .", "x", false)
		}, graph.TypeResearch},
		{"web fetch only", func(s *sessionBuilder) {
			s.user("what is new in the latest svelte release?").tool("web_fetch", map[string]any{"url": "https://svelte.dev"}, "x", false)
		}, graph.TypeResearch},
		{"docs only", func(s *sessionBuilder) {
			s.user("document the import command in the user guide").edit("docs/import.md").write("README.md")
		}, graph.TypeDocumentation},
		{"config files", func(s *sessionBuilder) {
			s.user("bump the node version used in ci to 22").edit(".github/workflows/ci.yml").edit("package.json")
		}, graph.TypeConfiguration},
		{"Makefile and Dockerfile", func(s *sessionBuilder) {
			s.user("add a docker build target to the build").edit("Makefile").write("Dockerfile")
		}, graph.TypeConfiguration},
		{"sysadmin commands", func(s *sessionBuilder) {
			s.user("install nginx on the box and restart it").bash("sudo apt-get install -y nginx && systemctl restart nginx", "ok", false)
		}, graph.TypeSysadmin},
		{"ssh", func(s *sessionBuilder) {
			s.user("check disk space on the server").bash("ssh prod df -h", "ok", false)
		}, graph.TypeSysadmin},
		{"docker", func(s *sessionBuilder) {
			s.user("why is the container restarting all the time").bash("docker logs web", "x", false)
		}, graph.TypeSysadmin},
		{"plan without edits", func(s *sessionBuilder) {
			s.user("let's plan the architecture of the sync engine before writing code").say("Here is a plan: ...")
		}, graph.TypePlanning},
		{"design with edits is not planning", func(s *sessionBuilder) {
			s.user("design and build the settings dialog").write("src/settings.svelte")
		}, graph.TypeCoding},
		{"brainstorm", func(s *sessionBuilder) {
			s.user("brainstorm some ideas for naming the app").say("Rhizome, Mycel, ...")
		}, graph.TypeBrainstorm},
		{"handoff words", func(s *sessionBuilder) {
			s.user("write the notes and handoff to the next agent").write("HANDOFF.md")
		}, graph.TypeHandoff},
		{"handoff custom entry", func(s *sessionBuilder) {
			s.user("wrap up").add(session.Entry{Type: session.TypeCustom, CustomType: "handoff"})
		}, graph.TypeHandoff},
		{"csv analysis", func(s *sessionBuilder) {
			s.user("summarise the sales numbers per region").read("data/sales.csv").bash("duckdb -c 'select 1'", "1", false)
		}, graph.TypeData},
		{"sql edits", func(s *sessionBuilder) {
			s.user("add an index on nodes.project").edit("store/migrations/002_index.sql")
		}, graph.TypeData},
		{"chat only", func(s *sessionBuilder) {
			s.user("write me a little poem about graphs").say("Nodes and edges...")
		}, graph.TypeOther},
		{"slash command only", func(s *sessionBuilder) {
			s.user("/mode")
		}, graph.TypeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sessionBuilder{}
			tt.build(s)
			if got := s.node().Classification.Type; got != tt.want {
				t.Errorf("type = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestClassifyHandoffBoundary(t *testing.T) {
	s := (&sessionBuilder{}).user("continue with the plan").edit("a.go")
	in := Input{Header: testHeader, Segment: segment.Segment{StartEntryID: "e1", EndEntryID: "e3", EntryCount: 3,
		Boundaries: []segment.Boundary{{Type: segment.Handoff, EntryID: "e1"}}}}
	if got := Analyze(in, s.entries, t0).Classification.Type; got != graph.TypeHandoff {
		t.Errorf("type = %s, want handoff", got)
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		name      string
		build     func(s *sessionBuilder)
		abandoned bool
		want      graph.Outcome
	}{
		{"clean", func(s *sessionBuilder) { s.user("add x to the thing").edit("a.go").say("Added x.") }, false, graph.OutcomeSuccess},
		{"abandoned by navigation", func(s *sessionBuilder) { s.user("add x to the thing").edit("a.go").say("Added.") }, true, graph.OutcomeAbandoned},
		{"request never answered", func(s *sessionBuilder) { s.user("add x to the thing") }, false, graph.OutcomeAbandoned},
		{"model error at the end", func(s *sessionBuilder) { s.user("add x to the thing").edit("a.go").assistant("error", nil, "") }, false, graph.OutcomeFailed},
		{"aborted at the end", func(s *sessionBuilder) { s.user("add x to the thing").edit("a.go").assistant("aborted", nil, "") }, false, graph.OutcomeFailed},
		{"model error then recovered", func(s *sessionBuilder) {
			s.user("add x to the thing").assistant("error", nil, "").user("continue").edit("a.go").say("Added.")
		}, false, graph.OutcomeSuccess},
		{"last tool failed", func(s *sessionBuilder) {
			s.user("add x to the thing").edit("a.go").bash("go build ./...", "a.go:3: undefined: y", true)
		}, false, graph.OutcomeFailed},
		{"error resolved by a retry", func(s *sessionBuilder) {
			s.user("add x to the thing").bash("go build ./...", "undefined: y", true).edit("a.go").
				bash("go build ./...", "", false).say("Builds now.")
		}, false, graph.OutcomeSuccess},
		{"error unresolved but work went on", func(s *sessionBuilder) {
			s.user("publish the release").bash("npm publish", "E403 forbidden", true).
				bash("ls", "a b", false).say("Publishing failed: no rights.")
		}, false, graph.OutcomePartial},
		{"length stop", func(s *sessionBuilder) { s.user("write the whole guide").assistant("length", nil, "The guide ...") }, false, graph.OutcomePartial},
		{"edit error resolved by a later edit", func(s *sessionBuilder) {
			s.user("add x to the thing").tool("edit", map[string]any{"path": "a.go"}, "Could not find the exact text", true).
				edit("a.go").say("Added.")
		}, false, graph.OutcomeSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sessionBuilder{}
			tt.build(s)
			in := Input{Header: testHeader, Abandoned: tt.abandoned}
			if got := Analyze(in, s.entries, t0).Content.Outcome; got != tt.want {
				t.Errorf("outcome = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFilesTouched(t *testing.T) {
	tests := []struct {
		name  string
		build func(s *sessionBuilder)
		want  []string
	}{
		{"read edit write path and file_path, made relative", func(s *sessionBuilder) {
			s.read("/home/will/projects/demo/src/a.go").
				tool("edit", map[string]any{"file_path": "src/b.go"}, "ok", false).
				tool("Write", map[string]any{"file_path": "/home/will/projects/demo/README.md"}, "ok", false).
				tool("NotebookEdit", map[string]any{"notebook_path": "nb/x.ipynb"}, "ok", false)
		}, []string{"README.md", "nb/x.ipynb", "src/a.go", "src/b.go"}},
		{"outside the project stays absolute; ./ and .. cleaned", func(s *sessionBuilder) {
			s.read("/etc/hosts.conf").read("./src/../src/a.go").read("../other/c.go")
		}, []string{"../other/c.go", "/etc/hosts.conf", "src/a.go"}},
		{"deduplicated across absolute and relative", func(s *sessionBuilder) {
			s.read("src/a.go").edit("/home/will/projects/demo/src/a.go").read("src/a.go")
		}, []string{"src/a.go"}},
		{"bash: files with extensions, not dirs, flags, globs or urls", func(s *sessionBuilder) {
			s.bash(`cd /home/will/projects/demo && npx tsx src/cli.ts --config=conf/app.yaml -v packages/ src/*.ts https://x.io/a.js 1.2.3`, "", false)
		}, []string{"conf/app.yaml", "src/cli.ts"}},
		{"bash: grep pattern and commit message are not files", func(s *sessionBuilder) {
			s.bash(`grep -rn "theme.ts" src/lib.go && git commit -m "fix main.go" && echo done.txt`, "", false)
		}, []string{"src/lib.go"}},
		{"bash: grep -e pattern, then the path is a file", func(s *sessionBuilder) {
			s.bash(`grep -e pattern.go src/x.go`, "", false)
		}, []string{"src/x.go"}},
		{"bash: redirection target, here-document body skipped", func(s *sessionBuilder) {
			s.bash("cat > /tmp/fix.py << 'EOF'\nopen('inner.md').read()\nEOF\npython3 /tmp/fix.py", "", false)
		}, []string{"/tmp/fix.py"}},
		{"bash: sed script skipped, file kept; Makefile by name", func(s *sessionBuilder) {
			s.bash(`sed -i '' 's/a.go/b.go/g' pkg/c.go && make -f Makefile`, "", false)
		}, []string{"Makefile", "pkg/c.go"}},
		{"user bash execution", func(s *sessionBuilder) {
			s.msg(session.Message{Role: session.RoleBashExecution, Command: "cat notes/todo.md"})
		}, []string{"notes/todo.md"}},
		{"search tool path only when a file", func(s *sessionBuilder) {
			s.tool("grep", map[string]any{"pattern": "x", "path": "src"}, "", false).
				tool("grep", map[string]any{"pattern": "x", "path": "src/y.go"}, "", false)
		}, []string{"src/y.go"}},
		{"nothing", func(s *sessionBuilder) { s.user("hello there, how are you") }, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sessionBuilder{}
			tt.build(s)
			got := s.node().Content.FilesTouched
			if got == nil || !slices.Equal(got, tt.want) {
				t.Errorf("files = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolsUsed(t *testing.T) {
	s := (&sessionBuilder{}).bash("ls", "", false).read("a.go").edit("a.go").bash("pwd", "", false).write("b.go")
	if got, want := s.node().Content.ToolsUsed, []string{"bash", "edit", "read", "write"}; !slices.Equal(got, want) {
		t.Errorf("tools = %q, want %q", got, want)
	}
}

func TestErrorsSeen(t *testing.T) {
	s := &sessionBuilder{}
	s.user("build and publish it")
	s.bash("go build ./...", "> banner\n./a.go:3:2: undefined: y\nmore", true) // resolved below
	s.bash("npm publish", "npm ERR! 403 Forbidden", true)                      // never resolved: ls is not npm publish
	s.tool("edit", map[string]any{"path": "a.go"}, "Could not find the exact text in a.go", true)
	s.edit("a.go")
	s.bash("go build ./...", "", false)
	s.bash("ls", "", false)
	s.assistant("error", nil, "")
	s.say("Build fixed; publishing is forbidden.")
	s.bash("go build ./...", "./a.go:3:2: undefined: y", true) // the same error again, now unresolved
	got := s.node().Content.ErrorsSeen
	want := []graph.ErrorSummary{
		{Type: "bash_error", Message: "./a.go:3:2: undefined: y", Resolved: false},
		{Type: "bash_error", Message: "npm ERR! 403 Forbidden", Resolved: false},
		{Type: "edit_error", Message: "Could not find the exact text in a.go", Resolved: true},
		{Type: "model_error", Message: "overloaded_error: Overloaded retry later", Resolved: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n got %+v\nwant %+v", got, want)
	}
}

func TestErrorsCapped(t *testing.T) {
	s := &sessionBuilder{}
	for i := range 50 {
		s.bash("false", fmt.Sprintf("error %d: %s", i, strings.Repeat("x", 500)), true)
	}
	errs := s.node().Content.ErrorsSeen
	if len(errs) != maxErrors {
		t.Fatalf("%d errors, want %d", len(errs), maxErrors)
	}
	for _, e := range errs {
		if n := utf8.RuneCountInString(e.Message); n > maxErrorRunes {
			t.Errorf("message of %d runes", n)
		}
	}
}

// usage is an assistant usage with the given tokens and total cost.
func usage(in, out, cr, cw int64, cost float64, total bool) *session.Usage {
	u := &session.Usage{Input: in, Output: out, CacheRead: cr, CacheWrite: cw, Cost: session.Cost{Total: cost}}
	if total {
		u.TotalTokens = in + out + cr + cw
	}
	return u
}

func TestModelsAndCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &sessionBuilder{}
	s.user("do the work in many steps")
	var want [3]float64 // independent float sums per model, in order
	models := []struct{ provider, model string }{{"openai", "gpt-5"}, {"anthropic", "claude-opus-4-5"}, {"anthropic", "claude-haiku-4-5"}}
	var wantTokens int64
	for i := range 300 {
		k := i % 3
		cost := rng.Float64() * 0.05
		want[k] += cost
		total := i%2 == 0
		u := usage(int64(i), 2*int64(i), 10, 1, cost, total)
		wantTokens += int64(i) + 2*int64(i) + 11
		s.msg(session.Message{Role: session.RoleAssistant, Provider: models[k].provider, Model: models[k].model,
			StopReason: "stop", Usage: u, Content: []session.Block{{Type: session.BlockText, Text: "step"}}})
	}
	n := s.node()
	got := n.Observations.ModelsUsed
	if len(got) != 3 || got[0].Model != "claude-haiku-4-5" || got[1].Model != "claude-opus-4-5" || got[2].Provider != "openai" {
		t.Fatalf("models not sorted by provider/model: %+v", got)
	}
	byModel := map[string]float64{"gpt-5": want[0], "claude-opus-4-5": want[1], "claude-haiku-4-5": want[2]}
	var sum float64
	for _, m := range got {
		if math.Abs(m.Cost-byModel[m.Model]) > 1e-9 {
			t.Errorf("%s cost %.15f, want %.15f", m.Model, m.Cost, byModel[m.Model])
		}
		if m.TokensInput == 0 || m.TokensOutput != 2*m.TokensInput || m.CacheRead != 1000 || m.CacheWrite != 100 {
			t.Errorf("%s tokens %+v", m.Model, m)
		}
		sum += m.Cost
	}
	if want := want[0] + want[1] + want[2]; math.Abs(n.Metadata.Cost-want) > 1e-9 {
		t.Errorf("metadata cost %.15f, want %.15f", n.Metadata.Cost, want)
	}
	if n.Metadata.TokensUsed != wantTokens {
		t.Errorf("tokensUsed %d, want %d", n.Metadata.TokensUsed, wantTokens)
	}
}

// TestCostSplitExact checks that the costs of the nodes of a session split
// into segments add up to exactly the session's cost, whatever the split: the
// sum is kept in integer 1e-12 USD.
func TestCostSplitExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := &sessionBuilder{}
	var costs []float64
	for range 500 {
		c := math.Round(rng.Float64()*1e6) / 1e6 * 0.3 // prices like pi's: tokens/1e6 * $/Mtok
		costs = append(costs, c)
		s.assistant("stop", usage(1, 1, 0, 0, c, false), "x")
	}
	whole := Analyze(Input{Header: testHeader}, s.entries, t0).Metadata.Cost
	var independent int64
	for _, c := range costs {
		independent += int64(math.Round(c * 1e12))
	}
	for _, cut := range []int{1, 7, 250, 499} {
		a := Analyze(Input{Header: testHeader}, s.entries[:cut], t0).Metadata.Cost
		b := Analyze(Input{Header: testHeader}, s.entries[cut:], t0).Metadata.Cost
		if pico(a)+pico(b) != independent || pico(whole) != independent {
			t.Errorf("cut %d: %d + %d != %d (whole %d)", cut, pico(a), pico(b), independent, pico(whole))
		}
	}
}

// pico is a USD amount in integer 1e-12 USD.
func pico(usd float64) int64 { return int64(math.Round(usd * 1e12)) }

func TestSummary(t *testing.T) {
	tests := []struct {
		name  string
		build func(s *sessionBuilder)
		want  string
	}{
		{"slash commands and trivial requests skipped; filler dropped", func(s *sessionBuilder) {
			s.user("/mode").user("ok").user("Add a dark theme to the settings page.").
				say("Perfect! I added a dark theme toggle to the settings page.")
		}, "User asked: Add a dark theme to the settings page. Final reply: I added a dark theme toggle to the settings page."},
		{"first and last requests", func(s *sessionBuilder) {
			s.user("  read   the importer\n\nand explain it").say("It reads files.").
				user("continue").user("now make it stream instead of loading whole files").
				say("## Done\n\n- The importer now **streams** entries.\n- Memory stays flat.\n```go\ncode()\n```")
		}, "User asked: read the importer and explain it. Last request: now make it stream instead of loading whole files. Final reply: The importer now streams entries. Memory stays flat."},
		{"final reply that says nothing gives way to the last detailed one", func(s *sessionBuilder) {
			s.user("rewrite the parser to handle concatenated objects").
				say("I rewrote the parser: it now decodes the JSON objects one after another on a line.").
				user("commit it and push it").say("Done.")
		}, "User asked: rewrite the parser to handle concatenated objects. Last request: commit it and push it. Last detailed reply: I rewrote the parser: it now decodes the JSON objects one after another on a line."},
		{"only assistant text", func(s *sessionBuilder) { s.say("Continuing: the build passes now.") }, "Final reply: Continuing: the build passes now."},
		{"compaction only", func(s *sessionBuilder) {
			s.add(session.Entry{Type: session.TypeCompaction, Summary: "# Checkpoint\n\nWorking on the importer."})
		}, "Compaction summary: Checkpoint. Working on the importer."},
		{"nothing", func(s *sessionBuilder) { s.user("/mode") }, ""},
		{"pasted path is a request, not a slash command", func(s *sessionBuilder) {
			s.user("/var/folders/x/Screenshot.png why are the colors off here?")
		}, "User asked: /var/folders/x/Screenshot.png why are the colors off here?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sessionBuilder{}
			tt.build(s)
			if got := s.node().Content.Summary; got != tt.want {
				t.Errorf("summary\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSummaryLength(t *testing.T) {
	long := strings.Repeat("The importer reads every file and keeps going. ", 40)
	s := (&sessionBuilder{}).user(long).user("and then " + long).say(long)
	got := s.node().Content.Summary
	if n := utf8.RuneCountInString(got); n > maxSummaryRunes || n < maxSummaryRunes/2 {
		t.Errorf("summary of %d runes: %q", n, got)
	}
	for _, label := range []string{labelAsked, labelLast, labelReply} {
		if !strings.Contains(got, label) {
			t.Errorf("summary lacks %q: %q", label, got)
		}
	}
	if strings.Contains(got, "…") {
		t.Errorf("summary should be cut at sentence ends: %q", got)
	}
}

func TestCutSentences(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"Short one.", 50, "Short one."},
		{"First sentence here. Second sentence is longer than the rest.", 40, "First sentence here."},
		{"one two three four five six seven eight nine ten", 20, "one two three four…"},
		{"See e.g. the reader. It streams.", 25, "See e.g. the reader."},
		{"äöü äöü äöü äöü äöü", 10, "äöü äöü…"},
	}
	for _, tt := range tests {
		if got := cutSentences(tt.in, tt.max); got != tt.want {
			t.Errorf("cutSentences(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		if n := utf8.RuneCountInString(cutSentences(tt.in, tt.max)); n > tt.max {
			t.Errorf("cutSentences(%q, %d) has %d runes", tt.in, tt.max, n)
		}
	}
}

func TestHadClearGoal(t *testing.T) {
	tests := []struct {
		first string
		want  bool
	}{
		{"add jwt auth to the login endpoint", true},
		{"continue", false},
		{"ok", false},
		{"fix it", false},
		{"yes please", false},
		{"https://github.com/o/r/issues/1", false},
		{"make the footer dimmer", true},
	}
	for _, tt := range tests {
		s := (&sessionBuilder{}).user("/model").user(tt.first).user("and also add tests for the whole thing")
		if got := s.node().Classification.HadClearGoal; got != tt.want {
			t.Errorf("hadClearGoal(%q) = %v, want %v", tt.first, got, tt.want)
		}
	}
}

func TestLanguageAndFrameworks(t *testing.T) {
	s := &sessionBuilder{}
	s.user("build the graph view")
	s.read("src/lib/graph/Graph.svelte").edit("src/lib/graph/Graph.svelte").edit("src/lib/api.ts").edit("src/lib/api.ts").
		read("main.go").read("package.json")
	// The manifest read's result names svelte and vite as dependencies.
	s.entries[len(s.entries)-1].Message.Content[0].Text = `{"devDependencies": {"svelte": "^5.0.0", "vite": "^6"}}`
	s.write("src/App.tsx")
	s.tool("write", map[string]any{"path": "app.go", "content": "import \"github.com/wailsapp/wails/v2\""}, "ok", false)
	n := s.node()
	if n.Classification.Language != "typescript" {
		t.Errorf("language %q, want typescript", n.Classification.Language)
	}
	if want := []string{"react", "svelte", "wails"}; !slices.Equal(n.Classification.Frameworks, want) {
		t.Errorf("frameworks %q, want %q", n.Classification.Frameworks, want)
	}
	if !slices.Contains(n.Semantic.Tags, "typescript") || !slices.Contains(n.Semantic.Tags, "go") {
		t.Errorf("tags %q lack the languages", n.Semantic.Tags)
	}
}

func TestTagsAndTopics(t *testing.T) {
	s := &sessionBuilder{}
	s.user("store the nodes in sqlite and add a migration for the sqlite schema")
	s.user("the jwt login must refresh the jwt token, fucking hell")
	s.edit("store/sqlite_store.go").bash("go test ./store/...", "ok", false)
	n := s.node()
	for _, want := range []string{"go", "sqlite", "jwt", "store"} {
		if !slices.Contains(n.Semantic.Tags, want) {
			t.Errorf("tags %q lack %q", n.Semantic.Tags, want)
		}
	}
	for _, bad := range []string{"the", "fucking", "and", "hell", "must"} {
		if slices.Contains(n.Semantic.Tags, bad) {
			t.Errorf("tags %q hold stopword %q", n.Semantic.Tags, bad)
		}
	}
	if len(n.Semantic.Tags) > maxTags {
		t.Errorf("%d tags", len(n.Semantic.Tags))
	}
	if want := []string{"database", "authentication", "testing"}; !slices.Equal(n.Semantic.Topics, want) {
		t.Errorf("topics %q, want %q", n.Semantic.Topics, want)
	}
	if got := (&sessionBuilder{}).user("write me a poem").node().Semantic.Topics; len(got) != 0 {
		t.Errorf("topics without evidence: %q", got)
	}
}

func TestNodeID(t *testing.T) {
	sum := sha256.Sum256([]byte("rhizome-node\x00sess-1\x0042"))
	want := hex.EncodeToString(sum[:])[:16]
	if got := NodeID("sess-1", 42); got != want {
		t.Errorf("NodeID = %s, want %s", got, want)
	}
	if NodeID("sess-1", 42) != NodeID("sess-1", 42) {
		t.Error("not deterministic")
	}
	if NodeID("sess-1", 42) == NodeID("sess-2", 42) || NodeID("sess-1", 42) == NodeID("sess-1", 43) || NodeID("a1", 2) == NodeID("a", 12) {
		t.Error("collision between different inputs")
	}
	for _, c := range NodeID("x", 0) {
		if !strings.ContainsRune("0123456789abcdef", c) {
			t.Errorf("non lowercase-hex rune %q", c)
		}
	}
}

func TestNodeShape(t *testing.T) {
	s := &sessionBuilder{}
	s.add(session.Entry{Type: session.TypeModelChange, Provider: "anthropic", ModelID: "x",
		Timestamp: t0.Add(123 * time.Millisecond).In(time.FixedZone("CET", 3600))})
	s.user("add x to y in the thing").edit("a.go").say("Added.")
	in := Input{Header: testHeader, SessionFile: "/s.jsonl", Computer: "desk", IsNewProject: true}
	in.Header.ParentSession = "/parent.jsonl"
	n := Analyze(in, s.entries, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if n.ID != NodeID(testHeader.ID, 0) || n.Version != 1 {
		t.Errorf("id %s version %d", n.ID, n.Version)
	}
	src := graph.NodeSource{SessionFile: "/s.jsonl", Computer: "desk", SessionID: testHeader.ID,
		ParentSession: "/parent.jsonl", Segment: graph.SegmentSource{StartEntryID: "e1", EndEntryID: "e5", EntryCount: 5}}
	if n.Source != src {
		t.Errorf("source %+v, want %+v", n.Source, src)
	}
	md := n.Metadata
	if md.Timestamp != "2026-01-24T10:00:00.123Z" || md.AnalyzedAt != "2026-02-01T00:00:00.000Z" ||
		md.AnalyzerVersion != Version || md.DurationMinutes != 4 {
		t.Errorf("metadata %+v", md)
	}
	if !n.Classification.IsNewProject || n.Classification.Project != testHeader.Cwd {
		t.Errorf("classification %+v", n.Classification)
	}
	if n.DaemonMeta.SegmentTokenCount <= 0 || n.DaemonMeta.RLMUsed {
		t.Errorf("daemonMeta %+v", n.DaemonMeta)
	}
	raw, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "null") {
		t.Errorf("JSON holds null: %s", raw)
	}
	for _, key := range []string{`"keyDecisions":[]`, `"previousVersions":[]`, `"subagent":[]`, `"decisions":[]`,
		`"toolUseErrors":[]`, `"errorsSeen":[]`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// TestSegmentWins checks that the segment's ids, count and times are used
// over what the accumulator saw.
func TestSegmentWins(t *testing.T) {
	s := (&sessionBuilder{}).user("add x to y in the thing").say("Added.")
	seg := segment.Segment{StartEntryID: "s1", EndEntryID: "s9", StartSeq: 7, EntryCount: 9,
		StartTimestamp: t0, EndTimestamp: t0.Add(90 * time.Second)}
	n := Analyze(Input{Header: testHeader, Segment: seg}, s.entries, t0)
	if n.Source.Segment != (graph.SegmentSource{StartEntryID: "s1", EndEntryID: "s9", EntryCount: 9}) ||
		n.ID != NodeID(testHeader.ID, 7) || n.Metadata.DurationMinutes != 1.5 {
		t.Errorf("source %+v id %s duration %v", n.Source.Segment, n.ID, n.Metadata.DurationMinutes)
	}
}

func TestLeftByNavigation(t *testing.T) {
	segs := []segment.Segment{
		{EndEntryID: "a"},
		{Boundaries: []segment.Boundary{{Type: segment.Branch, PreviousEntryID: "a"}}, EndEntryID: "b"},
		{Boundaries: []segment.Boundary{{Type: segment.Resume}}, EndEntryID: "c"},
		{Boundaries: []segment.Boundary{{Type: segment.Compaction}, {Type: segment.TreeJump}}, EndEntryID: "d"},
		{Boundaries: []segment.Boundary{{Type: segment.Compaction}}},
	}
	want := []bool{true, false, true, false, false}
	for i := range segs {
		if got := LeftByNavigation(segs, i); got != want[i] {
			t.Errorf("segment %d: %v, want %v", i, got, want[i])
		}
	}
	if LeftByNavigation(segs, -1) || LeftByNavigation(segs, 9) {
		t.Error("out of range is not abandoned")
	}
}

// TestBounded feeds a segment far larger than what the accumulator may keep.
func TestBounded(t *testing.T) {
	a := NewAccumulator()
	huge := strings.Repeat("word ", 200_000) // 1 MB
	var failures []string
	for i := range 50 {
		failures = append(failures, fmt.Sprintf("failure %d\n%s", i, huge))
	}
	var total int64
	for i := range 2000 {
		for _, m := range []session.Message{
			{Role: session.RoleUser, Content: []session.Block{{Type: session.BlockText, Text: huge}}},
			{Role: session.RoleAssistant, StopReason: "stop", Content: []session.Block{{Type: session.BlockText, Text: huge}}},
			{Role: session.RoleToolResult, ToolName: "bash", IsError: true,
				Content: []session.Block{{Type: session.BlockText, Text: failures[i%50]}}},
		} {
			a.Add(&session.Entry{Type: session.TypeMessage, ID: "x", Message: &m})
			total += int64(len(m.Content[0].Text))
		}
	}
	for _, r := range a.requests {
		if len(r) > maxInspectBytes {
			t.Errorf("request of %d bytes kept", len(r))
		}
	}
	if len(a.requests) > maxRequests || len(a.reply) > maxInspectBytes || len(a.errs) > maxErrors ||
		len(a.firstRequest) > 4*maxRequestRunes || len(a.lastRequest) > maxInspectBytes || len(a.terms) > maxTerms {
		t.Errorf("unbounded: %d requests, reply %d bytes, %d errors, %d terms", len(a.requests), len(a.reply), len(a.errs), len(a.terms))
	}
	n := a.Node(Input{}, t0)
	if got, want := n.DaemonMeta.SegmentTokenCount, (total+3)/4; got != want {
		t.Errorf("segmentTokenCount %d, want %d (text bytes / 4)", got, want)
	}
	if len(n.Content.ErrorsSeen) != maxErrors {
		t.Errorf("%d errors listed, want %d", len(n.Content.ErrorsSeen), maxErrors)
	}
}

// TestResetAndIncremental checks that a reset accumulator gives the same node
// as a fresh one, and that Node may be called between entries.
func TestResetAndIncremental(t *testing.T) {
	s := (&sessionBuilder{}).user("fix the crash in the reader").bash("go test ./...", "FAIL", true).
		edit("reader.go").bash("go test ./...", "ok", false).say("Fixed.")
	in := Input{Header: testHeader}
	want, _ := json.Marshal(Analyze(in, s.entries, t0))

	other := (&sessionBuilder{}).user("something else entirely").write("x.md").bash("npm publish", "no", true)
	a := NewAccumulator()
	for i := range other.entries {
		a.Add(&other.entries[i])
	}
	a.Reset()
	for i := range s.entries {
		a.Add(&s.entries[i])
		a.Node(in, t0) // must not disturb the accumulator
	}
	got, _ := json.Marshal(a.Node(in, t0))
	if string(got) != string(want) {
		t.Errorf("after Reset:\n got %s\nwant %s", got, want)
	}
}

func TestScanShell(t *testing.T) {
	var got []string
	scanShell("A=1 npx vitest run 'a b.ts' \"c\\\"d\" x>out.log; ls | wc -l && cat <<EOF\nbody; rm -rf /\nEOF\necho $(date) `pwd`", func(w []string, r []bool) {
		parts := make([]string, len(w))
		for i := range w {
			parts[i] = w[i]
			if r[i] {
				parts[i] = ">" + w[i]
			}
		}
		got = append(got, strings.Join(parts, ","))
	})
	want := []string{`A=1,npx,vitest,run,a b.ts,c\"d,x,>out.log`, "ls", "wc,-l", "cat", "echo", "date", "pwd"}
	if !slices.Equal(got, want) {
		t.Errorf("scanShell:\n got %q\nwant %q", got, want)
	}
}

func TestBashKey(t *testing.T) {
	tests := map[string]string{
		"cd /x && npm run publish":      "npm run publish",
		"npm run build -- --watch":      "npm run build",
		"git push origin main":          "git push",
		"FOO=1 go test ./...":           "go test",
		"grep -rn x . | head":           "grep",
		"export A=1; cargo build -r":    "cargo build",
		"sudo systemctl restart nginx":  "systemctl restart",
		"cd /tmp":                       "",
		"./scripts/release.sh --dry":    "release.sh",
		"python3 -m pytest tests/a.py":  "python3 pytest",
		"node --test test/*.test.ts":    "node test/*.test.ts",
		"npx tsx src/cli.ts --help":     "tsx src/cli.ts",
		"timeout 30 make test":          "make test",
		"docker compose up -d postgres": "docker compose",
	}
	for cmd, want := range tests {
		if got := bashKey(&shellScanner{}, cmd); got != want {
			t.Errorf("bashKey(%q) = %q, want %q", cmd, got, want)
		}
	}
}
