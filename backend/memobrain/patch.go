package memobrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NodeRef is the src or dst of an AddEdgeOp exactly as the model wrote it: a
// JSON number or string, to be read as MemoBrain's apply_patch reads it (see
// Graph.ApplyPatch).
type NodeRef struct {
	raw json.RawMessage
}

// IDRef refers to an existing node by id.
func IDRef(id int) NodeRef { return NodeRef{raw: strconv.AppendInt(nil, int64(id), 10)} }

// TmpRef refers to a node of the same patch by its tmp id.
func TmpRef(tmp string) NodeRef { return NodeRef{raw: appendJSONString(nil, tmp, false)} }

// String is the reference as written in JSON: 3 or "tmp1".
func (r NodeRef) String() string { return string(r.raw) }

// text is Python's str() of the value: what apply_patch looks up.
func (r NodeRef) text() string { return pyStr(r.raw) }

// MarshalJSON writes the reference as it was written.
func (r NodeRef) MarshalJSON() ([]byte, error) {
	if r.raw == nil {
		return []byte(`""`), nil
	}
	return r.raw, nil
}

// UnmarshalJSON accepts a JSON number or string (MemoBrain's prompt has the
// model write existing ids as numbers and tmp ids as strings).
func (r *NodeRef) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if len(b) == 0 || !json.Valid(b) || (b[0] != '"' && b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return fmt.Errorf("is %s, not a node id or a tmp id", jsonKind(b))
	}
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

// AddNodeOp adds one node. See memobrain-data-model.md, "AddNodeOp".
type AddNodeOp struct {
	// TmpID names the node within its patch ("tmp1"); the node gets the
	// next sequential id.
	TmpID string `json:"tmp_id"`
	// Kind is KindSubtask or KindEvidence: a patch never makes a task or a
	// summary.
	Kind    NodeKind `json:"kind"`
	Thought Notes    `json:"thought"`
}

// AddEdgeOp adds one edge. See memobrain-data-model.md, "AddEdgeOp".
type AddEdgeOp struct {
	Src       NodeRef `json:"src"`
	Dst       NodeRef `json:"dst"`
	Rationale string  `json:"rationale"`
}

// MemoryPatch is what MemoBrain's model writes after each turn: nodes to add
// and edges to add. See memobrain-data-model.md, "MemoryPatch", and
// interchange-formats.md §3. A patch read by ReadPatch keeps the JSON it was
// read from (the step's input in the log).
type MemoryPatch struct {
	AddNodes []AddNodeOp `json:"add_nodes"`
	AddEdges []AddEdgeOp `json:"add_edges"`

	raw json.RawMessage
}

// FlushOp marks one node flushed. Rationale is the model's reason; MemoBrain
// does not use it, the log keeps it. See memobrain-data-model.md, "FlushOp".
type FlushOp struct {
	ID        int    `json:"id"`
	Rationale string `json:"rationale"`

	raw json.RawMessage
}

// FoldOp folds nodes into one summary node made of Notes; edges into the
// folded nodes are re-routed to the summary with Rationale. See
// memobrain-data-model.md, "FoldOp", and Graph.Fold.
type FoldOp struct {
	IDs       []int  `json:"ids"`
	Notes     Notes  `json:"notes"`
	Rationale string `json:"rationale"`

	raw json.RawMessage
}

// FlushAndFoldOp is what MemoBrain's model writes when asked to compress the
// graph (recall): flushes, then folds. See memobrain-data-model.md,
// "FlushAndFoldOp".
type FlushAndFoldOp struct {
	FlushOps []FlushOp `json:"flush_ops"`
	FoldOps  []FoldOp  `json:"fold_ops"`

	raw json.RawMessage
}

// ReadPatch reads a memory patch: a file, pasted text, or the model's reply
// as it came (see replyJSON for what surrounds the JSON that is accepted).
// It checks the schema MemoBrain's prompt states: an object with the lists
// "add_nodes" and "add_edges" (both required, as apply_patch reads both);
// each node a non-empty, unique "tmp_id", a "kind" of "subtask" or
// "evidence", a "thought" list of {role, content} notes; each edge a "src"
// and a "dst" (number or string) and an optional string "rationale". Other
// keys are ignored (and kept in the JSON the log records). Whether the ids
// exist and the edges make no cycle is checked when the patch is applied.
//
// Errors name the op: `memobrain: patch add_nodes[1] (add_node): kind
// "summary" is not "subtask" or "evidence"`.
func ReadPatch(data []byte) (MemoryPatch, error) {
	body, err := replyJSON(data)
	if err != nil {
		return MemoryPatch{}, fmt.Errorf("memobrain: unable to read a memory patch: %w", err)
	}
	return readPatch(body)
}

// readPatch reads a patch from valid JSON (see ReadPatch).
func readPatch(body json.RawMessage) (MemoryPatch, error) {
	top, err := readObject(body, "a memory patch {add_nodes, add_edges}")
	if err != nil {
		return MemoryPatch{}, fmt.Errorf("memobrain: unable to read a memory patch: %w", err)
	}
	p := MemoryPatch{raw: body}
	nodes, err := requiredList(top, "add_nodes")
	if err != nil {
		return MemoryPatch{}, fmt.Errorf("memobrain: patch: %w", err)
	}
	edges, err := requiredList(top, "add_edges")
	if err != nil {
		return MemoryPatch{}, fmt.Errorf("memobrain: patch: %w", err)
	}
	seen := map[string]int{}
	for i, e := range nodes {
		op, err := readAddNode(e.value)
		if err == nil {
			if j, dup := seen[op.TmpID]; dup {
				err = fmt.Errorf("tmp_id %q is also the tmp_id of add_nodes[%d]", op.TmpID, j)
			}
		}
		if err != nil {
			return MemoryPatch{}, fmt.Errorf("memobrain: patch add_nodes[%d] (add_node): %w", i, err)
		}
		seen[op.TmpID] = i
		p.AddNodes = append(p.AddNodes, op)
	}
	for i, e := range edges {
		op, err := readAddEdge(e.value)
		if err != nil {
			return MemoryPatch{}, fmt.Errorf("memobrain: patch add_edges[%d] (add_edge): %w", i, err)
		}
		p.AddEdges = append(p.AddEdges, op)
	}
	return p, nil
}

func readAddNode(raw json.RawMessage) (AddNodeOp, error) {
	m, err := readObject(raw, "an object {tmp_id, kind, thought}")
	if err != nil {
		return AddNodeOp{}, err
	}
	var op AddNodeOp
	if op.TmpID, err = requiredString(m, "tmp_id"); err != nil {
		return op, err
	}
	if op.TmpID == "" {
		return op, errors.New("tmp_id is empty")
	}
	kind, err := requiredString(m, "kind")
	if err != nil {
		return op, err
	}
	op.Kind = NodeKind(kind)
	if op.Kind != KindSubtask && op.Kind != KindEvidence {
		return op, fmt.Errorf(`kind %q is not "subtask" or "evidence" (a patch never makes a task or a summary)`, kind)
	}
	th, ok := m["thought"]
	if !ok {
		return op, errors.New(`"thought" is missing`)
	}
	if op.Thought, err = readNotes(th.value); err != nil {
		return op, fmt.Errorf("thought%w", err)
	}
	return op, nil
}

func readAddEdge(raw json.RawMessage) (AddEdgeOp, error) {
	m, err := readObject(raw, "an object {src, dst, rationale}")
	if err != nil {
		return AddEdgeOp{}, err
	}
	var op AddEdgeOp
	for _, ref := range []struct {
		key string
		to  *NodeRef
	}{{"src", &op.Src}, {"dst", &op.Dst}} {
		f, ok := m[ref.key]
		if !ok {
			return op, fmt.Errorf("%q is missing", ref.key)
		}
		if err := ref.to.UnmarshalJSON(f.value); err != nil {
			return op, fmt.Errorf("%s %w", ref.key, err)
		}
	}
	op.Rationale, err = optionalString(m, "rationale")
	return op, err
}

// ReadFlushAndFold reads the model's reply to MemoBrain's flush-and-fold
// prompt (a file, pasted text or the reply as it came; see replyJSON). It
// checks the schema: an object with the lists "flush_ops" and "fold_ops"
// (both required, as recall() reads both); each flush an integer "id" and an
// optional string "rationale"; each fold a non-empty list of integer "ids",
// a "notes" list of {role, content} notes and a "rationale" (required, as
// recall() reads it; null is read as ""). Other keys are ignored. Whether the
// nodes exist and are active is checked when it is applied.
//
// Errors name the op: `memobrain: fold_ops[0] (fold): ids[2] is "7", not an
// integer`.
func ReadFlushAndFold(data []byte) (FlushAndFoldOp, error) {
	body, err := replyJSON(data)
	if err != nil {
		return FlushAndFoldOp{}, fmt.Errorf("memobrain: unable to read flush and fold operations: %w", err)
	}
	top, err := readObject(body, "an object {flush_ops, fold_ops}")
	if err != nil {
		return FlushAndFoldOp{}, fmt.Errorf("memobrain: unable to read flush and fold operations: %w", err)
	}
	f := FlushAndFoldOp{raw: body}
	flushes, err := requiredList(top, "flush_ops")
	if err != nil {
		return FlushAndFoldOp{}, fmt.Errorf("memobrain: flush and fold: %w", err)
	}
	folds, err := requiredList(top, "fold_ops")
	if err != nil {
		return FlushAndFoldOp{}, fmt.Errorf("memobrain: flush and fold: %w", err)
	}
	for i, e := range flushes {
		op, err := readFlushOp(e.value)
		if err != nil {
			return FlushAndFoldOp{}, fmt.Errorf("memobrain: flush_ops[%d] (flush): %w", i, err)
		}
		f.FlushOps = append(f.FlushOps, op)
	}
	for i, e := range folds {
		op, err := readFoldOp(e.value)
		if err != nil {
			return FlushAndFoldOp{}, fmt.Errorf("memobrain: fold_ops[%d] (fold): %w", i, err)
		}
		f.FoldOps = append(f.FoldOps, op)
	}
	return f, nil
}

func readFlushOp(raw json.RawMessage) (FlushOp, error) {
	m, err := readObject(raw, "an object {id, rationale}")
	if err != nil {
		return FlushOp{}, err
	}
	op := FlushOp{raw: trimJSONSpace(raw)}
	f, ok := m["id"]
	if !ok {
		return op, errors.New(`"id" is missing`)
	}
	if op.ID, err = readInt(f.value); err != nil {
		return op, fmt.Errorf("id %w", err)
	}
	op.Rationale, err = optionalString(m, "rationale")
	return op, err
}

func readFoldOp(raw json.RawMessage) (FoldOp, error) {
	m, err := readObject(raw, "an object {ids, rationale, notes}")
	if err != nil {
		return FoldOp{}, err
	}
	op := FoldOp{raw: trimJSONSpace(raw)}
	ids, err := requiredList(m, "ids")
	if err != nil {
		return op, err
	}
	if len(ids) == 0 {
		return op, errors.New("ids is empty")
	}
	for k, e := range ids {
		id, err := readInt(e.value)
		if err != nil {
			return op, fmt.Errorf("ids[%d] %w", k, err)
		}
		op.IDs = append(op.IDs, id)
	}
	nf, ok := m["notes"]
	if !ok {
		return op, errors.New(`"notes" is missing`)
	}
	if op.Notes, err = readNotes(nf.value); err != nil {
		return op, fmt.Errorf("notes%w", err)
	}
	if _, ok := m["rationale"]; !ok {
		return op, errors.New(`"rationale" is missing`)
	}
	op.Rationale, err = optionalString(m, "rationale")
	return op, err
}

// input is the JSON the log records for the patch: as it was read, or made
// from its fields when it was built in Go or changed since.
func (p MemoryPatch) input() json.RawMessage {
	if p.raw != nil {
		if q, err := ReadPatch(p.raw); err == nil && reflect.DeepEqual(q, p) {
			return p.raw
		}
	}
	b := []byte(`{"add_nodes":[`)
	for i, n := range p.AddNodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, `{"tmp_id":`...), n.TmpID, false)
		b = appendJSONString(append(b, `,"kind":`...), string(n.Kind), false)
		b = append(appendNotes(append(b, `,"thought":`...), n.Thought), '}')
	}
	b = append(b, `],"add_edges":[`...)
	for i, e := range p.AddEdges {
		if i > 0 {
			b = append(b, ',')
		}
		src, _ := e.Src.MarshalJSON()
		dst, _ := e.Dst.MarshalJSON()
		b = append(append(b, `{"src":`...), src...)
		b = append(append(b, `,"dst":`...), dst...)
		b = append(appendJSONString(append(b, `,"rationale":`...), e.Rationale, false), '}')
	}
	return append(b, "]}"...)
}

// MarshalJSON writes the patch as it was read, or from its fields.
func (p MemoryPatch) MarshalJSON() ([]byte, error) { return p.input(), nil }

func (op FlushOp) input() json.RawMessage {
	if op.raw != nil {
		if q, err := readFlushOp(op.raw); err == nil && reflect.DeepEqual(q, op) {
			return op.raw
		}
	}
	b := strconv.AppendInt([]byte(`{"id":`), int64(op.ID), 10)
	return append(appendJSONString(append(b, `,"rationale":`...), op.Rationale, false), '}')
}

// MarshalJSON writes the flush as it was read, or from its fields.
func (op FlushOp) MarshalJSON() ([]byte, error) { return op.input(), nil }

func (op FoldOp) input() json.RawMessage {
	if op.raw != nil {
		if q, err := readFoldOp(op.raw); err == nil && reflect.DeepEqual(q, op) {
			return op.raw
		}
	}
	b := []byte(`{"ids":[`)
	for i, id := range op.IDs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	b = appendJSONString(append(b, `],"rationale":`...), op.Rationale, false)
	return append(appendNotes(append(b, `,"notes":`...), op.Notes), '}')
}

// MarshalJSON writes the fold as it was read, or from its fields.
func (op FoldOp) MarshalJSON() ([]byte, error) { return op.input(), nil }

// MarshalJSON writes the operations as they were read, or from their
// fields.
func (f FlushAndFoldOp) MarshalJSON() ([]byte, error) {
	if f.raw != nil {
		if q, err := ReadFlushAndFold(f.raw); err == nil && reflect.DeepEqual(q, f) {
			return f.raw, nil
		}
	}
	b := []byte(`{"flush_ops":[`)
	for i, op := range f.FlushOps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, op.input()...)
	}
	b = append(b, `],"fold_ops":[`...)
	for i, op := range f.FoldOps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, op.input()...)
	}
	return append(b, "]}"...), nil
}

// replyJSON extracts the JSON object from a model's reply or a pasted text,
// compacted: surrounding white space, a UTF-8 byte-order mark, a leading
// <think>…</think> block (reasoning models such as the Qwen3 MemoBrain is
// trained from write one) and a Markdown code fence (```json … ```) are
// removed; anything else around the JSON is an error, with its line and
// column in the text as given.
func replyJSON(data []byte) (json.RawMessage, error) {
	start, end := 0, len(data)
	skip := func() {
		for start < end && strings.IndexByte(" \t\r\n", data[start]) >= 0 {
			start++
		}
		for end > start && strings.IndexByte(" \t\r\n", data[end-1]) >= 0 {
			end--
		}
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	skip()
	if bytes.HasPrefix(data[start:end], []byte("<think>")) {
		i := bytes.Index(data[start:end], []byte("</think>"))
		if i < 0 {
			return nil, errors.New("the reply's <think> block is not closed")
		}
		start += i + len("</think>")
		skip()
	}
	if bytes.HasPrefix(data[start:end], []byte("```")) {
		nl := bytes.IndexByte(data[start:end], '\n')
		if nl < 0 {
			return nil, errors.New("the reply is a code fence with nothing in it")
		}
		lang := strings.TrimSpace(string(data[start+3 : start+nl]))
		if lang != "" && !strings.EqualFold(lang, "json") {
			return nil, fmt.Errorf("the reply's code fence is %q, not json", lang)
		}
		start += nl + 1
		if bytes.HasSuffix(data[start:end], []byte("```")) {
			end -= 3
		}
		skip()
	}
	body := data[start:end]
	if len(body) == 0 {
		return nil, errors.New("there is no JSON")
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := start + int(se.Offset)
			if off > start {
				off--
			}
			col := off - bytes.LastIndexByte(data[:off], '\n')
			return nil, fmt.Errorf("line %d, column %d: %s", lineOf(data, off), col, se.Error())
		}
		return nil, syntaxError(body)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, body); err != nil {
		return nil, err
	}
	return c.Bytes(), nil
}

// readObject splits raw into its members by key; what names what raw should
// have been, for the error.
func readObject(raw json.RawMessage, what string) (map[string]field, error) {
	fs, err := objectFields(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("it is %s, not %s", jsonKind(raw), what)
	}
	m, dup := fieldsByKey(fs)
	if dup != "" {
		return nil, fmt.Errorf("key %q appears twice", dup)
	}
	return m, nil
}

func requiredList(m map[string]field, key string) ([]element, error) {
	f, ok := m[key]
	if !ok {
		return nil, fmt.Errorf("%q is missing (write [] for none)", key)
	}
	es, err := arrayElements(f.value, f.off)
	if err != nil {
		return nil, fmt.Errorf("%s is %s, not a list", key, jsonKind(f.value))
	}
	return es, nil
}

func requiredString(m map[string]field, key string) (string, error) {
	f, ok := m[key]
	if !ok {
		return "", fmt.Errorf("%q is missing", key)
	}
	s, ok := decodeString(f.value)
	if !ok {
		return "", fmt.Errorf("%s is %s, not a string", key, jsonKind(f.value))
	}
	return s, nil
}

// optionalString reads a string member; missing or null is "".
func optionalString(m map[string]field, key string) (string, error) {
	f, ok := m[key]
	if !ok || isNull(f.value) {
		return "", nil
	}
	return requiredString(m, key)
}

// readInt reads a JSON integer (no fraction, no exponent) of at most MaxID
// in size.
func readInt(raw json.RawMessage) (int, error) {
	raw = trimJSONSpace(raw)
	s := string(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, fmt.Errorf("is %s (%s), not an integer", clip(s), jsonKind(raw))
	}
	if strings.ContainsAny(s, ".eE") {
		return 0, fmt.Errorf("is %s, not an integer", clip(s))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > MaxID || n < -MaxID {
		return 0, fmt.Errorf("is %s, out of range", clip(s))
	}
	return int(n), nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:max] + "…"
}

// UnmarshalJSON reads a patch as ReadPatch does.
func (p *MemoryPatch) UnmarshalJSON(b []byte) error {
	q, err := ReadPatch(b)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// UnmarshalJSON reads the operations as ReadFlushAndFold does.
func (f *FlushAndFoldOp) UnmarshalJSON(b []byte) error {
	q, err := ReadFlushAndFold(b)
	if err != nil {
		return err
	}
	*f = q
	return nil
}

// UnmarshalJSON reads one flush as ReadFlushAndFold reads each.
func (op *FlushOp) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if !json.Valid(b) {
		return errors.New("memobrain: a flush is not valid JSON")
	}
	q, err := readFlushOp(append(json.RawMessage(nil), b...))
	if err != nil {
		return fmt.Errorf("memobrain: flush: %w", err)
	}
	*op = q
	return nil
}

// UnmarshalJSON reads one fold as ReadFlushAndFold reads each.
func (op *FoldOp) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if !json.Valid(b) {
		return errors.New("memobrain: a fold is not valid JSON")
	}
	q, err := readFoldOp(append(json.RawMessage(nil), b...))
	if err != nil {
		return fmt.Errorf("memobrain: fold: %w", err)
	}
	*op = q
	return nil
}
