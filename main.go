// Command rhizome is the Rhizome desktop app and its command line.
//
//	rhizome                          open the window on the library
//	rhizome import [--db PATH] [--json] PATH...
//	rhizome search [--db PATH] [--json] QUERY
//	rhizome serve  [--db PATH] [--addr 127.0.0.1:0]
//
// The library is one SQLite file, by default in the user's data directory
// (see defaultDBPath); RHIZOME_DB or --db overrides it.
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
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"

	"rhizome/app"
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
  rhizome import [--db PATH] [--json] PATH...  import pi session files or folders
  rhizome search [--db PATH] [--json] QUERY    search the library
  rhizome serve  [--db PATH] [--addr 127.0.0.1:0]
                                            serve the app to a browser on loopback
The library defaults to %s
(RHIZOME_DB overrides it).
`

// run is main without os.Exit, for tests: ctx ends `serve` and interrupts
// `import` and `search` (Ctrl-C). It returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runWindow(defaultDBPath(), stderr)
	}
	switch args[0] {
	case "import":
		return runImport(ctx, args[1:], stdout, stderr)
	case "search":
		return runSearch(ctx, args[1:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "window":
		fl := flag.NewFlagSet("window", flag.ContinueOnError)
		fl.SetOutput(stderr)
		db := fl.String("db", defaultDBPath(), "library file")
		if err := fl.Parse(args[1:]); err != nil {
			return 2
		}
		return runWindow(*db, stderr)
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

// runSearch is `rhizome search`; ctx ending (Ctrl-C) stops it.
func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("search", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	asJSON := fl.Bool("json", false, "print hits as JSON")
	limit := fl.Int("limit", 20, "most hits to show")
	if err := fl.Parse(reorder(args, "db", "limit")); err != nil {
		return 2
	}
	q := strings.Join(fl.Args(), " ")
	if strings.TrimSpace(q) == "" {
		fmt.Fprintln(stderr, "rhizome search: give a query")
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
	hits, err := a.Search.Query(q, *limit)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(hits)
		return 0
	}
	if len(hits) == 0 {
		fmt.Fprintln(stdout, "no matches")
	}
	for _, h := range hits {
		snippet := strings.NewReplacer("\u0001", "[", "\u0002", "]", "\n", " ").Replace(h.Snippet)
		fmt.Fprintf(stdout, "%s  %-5s %s\n    %s\n", h.NodeID, h.Kind, h.Title, snippet)
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
	if err := fl.Parse(reorder(args, "db", "addr")); err != nil {
		return 2
	}
	a, st, ok := openApp(*db, stderr)
	if !ok {
		return 1
	}
	defer st.Close()
	srv, err := newServer(a, frontendAssets())
	if err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	ln, url, err := srv.listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, url)
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	a.SetContext(ctx)
	a.StartBackground(false)
	hs := srv.httpServer() // with read, write and idle timeouts (defaultTimeouts)
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	return 0
}
