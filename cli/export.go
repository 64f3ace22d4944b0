package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rhizome/backend/export"
	"rhizome/store"
)

// exportFormats are the formats `rhizome export --format` takes.
const exportFormats = "json|graphml|gexf|markdown (the graph), memobrain (a reasoning graph: ITEM OUT)"

// runExport is `rhizome export [--db PATH] [--project P] --format F OUT`:
// the library's graph written to OUT (a file, or a folder for markdown).
// Each format is a case of the switch below; a format of its own file (the
// memobrain export) adds its case there.
func runExport(ctx context.Context, c *call) int {
	if exportsItem(c.args) {
		return runExportItem(ctx, c)
	}
	stdout, stderr := c.stdout, c.stderr
	project := c.String("project", "", "export only this project (a session working directory)")
	format := c.String("format", "", "output format: "+exportFormats)
	if status, ok := c.parse(); !ok {
		return status
	}
	if c.NArg() != 1 {
		fmt.Fprintf(stderr, "rhizome export: give one output path (a file; a folder for markdown)\n")
		return 2
	}
	out := c.Arg(0)
	switch *format {
	case "json", "graphml", "gexf", "markdown":
	case "":
		fmt.Fprintf(stderr, "rhizome export: --format is required: %s\n", exportFormats)
		return 2
	default:
		fmt.Fprintf(stderr, "rhizome export: unknown format %q: want %s\n", *format, exportFormats)
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		return status
	}
	g, err := a.ExportGraph(*project)
	if err == nil {
		err = writeGraphFormat(*format, g, out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome export: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d nodes and %d edges written to %s (%s)\n", len(g.Nodes), len(g.Edges), out, *format)
	return 0
}

// writeGraphFormat writes g to out in one of the graph formats (json,
// graphml, gexf: a file written whole or not at all; markdown: a folder of
// notes).
func writeGraphFormat(format string, g export.Graph, out string) error {
	if format == "markdown" {
		return export.WriteMarkdown(out, g)
	}
	var write func(io.Writer) error
	switch format {
	case "json":
		write = func(w io.Writer) error { return export.WriteJSON(w, g) }
	case "graphml":
		write = func(w io.Writer) error { return export.WriteGraphML(w, g) }
	case "gexf":
		write = func(w io.Writer) error { return export.WriteGEXF(w, g, export.GEXF13) }
	default:
		return fmt.Errorf("unknown graph format %q", format)
	}
	if dir := filepath.Dir(out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("unable to create %s: %w", dir, err)
		}
	}
	return store.WriteFileFrom(out, 0o644, write)
}

// exportsItem tells `rhizome export ITEM OUT` (one item in its own format,
// export.go) from the graph export: --format memobrain, or a reasoning
// graph's URI among the arguments.
func exportsItem(args []string) bool {
	for i, a := range args {
		if a == "--format=memobrain" || a == "-format=memobrain" || strings.HasPrefix(a, "rhizome:reasoning/") {
			return true
		}
		if (a == "--format" || a == "-format") && i+1 < len(args) && args[i+1] == "memobrain" {
			return true
		}
	}
	return false
}
