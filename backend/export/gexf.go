package export

import (
	"fmt"
	"io"
	"strconv"
)

// GEXFVersion is a GEXF version the writer speaks.
type GEXFVersion string

// GEXF versions: 1.3, the current one (Gephi 0.9 and later), and
// 1.2draft, which older tools and NetworkX 2 read.
const (
	GEXF13      GEXFVersion = "1.3"
	GEXF12Draft GEXFVersion = "1.2draft"
)

// Namespaces of each GEXF version.
var gexfNamespaces = map[GEXFVersion]struct{ ns, version, schema string }{
	GEXF13:      {"http://gexf.net/1.3", "1.3", "http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd"},
	GEXF12Draft: {"http://www.gexf.net/1.2draft", "1.2", "http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd"},
}

// WriteGEXF writes g as GEXF of the given version (GEXF13 when ""): a
// static graph, directed by default, with the node and edge attributes
// declared in <attributes> (uri, kind, text, time and the nodes' own; type,
// confidence, similarity, rationale, createdBy and the edges' own), nodes
// n0, n1, … labelled with their label cut to LabelRunes runes, edges e0,
// e1, … labelled with their type and weighted by their confidence; in 1.3
// an edge's kind is its type, so that Gephi keeps two relations between
// the same nodes apart. Every edge is directed (a symmetric relation has
// the attribute directed false): readers such as NetworkX refuse a graph
// that mixes directed and undirected edges. The graph is validated first;
// nothing is written when it is invalid.
//
// See interchange-formats.md, "GEXF 1.3".
func WriteGEXF(w io.Writer, g Graph, version GEXFVersion) error {
	if w == nil {
		return errNil
	}
	if version == "" {
		version = GEXF13
	}
	ns, ok := gexfNamespaces[version]
	if !ok {
		return fmt.Errorf("export: GEXF version %q: want %q or %q", version, GEXF13, GEXF12Draft)
	}
	if err := g.Validate(); err != nil {
		return err
	}
	x := newXMLWriter(w)
	x.open(0, "gexf", false, "xmlns", ns.ns, "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
		"xsi:schemaLocation", ns.schema, "version", ns.version)
	x.raw("\n")
	meta := []string{}
	if !g.ExportedAt.IsZero() {
		meta = append(meta, "lastmodifieddate", g.ExportedAt.UTC().Format("2006-01-02"))
	}
	x.open(1, "meta", false, meta...)
	x.element(0, "creator", "Rhizome")
	desc := "Rhizome knowledge graph"
	if g.Project != "" {
		desc += " of " + g.Project
	}
	x.element(0, "description", desc)
	x.close(-1, "meta")
	x.open(1, "graph", false, "mode", "static", "defaultedgetype", "directed")
	x.raw("\n")
	nodeSchema, edgeSchema := schemaOf(g.nodeAttrs), schemaOf(g.edgeAttrs)
	typeName := map[attrType]string{attrString: "string", attrDouble: "double", attrBool: "boolean"}
	x.open(2, "attributes", false, "class", "node")
	x.raw("\n")
	for _, a := range []string{"uri", "kind", "text", "time"} {
		x.open(3, "attribute", true, "id", a, "title", a, "type", "string")
	}
	for _, n := range nodeSchema.names {
		x.open(3, "attribute", true, "id", "n_"+n, "title", n, "type", typeName[nodeSchema.types[n]])
	}
	x.close(2, "attributes")
	x.open(2, "attributes", false, "class", "edge")
	x.raw("\n")
	for _, a := range [][2]string{{"type", "string"}, {"confidence", "double"}, {"similarity", "double"},
		{"rationale", "string"}, {"createdBy", "string"}, {"directed", "boolean"}} {
		x.open(3, "attribute", true, "id", a[0], "title", a[0], "type", a[1])
	}
	for _, n := range edgeSchema.names {
		x.open(3, "attribute", true, "id", "e_"+n, "title", n, "type", typeName[edgeSchema.types[n]])
	}
	x.close(2, "attributes")
	attvalues := func(values [][2]string) {
		has := false
		for _, v := range values {
			if v[1] != "" {
				has = true
			}
		}
		if !has {
			return
		}
		x.open(4, "attvalues", false)
		x.raw("\n")
		for _, v := range values {
			if v[1] != "" {
				x.open(5, "attvalue", true, "for", v[0], "value", v[1])
			}
		}
		x.close(4, "attvalues")
	}
	ids := nodeIDs(g)
	x.open(2, "nodes", false, "count", strconv.Itoa(len(g.Nodes)))
	x.raw("\n")
	for _, n := range g.Nodes {
		x.open(3, "node", false, "id", ids[n.ID], "label", shortLabel(n.Label))
		x.raw("\n")
		values := [][2]string{{"uri", n.ID}, {"kind", n.Kind}, {"text", n.Text}, {"time", formatTime(n.Time)}}
		for _, name := range nodeSchema.names {
			if v, ok := n.Attrs[name]; ok {
				values = append(values, [2]string{"n_" + name, formatValue(v)})
			}
		}
		attvalues(values)
		x.close(3, "node")
	}
	x.close(2, "nodes")
	x.open(2, "edges", false, "count", strconv.Itoa(len(g.Edges)))
	x.raw("\n")
	for i, e := range g.Edges {
		attrs := []string{"id", "e" + strconv.Itoa(i), "source", ids[e.Source], "target", ids[e.Target],
			"label", e.Type, "weight", formatFloat(e.Confidence)}
		if version == GEXF13 {
			attrs = append(attrs, "kind", e.Type)
		}
		x.open(3, "edge", false, attrs...)
		x.raw("\n")
		values := [][2]string{{"type", e.Type}, {"confidence", formatFloat(e.Confidence)}}
		if e.Similarity != nil {
			values = append(values, [2]string{"similarity", formatFloat(*e.Similarity)})
		}
		values = append(values, [2]string{"rationale", e.Rationale}, [2]string{"createdBy", e.CreatedBy},
			[2]string{"directed", strconv.FormatBool(e.Directed)})
		for _, name := range edgeSchema.names {
			if v, ok := e.Attrs[name]; ok {
				values = append(values, [2]string{"e_" + name, formatValue(v)})
			}
		}
		attvalues(values)
		x.close(3, "edge")
	}
	x.close(2, "edges")
	x.close(1, "graph")
	x.close(0, "gexf")
	return errWrite("GEXF", x.flush())
}
