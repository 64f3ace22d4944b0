package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"rhizome/app"
	"rhizome/mcp"
	"rhizome/store"
)

// `rhizome rules` and `rhizome mcp`: the knowledge of the library for the
// agents (issue 9 section 4, issue 11 section 3).

// runRules is `rhizome rules [--db PATH] [--project P] [--format
// markdown|json]`: the project's active facts as ccmemory's "## Project
// Rules", grouped by category, latest wins, ready to paste into AGENTS.md or
// CLAUDE.md; with --format json the same rules as one JSON object
// (app.ProjectRules). Without --project, the current directory is the
// project. Open questions are never printed here.
func runRules(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("rules", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	project := fl.String("project", "", "project directory (default: the current directory)")
	format := fl.String("format", "markdown", "markdown or json")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "rhizome rules: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if *format != "markdown" && *format != "json" {
		fmt.Fprintf(stderr, "rhizome rules: --format %q: want markdown or json\n", *format)
		return 2
	}
	p := *project
	if p == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "rhizome rules: %v\n", err)
			return 1
		}
		p = wd
	}
	st, err := store.OpenReadOnly(ctx, *db)
	if errors.Is(err, store.ErrReadOnly) {
		st, err = store.OpenContext(ctx, *db) // an older library: migrate it
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome rules: %v\n", err)
		return 1
	}
	defer st.Close()
	a := app.New(st, *db)
	a.SetContext(ctx)
	rules, err := a.Knowledge.Rules(p)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome rules: %v\n", err)
		return 1
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rules); err != nil {
			fmt.Fprintf(stderr, "rhizome rules: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprint(stdout, rules.Markdown)
	return 0
}

// runMCP is `rhizome mcp [--db PATH] [--read-only]`: an MCP server over
// stdio (JSON-RPC, one message a line, on stdin and stdout) until stdin
// closes or ctx ends. With --read-only the library is opened read-only
// (store.OpenReadOnly) and record refuses. Nothing but protocol messages is
// written to stdout; errors go to stderr.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fl.SetOutput(stderr)
	db := fl.String("db", defaultDBPath(), "library file")
	readOnly := fl.Bool("read-only", false, "open the library read-only; record refuses")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	var st *store.Store
	var err error
	if *readOnly {
		st, err = store.OpenReadOnly(ctx, *db)
	} else {
		st, err = store.OpenContext(ctx, *db)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome mcp: %v\n", err)
		return 1
	}
	defer st.Close()
	a := app.New(st, *db)
	a.SetContext(ctx)
	// The vectors and index the window's background queue saved: search
	// ranks with them (and without, saying so on stderr, when there are
	// none to read).
	if err := a.LoadVectors(); err != nil {
		fmt.Fprintf(stderr, "rhizome mcp: searching without vectors: %v\n", err)
	}
	if err := mcp.Run(ctx, a, *readOnly, os.Stdin, stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "rhizome mcp: %v\n", err)
		return 1
	}
	return 0
}
