package export

import (
	"io"
	"strconv"
)

// GraphML namespace and schema.
const (
	GraphMLNamespace = "http://graphml.graphdrawing.org/xmlns"
	graphMLSchema    = "http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"
)

// WriteGraphML writes g as GraphML 1.0 with the attributes extension, valid
// against the official schema (see testdata/xsd): every attribute declared
// by a <key> before the <graph> (for, attr.name, attr.type string, double
// or boolean), nodes numbered n0, n1, … with their URI, kind, label (cut to
// LabelRunes runes; the full text in "text") and time as data, edges e0,
// e1, … with type, confidence (also as "weight", which Gephi reads as the
// edge weight), similarity, rationale, createdBy and directed. Every edge
// is written directed (a symmetric relation from its source to its target,
// directed false as data): readers such as NetworkX refuse a graph that
// mixes directed and undirected edges. The graph is validated first;
// nothing is written when it is invalid.
//
// See interchange-formats.md, "GraphML".
func WriteGraphML(w io.Writer, g Graph) error {
	if w == nil {
		return errNil
	}
	if err := g.Validate(); err != nil {
		return err
	}
	x := newXMLWriter(w)
	x.open(0, "graphml", false, "xmlns", GraphMLNamespace, "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
		"xsi:schemaLocation", graphMLSchema)
	x.raw("\n")
	type key struct{ id, forWhat, name, typ string }
	keys := []key{
		{"d_uri", "node", "uri", "string"}, {"d_kind", "node", "kind", "string"}, {"d_label", "node", "label", "string"},
		{"d_text", "node", "text", "string"}, {"d_time", "node", "time", "string"},
		{"d_type", "edge", "type", "string"}, {"d_confidence", "edge", "confidence", "double"},
		{"d_weight", "edge", "weight", "double"}, {"d_similarity", "edge", "similarity", "double"},
		{"d_rationale", "edge", "rationale", "string"}, {"d_createdBy", "edge", "createdBy", "string"},
		{"d_directed", "edge", "directed", "boolean"},
	}
	nodeSchema, edgeSchema := schemaOf(g.nodeAttrs), schemaOf(g.edgeAttrs)
	typeName := map[attrType]string{attrString: "string", attrDouble: "double", attrBool: "boolean"}
	for _, n := range nodeSchema.names {
		keys = append(keys, key{"dn_" + n, "node", n, typeName[nodeSchema.types[n]]})
	}
	for _, n := range edgeSchema.names {
		keys = append(keys, key{"de_" + n, "edge", n, typeName[edgeSchema.types[n]]})
	}
	for _, k := range keys {
		x.open(1, "key", true, "id", k.id, "for", k.forWhat, "attr.name", k.name, "attr.type", k.typ)
	}
	x.open(1, "graph", false, "id", "G", "edgedefault", "directed")
	x.raw("\n")
	data := func(key, value string) {
		if value != "" {
			x.element(3, "data", value, "key", key)
		}
	}
	ids := nodeIDs(g)
	for _, n := range g.Nodes {
		x.open(2, "node", false, "id", ids[n.ID])
		x.raw("\n")
		data("d_uri", n.ID)
		data("d_kind", n.Kind)
		data("d_label", shortLabel(n.Label))
		data("d_text", n.Text)
		data("d_time", formatTime(n.Time))
		for _, name := range nodeSchema.names {
			if v, ok := n.Attrs[name]; ok {
				data("dn_"+name, formatValue(v))
			}
		}
		x.close(2, "node")
	}
	for i, e := range g.Edges {
		x.open(2, "edge", false, "id", "e"+strconv.Itoa(i), "source", ids[e.Source], "target", ids[e.Target])
		x.raw("\n")
		data("d_type", e.Type)
		data("d_confidence", formatFloat(e.Confidence))
		data("d_weight", formatFloat(e.Confidence))
		if e.Similarity != nil {
			data("d_similarity", formatFloat(*e.Similarity))
		}
		data("d_rationale", e.Rationale)
		data("d_createdBy", e.CreatedBy)
		data("d_directed", strconv.FormatBool(e.Directed))
		for _, name := range edgeSchema.names {
			if v, ok := e.Attrs[name]; ok {
				data("de_"+name, formatValue(v))
			}
		}
		x.close(2, "edge")
	}
	x.close(1, "graph")
	x.close(0, "graphml")
	return errWrite("GraphML", x.flush())
}
