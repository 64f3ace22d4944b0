package export

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSONFormat names Rhizome's graph export in its "format" field.
const JSONFormat = "rhizome.graph"

// JSONVersion is the version of the JSON export this package writes.
const JSONVersion = 1

// jsonDoc is the JSON export: the Graph with a format header.
type jsonDoc struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Graph
}

// WriteJSON writes g as Rhizome's lossless JSON export: {"format":
// "rhizome.graph", "version": 1, "project", "exportedAt", "nodes", "edges"},
// indented. ReadJSON reads it back to an equal Graph. The graph is
// validated first; nothing is written when it is invalid.
func WriteJSON(w io.Writer, g Graph) error {
	if w == nil {
		return errNil
	}
	if err := g.Validate(); err != nil {
		return err
	}
	if g.Nodes == nil {
		g.Nodes = []Node{}
	}
	if g.Edges == nil {
		g.Edges = []Edge{}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonDoc{Format: JSONFormat, Version: JSONVersion, Graph: g}); err != nil {
		return errWrite("JSON", err)
	}
	return errWrite("JSON", bw.Flush())
}

// ReadJSON reads a graph WriteJSON wrote. It refuses another format or a
// newer version, unknown fields, trailing data, and a graph that does not
// validate (see Graph.Validate); the error names the field or the byte
// offset of bad JSON.
func ReadJSON(r io.Reader) (Graph, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var doc jsonDoc
	if err := dec.Decode(&doc); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return Graph{}, fmt.Errorf("export: unable to read JSON: byte %d: %w", syn.Offset, err)
		case errors.As(err, &typ):
			return Graph{}, fmt.Errorf("export: unable to read JSON: field %s at byte %d: want %s, got %s", typ.Field, typ.Offset, typ.Type, typ.Value)
		}
		return Graph{}, fmt.Errorf("export: unable to read JSON: %w", err)
	}
	if dec.More() {
		return Graph{}, fmt.Errorf("export: unable to read JSON: data after the graph at byte %d", dec.InputOffset())
	}
	if doc.Format != JSONFormat {
		return Graph{}, fmt.Errorf("export: field format: %q, want %q", doc.Format, JSONFormat)
	}
	if doc.Version < 1 || doc.Version > JSONVersion {
		return Graph{}, fmt.Errorf("export: field version: %d, this reader knows 1 to %d", doc.Version, JSONVersion)
	}
	if err := doc.Graph.Validate(); err != nil {
		return Graph{}, err
	}
	return doc.Graph, nil
}
