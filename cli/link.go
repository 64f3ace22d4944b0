package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"rhizome/app"
)

// runLink is `rhizome link [--db PATH] [--type TYPE] [--note TEXT] [--json]
// FROM TO`: a link from item FROM to item TO (URIs: rhizome:node/…, a URL, a
// file path), type RELATES_TO unless --type says (any case, spaces or
// dashes: "leads to"). It prints the link, as JSON with --json.
func runLink(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	typ := c.String("type", "RELATES_TO", "the link's type (rhizome links --types lists them)")
	note := c.String("note", "", "a note on the link (markdown)")
	asJSON := c.Bool("json", false, "print the link as JSON")
	a, status := c.start(ctx, 2, "give two items, FROM and TO (URIs such as rhizome:node/<id>, a URL or a file path)")
	if a == nil {
		return status
	}
	v, err := a.Links.Create(app.LinkInput{Source: c.Arg(0), Target: c.Arg(1), Type: *typ, Note: *note})
	if err != nil {
		fmt.Fprintf(stderr, "rhizome link: %v\n", err)
		return 1
	}
	if *asJSON {
		printJSON(stdout, v)
		return 0
	}
	fmt.Fprintf(stdout, "%s %s %s (%s)\n", v.Source, v.Label, v.Target, v.ID)
	return 0
}

// runLinks is `rhizome links [--db PATH] [--json] ITEM`: the links from and
// to ITEM, `{"item", "outgoing": [...], "backlinks": [...]}` with --json;
// `--types` lists the link types instead.
func runLinks(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, "print the links as one JSON object")
	types := c.Bool("types", false, "list the link types with their descriptions")
	if status, ok := c.parse(); !ok {
		return status
	}
	if *types {
		rs, _ := (&app.Links{}).Relations()
		for _, r := range rs {
			fmt.Fprintf(stdout, "%-15s %s\n", r.Type, r.Description)
		}
		return 0
	}
	if c.NArg() != 1 {
		fmt.Fprintln(stderr, "rhizome links: give one item (a URI such as rhizome:node/<id>)")
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		return status
	}
	v, err := a.Links.Of(c.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "rhizome links: %v\n", err)
		return 1
	}
	if *asJSON {
		printJSON(stdout, v)
		return 0
	}
	title := v.Item.Title
	if !v.Item.Exists {
		title += " (not in the library)"
	}
	fmt.Fprintf(stdout, "%s\n%s\n", v.Item.URI, title)
	printLinks(stdout, "outgoing", v.Outgoing)
	printLinks(stdout, "backlinks", v.Backlinks)
	return 0
}

// printLinks prints a list of links under a heading, one a line: the
// relation as read from the item, the other end's title and URI, broken
// ones marked, notes indented below.
func printLinks(w io.Writer, heading string, ls []app.LinkView) {
	fmt.Fprintf(w, "%s: %d\n", heading, len(ls))
	for _, l := range ls {
		gone := ""
		if l.Broken {
			gone = "  [broken: target gone]"
		}
		fmt.Fprintf(w, "  %-16s %s  %s%s\n", l.Label, l.Other.Title, l.Other.URI, gone)
		if l.Note != "" {
			for _, line := range strings.Split(l.Note, "\n") {
				fmt.Fprintf(w, "      %s\n", line)
			}
		}
	}
}
