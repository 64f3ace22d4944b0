package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"rhizome/app"
	"rhizome/backend/link"
	"rhizome/store"
)

// exportFormat is one format `rhizome export` writes: the kinds of item it
// exports (the first is what a bare id names), said in words for errors,
// and how it makes the bytes of an item.
type exportFormat struct {
	kinds  []link.Kind
	what   string
	export func(a *app.App, it link.Item) ([]byte, error)
}

// itemFormats are the formats of `rhizome export --format`, by name.
// Formats of other items (the knowledge graph as json, graphml, gexf,
// markdown) are further entries.
var itemFormats = map[string]exportFormat{
	"memobrain": {
		kinds: []link.Kind{link.KindReasoning},
		what:  "a reasoning graph (rhizome:reasoning/<id>)",
		export: func(a *app.App, it link.Item) ([]byte, error) {
			s, err := a.Reasoning.Export(it.ID)
			return []byte(s), err
		},
	},
}

// itemFormatNames lists the export formats, sorted, for messages.
func itemFormatNames() string {
	names := make([]string, 0, len(itemFormats))
	for n := range itemFormats {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// itemDefaultFormat is the format an item exports in when --format is not
// given: the first (by name) that exports its kind.
func itemDefaultFormat(k link.Kind) string {
	names := strings.Split(itemFormatNames(), ", ")
	for _, n := range names {
		for _, fk := range itemFormats[n].kinds {
			if fk == k {
				return n
			}
		}
	}
	return ""
}

// runExportItem is `rhizome export [--db PATH] [--format F] ITEM OUT` (runExport hands it an item to write): it writes
// the library's item ITEM (a rhizome: URI, or a bare id of the format's
// kind) in format F to the file OUT, atomically ("-": standard output).
// Exit status 2 for a wrong command line (a format, an item the format does
// not export), 1 when the export fails (an item not in the library).
func runExportItem(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	format := c.String("format", "", "what to write: "+itemFormatNames()+" (default: the item's own)")
	if status, ok := c.parse(); !ok {
		return status
	}
	if c.NArg() != 2 {
		fmt.Fprintln(stderr, "rhizome export: give the item and the file to write (- for standard output): rhizome export [--db PATH] --format memobrain rhizome:reasoning/<id> OUT")
		return 2
	}
	ref, out := c.Arg(0), c.Arg(1)
	var it link.Item
	if strings.Contains(ref, ":") {
		var err error
		if it, err = link.Parse(ref); err != nil {
			fmt.Fprintf(stderr, "rhizome export: %v\n", err)
			return 2
		}
	}
	name := *format
	if name == "" {
		name = itemDefaultFormat(it.Kind)
		if it.Kind == "" {
			name = "memobrain" // a bare id: a reasoning graph's
		}
		if name == "" {
			fmt.Fprintf(stderr, "rhizome export: no format exports %s (formats: %s)\n", ref, itemFormatNames())
			return 2
		}
	}
	f, ok := itemFormats[name]
	if !ok {
		fmt.Fprintf(stderr, "rhizome export: unknown format %q (want %s)\n", name, itemFormatNames())
		return 2
	}
	if it.Kind == "" {
		it = link.Item{Kind: f.kinds[0], ID: ref}
		if err := it.Validate(); err != nil {
			fmt.Fprintf(stderr, "rhizome export: %v\n", err)
			return 2
		}
	}
	fits := false
	for _, k := range f.kinds {
		fits = fits || k == it.Kind
	}
	if !fits {
		fmt.Fprintf(stderr, "rhizome export: %s exports %s, not %s\n", name, f.what, it)
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		return status
	}
	data, err := f.export(a, it)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome export: %s: %v\n", it, err)
		return 1
	}
	if out == "-" {
		if _, err := stdout.Write(data); err != nil {
			fmt.Fprintf(stderr, "rhizome export: %v\n", err)
			return 1
		}
		return 0
	}
	if err := store.WriteFile(out, data, 0o644); err != nil {
		fmt.Fprintf(stderr, "rhizome export: %v\n", err)
		return 1
	}
	return 0
}
