package export

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// ReadJSON never panics on bad input, and what it accepts writes back.
func FuzzReadJSON(f *testing.F) {
	f.Add(`{"format":"rhizome.graph","version":1,"nodes":[{"id":"a","kind":"x","label":"l"}],"edges":[]}`)
	f.Add(`{"format":"rhizome.graph","version":1,"nodes":[],"edges":[{"source":"a"}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		g, err := ReadJSON(strings.NewReader(doc))
		if err != nil {
			return
		}
		if err := WriteJSON(io.Discard, g); err != nil {
			t.Fatalf("read but not written: %v", err)
		}
	})
}

// Whatever text a node or edge carries, GraphML and GEXF stay well-formed
// XML and the Markdown notes are made.
func FuzzWriters(f *testing.F) {
	f.Add("label", "text", "rationale")
	f.Add("\x00\x01<&>\"'", "]]>\xff\xfe", "\x1b[31m")
	f.Fuzz(func(t *testing.T, label, text, why string) {
		g := Graph{Nodes: []Node{{ID: "rhizome:node/a", Kind: "segment", Label: label, Text: text},
			{ID: "rhizome:node/b", Kind: "decision", Label: text, Attrs: map[string]any{"note": why}}},
			Edges: []Edge{{Source: "rhizome:node/a", Target: "rhizome:node/b", Type: "RELATES_TO", Confidence: 0.5, Rationale: why}}}
		if g.Validate() != nil {
			return // not UTF-8: refused, tested elsewhere
		}
		for _, write := range []func(io.Writer) error{
			func(w io.Writer) error { return WriteGraphML(w, g) },
			func(w io.Writer) error { return WriteGEXF(w, g, GEXF13) },
		} {
			var buf bytes.Buffer
			if err := write(&buf); err != nil {
				t.Fatal(err)
			}
			d := xml.NewDecoder(&buf)
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed XML: %v", err)
				}
			}
		}
		if _, err := MarkdownNotes(g); err != nil {
			t.Fatal(err)
		}
	})
}
