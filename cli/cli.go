// Package cli is the rhizome command line: one file per command, the table
// of commands (commands, from which `rhizome --help` is made) and the
// preamble every command shares, written once (flags.go): the library's
// --db flag, the model flags, opening the app, and the context Ctrl-C and
// SIGTERM end (signal.go), with their exit statuses 130 and 143.
//
//	rhizome                          open the window on the library
//	rhizome import [--db PATH] [--json] [--no-wait] PATH...
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
//	rhizome eval   [--json] [--limit N] [--keep DIR] [--misses FILE] [--base-url URL --model NAME] locomo|longmemeval FILE
//
// The library is one SQLite file, by default in the user's data directory
// (see defaultDBPath); RHIZOME_DB or --db overrides it. Every command that
// uses a model takes the model for one run from --provider, --base-url and
// --model, and from RHIZOME_LLM_PROVIDER, RHIZOME_LLM_BASE_URL,
// RHIZOME_LLM_MODEL and RHIZOME_LLM_API_KEY (flags win), over the library's
// settings, which stay as they are (see modelFlags).
package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Assets are what the binary embeds for the commands that show the app:
// the built frontend (frontend/dist, index.html at its root; nil or without
// index.html in a binary built without it) and the window's icon (PNG).
type Assets struct {
	Frontend fs.FS
	Icon     []byte
}

// A command is one of rhizome's commands.
type command struct {
	// name is the word after rhizome.
	name string
	// usage is what `rhizome --help` prints for the command, as printed:
	// its command lines and what it does in the right-hand column.
	usage string
	// run runs the command on c, whose flag set holds --db already; it
	// returns the exit status.
	run func(ctx context.Context, c *call) int
}

// commands are rhizome's commands, in the order `rhizome --help` lists
// them. The window is also what a bare `rhizome` runs.
var commands = []command{
	{"window", `  rhizome                                   open the window
`, runWindow},
	{"import", `  rhizome import [--db PATH] [--json] [--no-wait] PATH...
                                            import session files or folders (pi, Claude
                                            Code, Gemini CLI, Qwen Code, Copilot CLI, Cline,
                                            Codex), OpenCode's database (opencode.db, or its
                                            folder) and MemoBrain snapshots; readable first,
                                            then analysed (--no-wait: left to the window)
`, runImport},
	{"search", `  rhizome search [--db PATH] [--json] [--explain] [--bridges] [--filter K=V]... QUERY
                                            search the library (hybrid)
`, runSearch},
	{"consolidate", `  rhizome consolidate [--db PATH] [--json] [--dry-run] [--cycle decay|creative|cluster|forget]
                                            run the consolidation cycles
`, runConsolidate},
	{"serve", `  rhizome serve  [--db PATH] [--addr 127.0.0.1:0] [--base-url URL --model NAME]
                                            serve the app to a browser on loopback
`, runServe},
	{"summarize", `  rhizome summarize [--db PATH] [--json] [--offline] [--base-url URL --model NAME] [ITEM...]
                                            make the missing and stale summaries (or those of
                                            the items named: rhizome:session/<id>, ...) and print them
`, runSummarize},
	{"export", `  rhizome export [--db PATH] [--project P] --format json|graphml|gexf|markdown OUT
                                            write the graph for Gephi, yEd, Obsidian
  rhizome export [--db PATH] --format memobrain ITEM OUT
                                            write a reasoning graph (rhizome:reasoning/<id>)
                                            to a file (- for standard output)
`, runExport},
	{"analyze", `  rhizome analyze [--db PATH] [--json] [--offline] [--base-url URL --model NAME] [--budget USD] [ITEM...]
                                            analyse segments with a model (or offline)
`, runAnalyze},
	{"link", `  rhizome link   [--db PATH] [--type TYPE] [--note TEXT] [--json] FROM TO
                                            link two items (URIs: rhizome:node/<id>, ...)
`, runLink},
	{"links", `  rhizome links  [--db PATH] [--json] ITEM  the links from and to an item (--types: the types)
`, runLinks},
	{"rules", `  rhizome rules  [--db PATH] [--project P] [--format markdown|json]
                                            print a project's "## Project Rules"
`, runRules},
	{"mcp", `  rhizome mcp    [--db PATH] [--read-only]  an MCP server on stdio for coding agents
`, runMCP},
	{"watch", `  rhizome watch  [--db PATH]                import the watched folders' sessions as they are written
`, runWatch},
	{"export-session", `  rhizome export-session [--db PATH] ITEM OUT
                                            write a session's original file back, byte for byte
`, runExportSession},
	{"eval", `  rhizome eval   [--json] [--limit N] [--keep DIR] [--misses FILE] [--base-url URL --model NAME] locomo|longmemeval FILE
                                            the memory's evidence recall on LoCoMo or LongMemEval
                                            (their published JSON, in a temporary library),
                                            beside plain BM25
`, runEval},
}

// usage is `rhizome --help`: every command's usage, then where the library
// is and how to name a model for one run.
func usage() string {
	var b strings.Builder
	b.WriteString("Rhizome: see, search and build on the trail of your work with LLM agents.\n\nUsage:\n")
	for _, c := range commands {
		b.WriteString(c.usage)
	}
	fmt.Fprintf(&b, `The library defaults to %s
(RHIZOME_DB overrides it). A model for one run: --provider, --base-url, --model, or
RHIZOME_LLM_PROVIDER, RHIZOME_LLM_BASE_URL, RHIZOME_LLM_MODEL, RHIZOME_LLM_API_KEY.
`, defaultDBPath())
	return b.String()
}

// Main is the rhizome command: it runs the command os.Args names under a
// context that Ctrl-C (SIGINT) or SIGTERM ends, and returns the exit status
// (130 or 143 for a command those stopped, see interruptedStatus).
func Main(assets Assets) int {
	ctx, stop := signalContext(os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr, assets)
}

// Run is Main without the process: it runs the command args name (none:
// the window) under ctx, which ends `serve`, `watch` and `mcp` and
// interrupts the others, and returns the exit status: 0, 1 when the command
// failed, 2 for a wrong command line, 128 + the signal's number when ctx
// ended with one (signalContext).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, assets Assets) int {
	name := "window"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage())
		return 0
	}
	for i := range commands {
		if commands[i].name == name {
			c := newCall(&commands[i], args, stdout, stderr, assets)
			defer c.close()
			return commands[i].run(ctx, c)
		}
	}
	fmt.Fprintf(stderr, "rhizome: unknown command %q\n\n%s", name, usage())
	return 2
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
