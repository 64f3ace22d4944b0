// Command rhizome is the Rhizome desktop app and its command line.
//
//	rhizome                          open the window on the library
//	rhizome import [--db PATH] [--json] PATH...
//	rhizome search [--db PATH] [--json] [--explain] [--bridges] [--filter K=V]... QUERY
//	rhizome consolidate [--db PATH] [--json] [--dry-run] [--cycle decay|creative|cluster|forget]
//	rhizome export [--db PATH] [--project P] --format json|graphml|gexf|markdown|memobrain [ITEM] OUT
//	rhizome analyze [--db PATH] [--json] [--offline] [--base-url URL --model NAME] [--budget USD] [ITEM...]
//	rhizome serve  [--db PATH] [--addr 127.0.0.1:0] [--base-url URL --model NAME]
//	rhizome summarize [--db PATH] [--json] [--offline] [--base-url URL --model NAME] [ITEM...]
//	rhizome link   [--db PATH] [--type TYPE] [--note TEXT] [--json] FROM TO
//	rhizome links  [--db PATH] [--json] ITEM
//	rhizome rules  [--db PATH] [--project P] [--format markdown|json]
//	rhizome mcp    [--db PATH] [--read-only]
//	rhizome watch  [--db PATH]
//	rhizome export-session [--db PATH] ITEM OUT
//
// The library is one SQLite file, by default in the user's data directory
// (see defaultDBPath); RHIZOME_DB or --db overrides it. Every command that
// uses a model takes the model for one run from --provider, --base-url and
// --model, and from RHIZOME_LLM_PROVIDER, RHIZOME_LLM_BASE_URL,
// RHIZOME_LLM_MODEL and RHIZOME_LLM_API_KEY (flags win), over the library's
// settings, which stay as they are (see modelFlags).
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"

	"rhizome/app"
	"rhizome/serve"
	"rhizome/store"
)

//go:embed all:frontend/dist
var distFS embed.FS

// frontendAssets is the built frontend (frontend/dist) with index.html at
// its root.
func frontendAssets() fs.FS {
	sub, err := fs.Sub(distFS, "frontend/dist")
	if err != nil {
		return nil
	}
	return sub
}

func main() {
	ctx, stop := signalContext(os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interrupted is the cause of a signalContext's end: the signal received.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string {
	switch e.sig {
	case os.Interrupt:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	}
	return "interrupted by " + e.sig.String()
}

// signalContext returns a context cancelled, with an interrupted cause, when
// one of signals arrives (Ctrl-C is os.Interrupt), and the function that
// stops listening. After the first signal the default behaviour is back: a
// second Ctrl-C ends the process at once.
func signalContext(signals ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, signals...)
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(interrupted{sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// interruptedStatus is the exit status of a command stopped because ctx
// ended: 128 + the signal's number, as shells report it (130 for Ctrl-C, 143
// for SIGTERM), else 1.
func interruptedStatus(ctx context.Context) int {
	var e interrupted
	if errors.As(context.Cause(ctx), &e) {
		if sig, ok := e.sig.(syscall.Signal); ok {
			return 128 + int(sig)
		}
	}
	return 1
}

const usage = `Rhizome: see, search and build on the trail of your work with LLM agents.

Usage:
  rhizome                                   open the window
  rhizome import [--db PATH] [--json] PATH...  import session files or folders (pi, Claude
                                            Code, Codex) and MemoBrain snapshots
  rhizome search [--db PATH] [--json] [--explain] [--bridges] [--filter K=V]... QUERY
                                            search the library (hybrid)
  rhizome consolidate [--db PATH] [--json] [--dry-run] [--cycle decay|creative|cluster|forget]
                                            run the consolidation cycles
  rhizome serve  [--db PATH] [--addr 127.0.0.1:0] [--base-url URL --model NAME]
                                            serve the app to a browser on loopback
  rhizome summarize [--db PATH] [--json] [--offline] [--base-url URL --model NAME] [ITEM...]
                                            make the missing and stale summaries (or those of
                                            the items named: rhizome:session/<id>, ...) and print them
  rhizome export [--db PATH] [--project P] --format json|graphml|gexf|markdown OUT
                                            write the graph for Gephi, yEd, Obsidian
  rhizome export [--db PATH] --format memobrain ITEM OUT
                                            write a reasoning graph (rhizome:reasoning/<id>)
                                            to a file (- for standard output)
  rhizome analyze [--db PATH] [--json] [--offline] [--base-url URL --model NAME] [--budget USD] [ITEM...]
                                            analyse segments with a model (or offline)
  rhizome link   [--db PATH] [--type TYPE] [--note TEXT] [--json] FROM TO
                                            link two items (URIs: rhizome:node/<id>, ...)
  rhizome links  [--db PATH] [--json] ITEM  the links from and to an item (--types: the types)
  rhizome rules  [--db PATH] [--project P] [--format markdown|json]
                                            print a project's "## Project Rules"
  rhizome mcp    [--db PATH] [--read-only]  an MCP server on stdio for coding agents
  rhizome watch  [--db PATH]                import the watched folders' sessions as they are written
  rhizome export-session [--db PATH] ITEM OUT
                                            write a session's original file back, byte for byte
The library defaults to %s
(RHIZOME_DB overrides it). A model for one run: --provider, --base-url, --model, or
RHIZOME_LLM_PROVIDER, RHIZOME_LLM_BASE_URL, RHIZOME_LLM_MODEL, RHIZOME_LLM_API_KEY.
`

// run is main without os.Exit, for tests: ctx ends `serve` and interrupts
// `import` and `search` (Ctrl-C). It returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runWindow(defaultDBPath(), app.ModelOverrideFromEnv(), stderr)
	}
	switch args[0] {
	case "import":
		return runImport(ctx, args[1:], stdout, stderr)
	case "search":
		return runSearch(ctx, args[1:], stdout, stderr)
	case "export":
		return runExport(ctx, args[1:], stdout, stderr)
	case "consolidate":
		return runConsolidate(ctx, args[1:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "link":
		return runLink(ctx, args[1:], stdout, stderr)
	case "links":
		return runLinks(ctx, args[1:], stdout, stderr)
	case "rules":
		return runRules(ctx, args[1:], stdout, stderr)
	case "mcp":
		return runMCP(ctx, args[1:], stdout, stderr)
	case "summarize":
		return runSummarize(ctx, args[1:], stdout, stderr)
	case "analyze":
		return runAnalyze(ctx, args[1:], stdout, stderr)
	case "watch":
		return runWatch(ctx, args[1:], stdout, stderr)
	case "export-session":
		return runExportSession(ctx, args[1:], stdout, stderr)
	case "window":
		fl := flag.NewFlagSet("window", flag.ContinueOnError)
		fl.SetOutput(stderr)
		db := fl.String("db", defaultDBPath(), "library file")
		model := addModelFlags(fl)
		if err := fl.Parse(args[1:]); err != nil {
			return 2
		}
		return runWindow(*db, model.override(), stderr)
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, usage, defaultDBPath())
		return 0
	default:
		fmt.Fprintf(stderr, "rhizome: unknown command %q\n\n"+usage, args[0], defaultDBPath())
		return 2
	}
}

// defaultDBPath is RHIZOME_DB, else library.db in the user's data directory:
// $XDG_DATA_HOME/rhizome (~/.local/share/rhizome) on Linux,
// ~/Library/Application Support/Rhizome on macOS, %LocalAppData%\Rhizome on
// Windows.
func defaultDBPath() string {
	if p := os.Getenv("RHIZOME_DB"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	var dir string
	switch runtime.GOOS {
	case "darwin":
		dir = filepath.Join(home, "Library", "Application Support", "Rhizome")
	case "windows":
		base := os.Getenv("LocalAppData")
		if base == "" {
			base, _ = os.UserConfigDir()
		}
		dir = filepath.Join(base, "Rhizome")
	default:
		base := os.Getenv("XDG_DATA_HOME")
		if base == "" {
			base = filepath.Join(home, ".local", "share")
		}
		dir = filepath.Join(base, "rhizome")
	}
	return filepath.Join(dir, "library.db")
}

// reorder moves flags after positional arguments to the front, so that both
// `import --json a.jsonl` and `import a.jsonl --json` work. valueFlags are
// the flags that take a value.
func reorder(args []string, valueFlags ...string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			for _, v := range valueFlags {
				if name == v && i+1 < len(args) {
					flags = append(flags, args[i+1])
					i++
				}
			}
			continue
		}
		rest = append(rest, a)
	}
	return append(append(flags, "--"), rest...)
}

func openApp(db string, stderr io.Writer) (*app.App, *store.Store, bool) {
	return openAppContext(context.Background(), db, stderr)
}

// openAppContext opens the library db and the app over it, under ctx: the
// app's use cases run under ctx too. It prints why it could not on stderr.
func openAppContext(ctx context.Context, db string, stderr io.Writer) (*app.App, *store.Store, bool) {
	st, err := store.OpenContext(ctx, db)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome: %v\n", err)
		return nil, nil, false
	}
	a := app.New(st, db)
	a.SetContext(ctx)
	return a, st, true
}

// modelFlags are the flags of a command that uses a model: the model for
// this run, laid over the RHIZOME_LLM_* variables, which are laid over the
// library's settings (App.SetModelOverride). The API key comes from
// RHIZOME_LLM_API_KEY only (a flag would show it to every user of ps), else
// from the keys the library keeps per provider and base URL. Every command
// that uses a model (the window, serve, summarize) reads the model through
// this one piece.
type modelFlags struct {
	provider, baseURL, model *string
}

// Names of the model flags, for reorder.
var modelFlagNames = []string{"provider", "base-url", "model"}

// addModelFlags adds --provider, --base-url and --model to fl.
func addModelFlags(fl *flag.FlagSet) *modelFlags {
	return &modelFlags{
		provider: fl.String("provider", "", "model provider for this run: openai (any OpenAI-compatible server) or anthropic (else $"+app.EnvLLMProvider+")"),
		baseURL:  fl.String("base-url", "", "model server base URL for this run (else $"+app.EnvLLMBaseURL+")"),
		model:    fl.String("model", "", "model name for this run (else $"+app.EnvLLMModel+"); the API key is $"+app.EnvLLMAPIKey),
	}
}

// override is the model the flags and the environment give for this run.
func (m *modelFlags) override() app.ModelOverride {
	o := app.ModelOverrideFromEnv()
	if m == nil {
		return o
	}
	for _, f := range []struct{ flag, dst *string }{{m.provider, &o.Provider}, {m.baseURL, &o.BaseURL}, {m.model, &o.Model}} {
		if v := strings.TrimSpace(*f.flag); v != "" {
			*f.dst = v
		}
	}
	return o
}

// useModel sets the run's model on a and reports whether one was given.
// The error says which flag or variable cannot work.
func useModel(a *app.App, o app.ModelOverride) (bool, error) {
	if err := a.SetModelOverride(o); err != nil {
		return false, err
	}
	return o.BaseURL != "" || o.Model != "" || o.Provider != "", nil
}

// runImport is `rhizome import`. When ctx ends (Ctrl-C), the file being
// imported is rolled back, the report says which files were imported and
// which were not, and the status is interruptedStatus.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("import", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	asJSON := fl.Bool("json", false, "print the report as one JSON object")
	if err := fl.Parse(reorder(args, "db")); err != nil {
		return 2
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, "rhizome import: give one or more session files or folders")
		return 2
	}
	a, st, ok := openAppContext(ctx, *db, stderr)
	if !ok {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "rhizome import: %v: nothing imported\n", context.Cause(ctx))
			return interruptedStatus(ctx)
		}
		return 1
	}
	defer st.Close()
	if !*asJSON {
		a.SetEmitter(progressPrinter(stderr))
	}
	report, err := a.Import.ImportPaths(fl.Args())
	if err != nil {
		fmt.Fprintf(stderr, "rhizome import: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(report)
	} else {
		printReport(stdout, report)
	}
	if ctx.Err() != nil {
		t := report.Totals
		fmt.Fprintf(stderr, "rhizome import: %v: %d of %d files imported, appended or unchanged; %d not imported (import again to finish)\n",
			context.Cause(ctx), t.Imported+t.Appended+t.Unchanged, t.Files, t.Failed)
		return interruptedStatus(ctx)
	}
	if report.Totals.Failed > 0 {
		return 1
	}
	return 0
}

// progressPrinter draws import progress as a bar on w (bytes over all
// files, the current file named).
func progressPrinter(w io.Writer) app.Emitter {
	var bar *progressbar.ProgressBar
	return func(event string, data any) {
		p, ok := data.(app.ImportProgress)
		if event != "import:progress" || !ok || p.BytesTotal == 0 {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions64(p.BytesTotal,
				progressbar.OptionSetWriter(w),
				progressbar.OptionShowBytes(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
				progressbar.OptionClearOnFinish())
		}
		bar.Describe(fmt.Sprintf("%d/%d %s", p.FileIndex+1, p.FileCount, filepath.Base(p.File)))
		bar.Set64(p.BytesDone)
	}
}

// printedProblems is how many malformed lines of a file the text report
// shows; it counts the others.
const printedProblems = 20

// printReport prints an import report as text: a line per file, its first
// malformed lines, and the totals.
func printReport(w io.Writer, r app.ImportReport) {
	for _, f := range r.Files {
		fmt.Fprintf(w, "%-9s %s", f.Status, f.Path)
		if f.Status == "failed" {
			fmt.Fprintf(w, ": %s\n", f.Error)
			continue
		}
		if f.Reasoning != nil {
			fmt.Fprintf(w, " (%s)\n", reasoningSummary(f.Reasoning))
			continue
		}
		fmt.Fprintf(w, " (%d entries, %d segments", f.Entries, f.Segments)
		if f.MalformedCount > 0 {
			fmt.Fprintf(w, ", %d malformed lines", f.MalformedCount)
		}
		if f.PendingTail {
			fmt.Fprint(w, ", last line still being written")
		}
		fmt.Fprintln(w, ")")
		shown := f.MalformedLines[:min(len(f.MalformedLines), printedProblems)]
		for _, m := range shown {
			fmt.Fprintf(w, "    line %d (byte %d): %s\n", m.Line, m.Offset, m.Reason)
		}
		if more := f.MalformedCount - len(shown); more > 0 {
			fmt.Fprintf(w, "    and %d more malformed lines (--json lists the first %d)\n", more, len(f.MalformedLines))
		}
	}
	t := r.Totals
	fmt.Fprintf(w, "%d files: %d imported, %d appended, %d unchanged, %d failed\n",
		t.Files, t.Imported, t.Appended, t.Unchanged, t.Failed)
}

// reasoningSummary says what a MemoBrain file made: "memobrain: 9 nodes (1
// task, 2 subtask, 6 evidence), 8 edges, 16 messages, rhizome:reasoning/…".
func reasoningSummary(r *app.ReasoningImport) string {
	var kinds []string
	for _, k := range []string{"task", "subtask", "evidence", "summary"} {
		if n := r.NodesByKind[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
	}
	var other []string // kinds a snapshot may hold besides MemoBrain's, by name
	for k := range r.NodesByKind {
		if k != "task" && k != "subtask" && k != "evidence" && k != "summary" {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		kinds = append(kinds, fmt.Sprintf("%d %s", r.NodesByKind[k], k))
	}
	s := fmt.Sprintf("memobrain: %d nodes (%s), %d edges", r.Nodes, strings.Join(kinds, ", "), r.Edges)
	if r.Messages > 0 {
		s += fmt.Sprintf(", %d messages", r.Messages)
	}
	return s + ", " + r.URI
}

// filterFlags collects repeated --filter K=V flags.
type filterFlags []string

func (f *filterFlags) String() string     { return strings.Join(*f, ",") }
func (f *filterFlags) Set(v string) error { *f = append(*f, v); return nil }

// searchFilter reads --filter K=V pairs: project, kind, type, role, tool,
// file, model, relation (repeatable: any of the values), from, to
// (YYYY-MM-DD), archived (true). An unknown key or a pair without "=" is an
// error naming it.
func searchFilter(pairs []string) (app.SearchFilter, error) {
	var f app.SearchFilter
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return f, fmt.Errorf("--filter %q: want KEY=VALUE", p)
		}
		switch k {
		case "project":
			f.Project = v
		case "kind":
			f.Kinds = append(f.Kinds, v)
		case "type":
			f.NodeTypes = append(f.NodeTypes, v)
		case "role":
			f.Roles = append(f.Roles, v)
		case "tool":
			f.Tools = append(f.Tools, v)
		case "file":
			f.Files = append(f.Files, v)
		case "model":
			f.Models = append(f.Models, v)
		case "relation":
			f.RelationTypes = append(f.RelationTypes, v)
		case "from":
			f.From = v
		case "to":
			f.To = v
		case "archived":
			f.Archived = v == "true" || v == "1" || v == "yes"
		default:
			return f, fmt.Errorf("--filter %q: unknown key %q (project, kind, type, role, tool, file, model, relation, from, to, archived)", p, k)
		}
	}
	return f, nil
}

// runSearch is `rhizome search`: the hybrid search (issue 10), with each
// hit's score broken down (--explain) and bridges between the hits
// (--bridges); ctx ending (Ctrl-C) stops it.
func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("search", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	limit := fl.Int("limit", 20, "most hits to show")
	explain := fl.Bool("explain", false, "break each hit's score down by component")
	bridges := fl.Bool("bridges", false, "show paths of up to three edges between the hits")
	var filters filterFlags
	fl.Var(&filters, "filter", "KEY=VALUE: project, kind, type, role, tool, file, model, relation, from, to, archived (repeatable)")
	if err := fl.Parse(reorder(args, "db", "limit", "filter")); err != nil {
		return 2
	}
	q := strings.Join(fl.Args(), " ")
	if strings.TrimSpace(q) == "" {
		fmt.Fprintln(stderr, "rhizome search: give a query")
		return 2
	}
	f, err := searchFilter(filters)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", err)
		return 2
	}
	a, st, ok := openAppContext(ctx, *db, stderr)
	if !ok {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "rhizome search: %v\n", context.Cause(ctx))
			return interruptedStatus(ctx)
		}
		return 1
	}
	defer st.Close()
	if err := a.LoadVectors(); err != nil {
		fmt.Fprintf(stderr, "rhizome search: ranking without vectors: %v\n", err)
	}
	res, err := a.Search.Hybrid(app.HybridQuery{Query: q, Filter: f, Limit: *limit, Bridges: *bridges})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", err)
		return 1
	}
	if *asJSON {
		if !*explain {
			for i := range res.Hits {
				res.Hits[i].Why = nil
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
		return 0
	}
	if res.TimeText != "" {
		fmt.Fprintf(stdout, "time: %q = %s .. %s\n", res.TimeText, res.TimeFrom, res.TimeTo)
	}
	if res.VectorNote != "" {
		fmt.Fprintf(stdout, "note: %s\n", res.VectorNote)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(stdout, "no matches")
	}
	for _, h := range res.Hits {
		fmt.Fprintf(stdout, "%.3f  %s  %-5s %s\n    %s\n", h.Score, h.NodeID, h.Kind, h.Title, h.Snippet)
		if *explain {
			var parts []string
			for _, p := range h.Why {
				if p.Contribution > 0 {
					parts = append(parts, fmt.Sprintf("%s %.3f (%.2f x %.2f)", p.Component, p.Contribution, p.Value, p.Weight))
				}
			}
			fmt.Fprintf(stdout, "    why: %s\n", strings.Join(parts, ", "))
		}
	}
	if *bridges {
		fmt.Fprintf(stdout, "\nbridges (%d):\n", len(res.Bridges))
		for _, b := range res.Bridges {
			fmt.Fprintf(stdout, "%.3f  %s\n", b.Score, bridgeLine(b))
		}
	}
	return 0
}

// bridgeLine prints a path as `a -[TYPE]-> b <-[TYPE]- c`, each node its id
// and the start of its summary, each edge its rationale.
func bridgeLine(b app.BridgePath) string {
	var sb strings.Builder
	for i, id := range b.NodeIDs {
		if i > 0 {
			s := b.Steps[i-1]
			if s.Forward {
				fmt.Fprintf(&sb, " -[%s]-> ", s.Type)
			} else {
				fmt.Fprintf(&sb, " <-[%s]- ", s.Type)
			}
		}
		label := []rune(b.Labels[i])
		if len(label) > 40 {
			label = append(label[:40], '…')
		}
		fmt.Fprintf(&sb, "%s (%s)", id, string(label))
	}
	return sb.String()
}

// runConsolidate is `rhizome consolidate`: one consolidation run of the
// cycles named (all four by default), applied and logged, or only planned
// with --dry-run.
func runConsolidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("consolidate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	asJSON := fl.Bool("json", false, "print the run's log as JSON")
	dry := fl.Bool("dry-run", false, "plan the run without changing the library")
	var cycles filterFlags
	fl.Var(&cycles, "cycle", "decay, creative, cluster or forget (repeatable; default all four)")
	if err := fl.Parse(reorder(args, "db", "cycle")); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "rhizome consolidate: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	a, st, ok := openAppContext(ctx, *db, stderr)
	if !ok {
		return 1
	}
	defer st.Close()
	if err := a.LoadVectors(); err != nil {
		fmt.Fprintf(stderr, "rhizome consolidate: without vectors: %v\n", err)
	}
	run, err := a.Memory.Consolidate(app.ConsolidateRequest{Cycles: cycles, DryRun: *dry})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome consolidate: %v\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome consolidate: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(run)
		return 0
	}
	what := "run"
	if run.DryRun {
		what = "dry run (nothing changed)"
	}
	fmt.Fprintf(stdout, "%s %s at %s: %d changes, %d spared\n", what, run.ID, run.At, run.ChangeCount, run.Spared)
	for _, s := range run.Stats {
		fmt.Fprintf(stdout, "  %-8s examined %d, rescored %d, edges %d, MetaPatterns %d (+%d extended, %d PART_OF), archived %d, spared %d\n",
			s.Cycle, s.Examined, s.Rescored, s.EdgesAdded, s.MetaPatterns, s.Extended, s.PartOf, s.Archived, s.Spared)
	}
	return 0
}

// runServe is `rhizome serve`: the app over the library, served to a browser
// on a loopback address (serve.go) until ctx ends. Its first line on stdout
// is the URL to open, token included.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	addr := fl.String("addr", "127.0.0.1:0", "loopback address to listen on")
	model := addModelFlags(fl)
	if err := fl.Parse(reorder(args, append([]string{"db", "addr"}, modelFlagNames...)...)); err != nil {
		return 2
	}
	a, st, ok := openApp(*db, stderr)
	if !ok {
		return 1
	}
	defer st.Close()
	if _, err := useModel(a, model.override()); err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 2
	}
	srv, err := serve.New(a, frontendAssets())
	if err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	ln, url, err := srv.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, url)
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	a.SetContext(ctx)
	a.StartSummaries(ctx)
	a.StartBackground(false)
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	return 0
}

// runSummarize is `rhizome summarize`: it makes every missing or stale
// summary (or those of the items named) offline, or with a model when the
// library's settings say so or one is given for this run (--offline: never),
// and prints them (see app.App.Summarize for which). A model failure leaves
// the previous summary, says so on stderr and makes the exit status 1.
// Ctrl-C stops it (interruptedStatus); what was made is kept.
func runSummarize(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("summarize", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	asJSON := fl.Bool("json", false, `print {"summaries": [{"item", "kind", "title", "text", "source", "stale"}]}`)
	offline := fl.Bool("offline", false, "make offline summaries only, whatever the settings say")
	model := addModelFlags(fl)
	if err := fl.Parse(reorder(args, append([]string{"db"}, modelFlagNames...)...)); err != nil {
		return 2
	}
	a, st, ok := openAppContext(ctx, *db, stderr)
	if !ok {
		if ctx.Err() != nil {
			return interruptedStatus(ctx)
		}
		return 1
	}
	defer st.Close()
	given, err := useModel(a, model.override())
	if err != nil {
		fmt.Fprintf(stderr, "rhizome summarize: %v\n", err)
		return 2
	}
	got, err := a.Summarize(ctx, app.SummarizeOptions{Items: fl.Args(), Offline: *offline, Model: given && !*offline})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome summarize: %v: the summaries made so far are kept\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome summarize: %v\n", err)
		return 1
	}
	status := 0
	for _, s := range got {
		if s.FailedNow {
			fmt.Fprintf(stderr, "rhizome summarize: %s: the model failed, the previous summary stays: %s\n", s.Item, s.Error)
			status = 1
		}
	}
	if *asJSON {
		type line struct {
			Item   string `json:"item"`
			Kind   string `json:"kind"`
			Title  string `json:"title"`
			Text   string `json:"text"`
			Label  string `json:"label"`
			Source string `json:"source"`
			Stale  bool   `json:"stale"`
			Error  string `json:"error,omitempty"`
		}
		out := struct {
			Summaries []line `json:"summaries"`
		}{Summaries: []line{}}
		for _, s := range got {
			out.Summaries = append(out.Summaries, line{Item: s.Item, Kind: s.Kind, Title: s.Title, Text: s.Text, Label: s.Label,
				Source: s.Source, Stale: s.Stale, Error: s.Error})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(out)
		return status
	}
	if len(got) == 0 {
		fmt.Fprintln(stdout, "nothing to summarise")
	}
	for _, s := range got {
		head := s.Title
		if head == "" {
			head = s.Label
		}
		flags := s.Source
		if s.Stale {
			flags += ", stale"
		}
		fmt.Fprintf(stdout, "%s  [%s, %s]\n    %s\n    %s\n", head, s.Kind, flags, s.Text, s.Item)
	}
	return status
}

// runWatch is `rhizome watch`: the window's watcher without the window. It
// prints the folders it follows, then a line per file each import changed,
// until ctx ends (Ctrl-C, SIGTERM): the import under way is rolled back or
// finished, and the status is interruptedStatus.
func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("watch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	if err := fl.Parse(reorder(args, "db")); err != nil {
		return 2
	}
	if fl.NArg() != 0 {
		fmt.Fprintln(stderr, "rhizome watch: takes no arguments (the folders are in the library's settings)")
		return 2
	}
	a, st, ok := openAppContext(ctx, *db, stderr)
	if !ok {
		if ctx.Err() != nil {
			return interruptedStatus(ctx)
		}
		return 1
	}
	defer st.Close()
	var mu sync.Mutex
	firstPass := progressPrinter(stderr) // the first pass over the folders, as an import's bar
	a.SetEmitter(func(event string, data any) {
		mu.Lock()
		defer mu.Unlock()
		switch d := data.(type) {
		case app.ImportProgress:
			if event == "watch:progress" {
				firstPass("import:progress", d)
			}
		case app.WatchImported:
			for _, f := range d.Files {
				line := fmt.Sprintf("%s %-9s %s (%d entries, %d new)", d.At, f.Status, f.Path, f.Entries, f.NewEntries)
				if f.Status == "failed" {
					line = fmt.Sprintf("%s %-9s %s", d.At, f.Status, f.Error)
				}
				fmt.Fprintln(stdout, line)
			}
		case app.WatchStatus:
			if d.LastError != "" {
				fmt.Fprintf(stderr, "rhizome watch: %s\n", d.LastError)
			}
		}
	})
	folders, err := a.Watch.Folders()
	if err != nil {
		fmt.Fprintf(stderr, "rhizome watch: %v\n", err)
		return 1
	}
	watched := 0
	for _, f := range folders {
		state := "off"
		switch {
		case f.Enabled && f.Exists:
			state = "watching"
			watched++
		case f.Enabled:
			state = "missing"
		}
		fmt.Fprintf(stderr, "rhizome watch: %-8s %s\n", state, f.Path)
	}
	if watched == 0 {
		fmt.Fprintln(stderr, "rhizome watch: no watched folder exists; waiting anyway (Ctrl-C to stop)")
	}
	if err := a.Watch.Start(); err != nil {
		fmt.Fprintf(stderr, "rhizome watch: %v\n", err)
		return 1
	}
	// As in the window: the summary queue (a model's summaries, when one is
	// set) and the embedding queue (vectors for search, read by `rhizome
	// search` and `rhizome mcp` too) run while watching.
	a.StartSummaries(ctx)
	a.StartBackground(false)
	<-ctx.Done()
	a.Watch.Stop()
	fmt.Fprintf(stderr, "rhizome watch: %v: stopped\n", context.Cause(ctx))
	return interruptedStatus(ctx)
}

// runExportSession is `rhizome export-session`: the original file of a
// library session, written back byte for byte (checked against the size and
// SHA-256 recorded at import) to OUT.
func runExportSession(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("export-session", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	if err := fl.Parse(reorder(args, "db")); err != nil {
		return 2
	}
	if fl.NArg() != 2 {
		fmt.Fprintln(stderr, "rhizome export-session: give ITEM (a rhizome:session/ or rhizome:node/ URI, a session id, or the path it was imported from) and OUT")
		return 2
	}
	a, st, ok := openAppContext(ctx, *db, stderr)
	if !ok {
		return 1
	}
	defer st.Close()
	res, err := a.ExportSession(fl.Arg(0), fl.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "rhizome export-session: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d bytes of session %s (%s)\n", res.Path, res.Bytes, res.Session.ID, res.Session.Format)
	for _, p := range res.ToolOutputs {
		fmt.Fprintf(stdout, "%s: a tool output the session keeps in a file of its own\n", p)
	}
	return 0
}
