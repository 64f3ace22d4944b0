package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"rhizome/app"
	"rhizome/store"
)

// `rhizome rules`: a project's knowledge for the agents' instruction files
// (issue 9 section 4).

// runRules is `rhizome rules [--db PATH] [--project P] [--format
// markdown|json]`: the project's active facts as ccmemory's "## Project
// Rules", grouped by category, latest wins, ready to paste into AGENTS.md or
// CLAUDE.md; with --format json the same rules as one JSON object
// (app.ProjectRules). Without --project, the current directory is the
// project. Open questions are never printed here.
func runRules(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	project := c.String("project", "", "project directory (default: the current directory)")
	format := c.String("format", "markdown", "markdown or json")
	if status, ok := c.parse(); !ok {
		return status
	}
	if c.NArg() > 0 {
		fmt.Fprintf(stderr, "rhizome rules: unexpected argument %q\n", c.Arg(0))
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
	st, err := store.OpenReadOnly(ctx, *c.db)
	if errors.Is(err, store.ErrReadOnly) {
		st, err = store.OpenContext(ctx, *c.db) // an older library: migrate it
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome rules: %v\n", err)
		return 1
	}
	defer st.Close()
	a := app.New(st, *c.db)
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
