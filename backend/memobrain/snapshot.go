package memobrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Snapshot is a MemoBrain memory file: the graph save_memory writes
// (graph.to_dict(), json.dump with indent 4), bare or wrapped as
// {"memory": graph, …} (MemoBrain's examples/memory_snapshot.json, and the
// result of its example agent, which carries the conversation as
// "messages" beside "memory"). See interchange-formats.md §3.
//
// A snapshot read by ReadSnapshot keeps everything it held: the wrapper's
// other keys, the graph object's other keys, and every node's and edge's
// keys as written. WriteSnapshot gives it back, with what operations
// changed since.
type Snapshot struct {
	Graph *Graph
	// Wrapped is whether the graph sits under "memory".
	Wrapped bool

	outer  []field // the wrapper's members, as read
	fields []field // the graph object's members, as read
}

// NewSnapshot is a bare snapshot of g.
func NewSnapshot(g *Graph) *Snapshot { return &Snapshot{Graph: g} }

// ReadSnapshot reads a MemoBrain snapshot, bare or wrapped (detected by
// content: a top-level "nodes" means bare, else an object under "memory").
// It needs what MemoBrain's from_dict needs: "nodes", an object of nodes
// keyed by their id, not empty, and "edges", a list. Each node needs an
// integer "node_id" equal to its key read with int(), a string "kind" and a
// "thought" (any JSON; see Thought); "related_turn_ids" (integers) and
// "active" (true, false or "Flushed") are optional, as from_dict defaults
// them to [] and true. Each edge needs "src" and "dst", integers or strings
// holding one (from_dict keeps either; Rhizome reads both as the node
// they name, which must exist), and an optional string "rationale" (null
// reads as "") and "kind". Other keys anywhere are kept. Ids and turn ids
// must be at most MaxID in size.
//
// The graph's log starts at the snapshot. Errors give the line and the
// field: `memobrain: snapshot line 12: node "3": active "maybe" is neither
// true, false nor "Flushed"`.
func ReadSnapshot(data []byte) (*Snapshot, error) {
	data = bytes.Clone(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if !json.Valid(data) {
		return nil, fmt.Errorf("memobrain: unable to read a snapshot: %w", syntaxError(data))
	}
	fs, err := objectFields(data, 0)
	if err != nil {
		return nil, fmt.Errorf("memobrain: unable to read a snapshot: it is %s, not an object {nodes, edges}", jsonKind(data))
	}
	top, dup := fieldsByKey(fs)
	if dup != "" {
		return nil, fmt.Errorf("memobrain: unable to read a snapshot: key %q appears twice at the top", dup)
	}
	s := &Snapshot{fields: fs}
	if _, bare := top["nodes"]; !bare {
		mem, ok := top["memory"]
		if !ok {
			return nil, errors.New(`memobrain: unable to read a snapshot: it has neither "nodes" nor "memory"`)
		}
		if s.fields, err = objectFields(mem.value, mem.off); err != nil {
			return nil, fmt.Errorf(`memobrain: snapshot line %d: "memory" is %s, not an object {nodes, edges}`, lineOf(data, mem.off), jsonKind(mem.value))
		}
		s.Wrapped, s.outer = true, fs
	}
	if s.Graph, err = readGraph(data, s.fields, false); err != nil {
		return nil, err
	}
	return s, nil
}

// readGraph reads the graph object whose members are fs, in the document
// doc.
func readGraph(doc []byte, fs []field, allowEmpty bool) (*Graph, error) {
	m, dup := fieldsByKey(fs)
	if dup != "" {
		return nil, fmt.Errorf("memobrain: unable to read a snapshot: key %q appears twice in the graph", dup)
	}
	nf, ok := m["nodes"]
	if !ok {
		return nil, errors.New(`memobrain: unable to read a snapshot: the graph has no "nodes"`)
	}
	ef, ok := m["edges"]
	if !ok {
		return nil, errors.New(`memobrain: unable to read a snapshot: the graph has no "edges"`)
	}
	nodes, err := objectFields(nf.value, nf.off)
	if err != nil {
		return nil, fmt.Errorf(`memobrain: snapshot line %d: "nodes" is %s, not an object {id: node}`, lineOf(doc, nf.off), jsonKind(nf.value))
	}
	if len(nodes) == 0 && !allowEmpty {
		return nil, fmt.Errorf(`memobrain: snapshot line %d: "nodes" is empty (MemoBrain cannot load a graph without nodes)`, lineOf(doc, nf.off))
	}
	g := &Graph{nodes: make([]*ReasoningNode, 0, len(nodes)), index: make(map[int]int, len(nodes)), next: 1}
	maxID := 0
	for i, f := range nodes {
		n, err := readNode(doc, f)
		if err != nil {
			return nil, fmt.Errorf("memobrain: snapshot line %d: node %q: %w", lineOf(doc, f.off), f.key, err)
		}
		if j, dup := g.index[n.ID]; dup {
			return nil, fmt.Errorf("memobrain: snapshot line %d: node %q: node_id %d is also node %q's", lineOf(doc, f.off), f.key, n.ID, g.nodes[j].src.key)
		}
		if i == 0 || n.ID > maxID {
			maxID = n.ID
		}
		g.index[n.ID] = len(g.nodes)
		g.nodes = append(g.nodes, n)
	}
	if len(nodes) > 0 {
		g.next = maxID + 1 // from_dict: itertools.count(max_id + 1)
	}
	edges, err := arrayElements(ef.value, ef.off)
	if err != nil {
		return nil, fmt.Errorf(`memobrain: snapshot line %d: "edges" is %s, not a list`, lineOf(doc, ef.off), jsonKind(ef.value))
	}
	g.edges = make([]Edge, 0, len(edges))
	for j, el := range edges {
		e, err := readEdge(g, el)
		if err != nil {
			return nil, fmt.Errorf("memobrain: snapshot line %d: edges[%d]: %w", lineOf(doc, el.off), j, err)
		}
		g.edges = append(g.edges, e)
	}
	g.base = g.frozen()
	return g, nil
}

func readNode(doc []byte, nf field) (*ReasoningNode, error) {
	fs, err := objectFields(nf.value, nf.off)
	if err != nil {
		return nil, fmt.Errorf("it is %s, not an object", jsonKind(nf.value))
	}
	m, dup := fieldsByKey(fs)
	if dup != "" {
		return nil, fmt.Errorf("key %q appears twice", dup)
	}
	n := &ReasoningNode{src: &nodeSource{key: nf.key, fields: fs}}
	f, ok := m["node_id"]
	if !ok {
		return nil, errors.New(`"node_id" is missing`)
	}
	if n.ID, err = readInt(f.value); err != nil {
		return nil, fmt.Errorf("node_id %w", err)
	}
	if k, ok := pyInt(nf.key); !ok || k != n.ID {
		return nil, fmt.Errorf("its key is not its node_id %d", n.ID)
	}
	kind, err := requiredString(m, "kind")
	if err != nil {
		return nil, err
	}
	n.Kind = NodeKind(kind)
	f, ok = m["thought"]
	if !ok {
		return nil, errors.New(`"thought" is missing`)
	}
	n.Thought = classifyThought(f.value)
	n.TurnIDs = []int{}
	if f, ok := m["related_turn_ids"]; ok && !isNull(f.value) {
		es, err := arrayElements(f.value, f.off)
		if err != nil {
			return nil, fmt.Errorf("related_turn_ids is %s, not a list", jsonKind(f.value))
		}
		n.TurnIDs = make([]int, len(es))
		for k, e := range es {
			if n.TurnIDs[k], err = readInt(e.value); err != nil {
				return nil, fmt.Errorf("related_turn_ids[%d] %w", k, err)
			}
		}
	}
	if f, ok := m["active"]; ok {
		if err := n.Active.UnmarshalJSON(f.value); err != nil {
			return nil, err
		}
		n.src.hasActive = true
	}
	n.src.active = n.Active
	return n, nil
}

func readEdge(g *Graph, el element) (Edge, error) {
	fs, err := objectFields(el.value, el.off)
	if err != nil {
		return Edge{}, fmt.Errorf("it is %s, not an object {src, dst, rationale}", jsonKind(el.value))
	}
	m, dup := fieldsByKey(fs)
	if dup != "" {
		return Edge{}, fmt.Errorf("key %q appears twice", dup)
	}
	e := Edge{src: fs}
	for _, end := range []struct {
		key string
		to  *int
	}{{"src", &e.Src}, {"dst", &e.Dst}} {
		f, ok := m[end.key]
		if !ok {
			return Edge{}, fmt.Errorf("%q is missing", end.key)
		}
		id, err := readNodeID(f.value)
		if err != nil {
			return Edge{}, fmt.Errorf("%s %w", end.key, err)
		}
		if _, ok := g.index[id]; !ok {
			return Edge{}, fmt.Errorf("%s %s is not a node of the graph", end.key, clip(string(f.value)))
		}
		*end.to = id
	}
	if e.Rationale, err = optionalString(m, "rationale"); err != nil {
		return Edge{}, err
	}
	if _, ok := m["kind"]; ok {
		k, err := requiredString(m, "kind")
		if err != nil {
			return Edge{}, err
		}
		e.Kind = EdgeKind(k)
	} else {
		e.Kind, e.KindInferred = InferEdgeKind(g.kind(e.Src), g.kind(e.Dst)), true
	}
	return e, nil
}

// readNodeID reads an edge end in a snapshot: an integer, or a string that
// int() reads.
func readNodeID(raw json.RawMessage) (int, error) {
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		if id, ok := pyInt(s); ok {
			return id, nil
		}
		return 0, fmt.Errorf("is %s, not a node id", clip(string(raw)))
	}
	return readInt(raw)
}

// WriteSnapshot writes s as MemoBrain's save_memory does (JSON indented by
// four spaces, non-ASCII characters as they are, no final newline), keeping
// everything s was read with: a snapshot read and written again is equal to
// the original as JSON, and byte for byte when the original was written by
// save_memory. Nodes and edges the graph gained are written in MemoBrain's
// key order (node_id, kind, related_turn_ids, thought, active; src, dst,
// rationale); an inferred edge kind is never written.
func WriteSnapshot(s *Snapshot) ([]byte, error) {
	if s == nil || s.Graph == nil {
		return nil, errors.New("memobrain: unable to write a snapshot: there is no graph")
	}
	graph := appendGraph(nil, s.Graph, s.fields)
	var compact []byte
	switch {
	case !s.Wrapped:
		compact = graph
	case s.outer == nil:
		compact = append(append([]byte(`{"memory":`), graph...), '}')
	default:
		compact = []byte{'{'}
		for i, f := range s.outer {
			if i > 0 {
				compact = append(compact, ',')
			}
			compact = append(appendJSONString(compact, f.key, false), ':')
			if f.key == "memory" {
				compact = append(compact, graph...)
			} else {
				compact = append(compact, f.value...)
			}
		}
		compact = append(compact, '}')
	}
	var out bytes.Buffer
	out.Grow(len(compact) * 2)
	if err := json.Indent(&out, compact, "", "    "); err != nil {
		return nil, fmt.Errorf("memobrain: unable to write a snapshot: %w", err)
	}
	return out.Bytes(), nil
}

// Messages reads the conversation a wrapped snapshot carries under
// "messages" (MemoBrain's example agent returns it beside "memory"); nil
// when there is none.
func (s *Snapshot) Messages() ([]Message, error) {
	for _, f := range s.outer {
		if f.key == "messages" {
			return readMessageList(f.value)
		}
	}
	return nil, nil
}

// appendGraph appends the graph object: the members fs it was read with
// (nodes and edges written from g), or {"nodes", "edges"}.
func appendGraph(b []byte, g *Graph, fs []field) []byte {
	if fs == nil {
		fs = []field{{key: "nodes"}, {key: "edges"}}
	}
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, f.key, false), ':')
		switch f.key {
		case "nodes":
			b = append(b, '{')
			for j, n := range g.nodes {
				if j > 0 {
					b = append(b, ',')
				}
				if n.src != nil {
					b = appendJSONString(b, n.src.key, false)
				} else {
					b = append(strconv.AppendInt(append(b, '"'), int64(n.ID), 10), '"')
				}
				b = appendNode(append(b, ':'), n)
			}
			b = append(b, '}')
		case "edges":
			b = append(b, '[')
			for j, e := range g.edges {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendEdge(b, e)
			}
			b = append(b, ']')
		default:
			b = append(b, f.value...)
		}
	}
	return append(b, '}')
}

func appendNode(b []byte, n *ReasoningNode) []byte {
	active, _ := n.Active.MarshalJSON()
	if n.src == nil {
		b = strconv.AppendInt(append(b, `{"node_id":`...), int64(n.ID), 10)
		b = appendJSONString(append(b, `,"kind":`...), string(n.Kind), false)
		b = append(b, `,"related_turn_ids":[`...)
		for i, t := range n.TurnIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(t), 10)
		}
		th, _ := n.Thought.MarshalJSON()
		b = append(append(b, `],"thought":`...), th...)
		return append(append(append(b, `,"active":`...), active...), '}')
	}
	b = append(b, '{')
	for i, f := range n.src.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, f.key, false), ':')
		if f.key == "active" && n.Active != n.src.active {
			b = append(b, active...)
		} else {
			b = append(b, f.value...)
		}
	}
	if !n.src.hasActive && n.Active != n.src.active {
		if len(n.src.fields) > 0 {
			b = append(b, ',')
		}
		b = append(append(b, `"active":`...), active...)
	}
	return append(b, '}')
}

func appendEdge(b []byte, e Edge) []byte {
	if e.src == nil {
		b = strconv.AppendInt(append(b, `{"src":`...), int64(e.Src), 10)
		b = strconv.AppendInt(append(b, `,"dst":`...), int64(e.Dst), 10)
		return append(appendJSONString(append(b, `,"rationale":`...), e.Rationale, false), '}')
	}
	b = append(b, '{')
	for i, f := range e.src {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(appendJSONString(b, f.key, false), ':'), f.value...)
	}
	return append(b, '}')
}

// MarshalJSON writes the graph's current state as a bare MemoBrain snapshot
// (compact); a Log's Base is written so.
func (g *Graph) MarshalJSON() ([]byte, error) {
	return appendGraph(nil, g, nil), nil
}

// UnmarshalJSON reads a bare snapshot written by MarshalJSON (or any bare
// snapshot, empty "nodes" allowed). The graph's log starts there.
func (g *Graph) UnmarshalJSON(b []byte) error {
	b = bytes.Clone(b)
	fs, err := objectFields(b, 0)
	if err != nil {
		return fmt.Errorf("memobrain: unable to read a graph: it is %s, not an object {nodes, edges}", jsonKind(b))
	}
	r, err := readGraph(b, fs, true)
	if err != nil {
		return err
	}
	*g = *r
	return nil
}

// LooksLikeSnapshot reports whether head, the start of a file (or all of it),
// is a MemoBrain snapshot: a JSON object whose "nodes" (at the top, or
// inside a top-level "memory" object) is an object whose first member is an
// object with "node_id" and "kind" (interchange-formats.md §6). It decides
// from what head holds: keys that come before "nodes" or "memory" are
// skipped, and a head cut before the first node's "node_id" and "kind"
// gives false.
func LooksLikeSnapshot(head []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	return sniffGraph(dec, true) == sniffFound
}

// sniff results.
const (
	sniffFail     = iota // not a snapshot, or the head ends first
	sniffFound           // a graph's first node has node_id and kind
	sniffNotGraph        // an object without "nodes", read to its end
)

// sniffGraph reads the members of an object whose '{' was read: the top
// level (where "memory" is looked into) or "memory".
func sniffGraph(dec *json.Decoder, top bool) int {
	for {
		t, err := dec.Token()
		if err != nil {
			return sniffFail
		}
		key, ok := t.(string)
		if !ok { // the closing '}'
			return sniffNotGraph
		}
		switch {
		case key == "nodes":
			if sniffNodes(dec) {
				return sniffFound
			}
			return sniffFail
		case key == "memory" && top:
			t, err := dec.Token()
			if err != nil {
				return sniffFail
			}
			if t != json.Delim('{') {
				if !skipAfter(dec, t) {
					return sniffFail
				}
				continue
			}
			if r := sniffGraph(dec, false); r != sniffNotGraph {
				return r
			}
		default:
			if !skipValue(dec) {
				return sniffFail
			}
		}
	}
}

func sniffNodes(dec *json.Decoder) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	if t, err := dec.Token(); err != nil {
		return false
	} else if _, ok := t.(string); !ok {
		return false
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var id, kind bool
	for {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, ok := t.(string)
		if !ok {
			return false
		}
		id = id || key == "node_id"
		kind = kind || key == "kind"
		if id && kind {
			return true
		}
		if !skipValue(dec) {
			return false
		}
	}
}

func skipValue(dec *json.Decoder) bool {
	t, err := dec.Token()
	if err != nil {
		return false
	}
	return skipAfter(dec, t)
}

// skipAfter skips the rest of the value whose first token t was read.
func skipAfter(dec *json.Decoder, t json.Token) bool {
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec, 1)
	}
	return true
}

// skipRest reads tokens until depth more closing delimiters than opening
// ones have been read.
func skipRest(dec *json.Decoder, depth int) bool {
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return true
}
