package memobrain

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rhizome/backend/pisession/pitest"
)

// interchange-formats.md §3: the example has 9 nodes (1 task, 2 subtasks,
// 6 evidence; all active, no summary), 8 edges forming a tree from node 1,
// turn ids in pairs [0,1] … [14,15], nodes 2 and 3 sharing [2,3].
func TestExampleShape(t *testing.T) {
	s := readExample(t)
	if !s.Wrapped {
		t.Error(`§3: the example is wrapped as {"memory": …}`)
	}
	g := s.Graph
	c := g.Counts()
	if c.Nodes != 9 || c.ByKind[KindTask] != 1 || c.ByKind[KindSubtask] != 2 || c.ByKind[KindEvidence] != 6 || c.ByKind[KindSummary] != 0 {
		t.Errorf("§3: counts %+v, want 9 nodes: 1 task, 2 subtasks, 6 evidence", c)
	}
	if c.Active != 9 || c.Edges != 8 {
		t.Errorf("§3: %d active, %d edges; want 9, 8", c.Active, c.Edges)
	}
	if g.NextID() != 10 {
		t.Errorf("from_dict: next id %d, want max+1 = 10", g.NextID())
	}
	// A tree from node 1: every other node has exactly one parent, and
	// every node is reached from 1.
	parents := map[int]int{}
	for _, e := range g.Edges() {
		parents[e.Dst]++
	}
	for _, n := range g.Nodes() {
		want := 1
		if n.ID == 1 {
			want = 0
		}
		if parents[n.ID] != want {
			t.Errorf("§3: node %d has %d parents, want %d", n.ID, parents[n.ID], want)
		}
		if n.ID != 1 && pathBetween(g.children(), nil, 1, n.ID) == nil {
			t.Errorf("§3: node %d is not reached from node 1", n.ID)
		}
	}
	var pairs [][]int
	for _, n := range g.Nodes() {
		if len(n.TurnIDs) != 2 || n.TurnIDs[1] != n.TurnIDs[0]+1 || n.TurnIDs[0]%2 != 0 {
			t.Errorf("§3: node %d turn ids %v are not a pair [2k, 2k+1]", n.ID, n.TurnIDs)
		}
		pairs = append(pairs, n.TurnIDs)
	}
	if !slices.Equal(pairs[1], []int{2, 3}) || !slices.Equal(pairs[2], []int{2, 3}) || !slices.Equal(pairs[8], []int{14, 15}) {
		t.Errorf("§3: turn ids %v: nodes 2 and 3 share [2,3], the last is [14,15]", pairs)
	}
	n1, _ := g.Node(1)
	if n1.Thought.Form != ThoughtText || !strings.HasPrefix(n1.Thought.Text, TaskPrefix) {
		t.Errorf("§3: the task's thought is a plain string from init_memory, got %+v", n1.Thought)
	}
	for _, n := range g.Nodes()[1:] {
		if n.Thought.Form != ThoughtNotes || len(n.Thought.Notes) != 2 || n.Thought.Notes[0].Role != RoleAssistant || n.Thought.Notes[1].Role != RoleUser {
			t.Errorf("§3: node %d's thought is not two notes, assistant then user: %+v", n.ID, n.Thought)
		}
	}
	for _, e := range g.Edges() {
		want := EdgeSupport
		if e.Src == 1 {
			want = EdgeDecompose
		}
		if e.Kind != want || !e.KindInferred {
			t.Errorf("ERRATA: edge %d->%d kind %q inferred=%v, want %q inferred", e.Src, e.Dst, e.Kind, e.KindInferred, want)
		}
	}
}

// §2 of the issue: a snapshot imported and exported again is equal as JSON,
// unknown fields kept; files save_memory wrote come back byte for byte.
func TestSnapshotRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pythonMade bool // written by Python's json.dump(indent=4, ensure_ascii=False)
		wrapped    bool
	}{
		{"example_snapshot.json", true, true},
		{"example_snapshot_bare.json", true, false},
		{"variants/run_result.json", true, true},
		{"variants/thought_forms.json", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := readFile(t, tc.name)
			s, err := ReadSnapshot(in)
			if err != nil {
				t.Fatal(err)
			}
			if s.Wrapped != tc.wrapped {
				t.Errorf("wrapped = %v, want %v", s.Wrapped, tc.wrapped)
			}
			out := writeSnapshot(t, s)
			if !jsonEqual(t, in, out) {
				t.Errorf("read and written again, the snapshot is not equal as JSON:\n%s", out)
			}
			if tc.pythonMade && !bytes.Equal(in, out) {
				t.Errorf("a file save_memory wrote does not come back byte for byte:\n%s", out)
			}
			again, err := ReadSnapshot(out)
			if err != nil {
				t.Fatal(err)
			}
			if out2 := writeSnapshot(t, again); !bytes.Equal(out, out2) {
				t.Error("writing is not stable: a written snapshot read and written again changes")
			}
		})
	}
}

// interchange-formats.md §3: thought as a string, a note list or a
// JSON-encoded string; active as true, false or "Flushed"; and whatever else
// a snapshot may hold.
func TestSnapshotVariants(t *testing.T) {
	s, err := ReadSnapshot(readFile(t, "variants/thought_forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := s.Graph
	node := func(id int) ReasoningNode {
		n, ok := g.Node(id)
		if !ok {
			t.Fatalf("no node %d", id)
		}
		return n
	}
	for _, tc := range []struct {
		id     int
		form   ThoughtForm
		notes  int
		active Active
	}{
		{1, ThoughtText, 0, Live}, {2, ThoughtNotes, 2, Live}, {3, ThoughtNotes, 2, Flushed},
		{4, ThoughtNotes, 2, Folded}, {6, ThoughtEncodedNotes, 2, Live}, {7, ThoughtOther, 0, Live},
		{8, ThoughtOther, 0, Live}, {9, ThoughtOther, 0, Live},
	} {
		n := node(tc.id)
		if n.Thought.Form != tc.form || len(n.Thought.Notes) != tc.notes || n.Active != tc.active {
			t.Errorf("§3: node %d: form %d with %d notes, %v; want form %d, %d notes, %v", tc.id, n.Thought.Form, len(n.Thought.Notes), n.Active, tc.form, tc.notes, tc.active)
		}
	}
	n2 := node(2)
	if r := n2.Thought.Notes[0].Role; r != "Agent_Analyst" || r.Standard() {
		t.Errorf("data model, Custom Roles: role %q standard=%v", r, r.Standard())
	}
	if !node(3).Thought.Notes[1].Role.Standard() {
		t.Error("data model, Standard Roles: user is standard")
	}
	n6 := node(6)
	if n6.Thought.Notes[1].Content != "ARC p99 35 ms beats none (90 ms); café." {
		t.Errorf("§3: the encoded notes decode to %q", n6.Thought.Notes[1].Content)
	}
	if n := node(8); len(n.TurnIDs) != 0 || n.Active != Live {
		t.Errorf("from_dict defaults: related_turn_ids [] and active true, got %v %v", n.TurnIDs, n.Active)
	}
	if n := node(9); n.Kind != "hypothesis" {
		t.Errorf("an unknown kind is kept, got %q", n.Kind)
	}
	if g.NextID() != 10 {
		t.Errorf("next id %d, want 10", g.NextID())
	}
	edges := g.Edges()
	if e := edges[1]; e.Src != 2 || e.Dst != 3 || e.Kind != EdgeSupport {
		t.Errorf(`an edge {"src": "2", "dst": "3"} reads as %+v`, e)
	}
	if e := edges[2]; e.Kind != EdgeSupport || e.KindInferred {
		t.Errorf("a written kind is kept, not inferred: %+v", e)
	}
	if e := edges[3]; e.Rationale != "" || e.Kind != EdgeSupport {
		t.Errorf("an edge without rationale: %+v", e)
	}
	if e := edges[5]; e.Kind != "cites" || e.KindInferred {
		t.Errorf("an unknown written kind is kept: %+v", e)
	}

	// An operation changes only what it changes: unknown keys everywhere
	// stay, a node without "active" gains one only when it stops being
	// active, an edge's other keys stay.
	if _, err := g.Flush(FlushOp{ID: 8}); err != nil {
		t.Fatal(err)
	}
	out := string(writeSnapshot(t, s))
	for _, want := range []string{`"created_by": "init_memory"`, `"confidence": 0.80`, `"weights": [`, `1e3`, `-0.0`, `1.50`,
		`"version": "rhizome-test"`, `"weight": 0.5`, `"rationale": null`, `"kind": "cites"`, `"09": {`,
		`"src": "2"`, `"content": "one note, not in a list"`} {
		if !strings.Contains(out, want) {
			t.Errorf("after a flush, the snapshot lost %s:\n%s", want, out)
		}
	}
	if !strings.Contains(out, `"content": "one note, not in a list"
            },
            "active": "Flushed"`) {
		t.Errorf("the flushed node 8 did not gain \"active\": \"Flushed\":\n%s", out)
	}
	if strings.Count(out, `"active"`) != 8 {
		t.Errorf("%d active keys, want 8 (7 written, node 8 gained one, node 2 has none and stays active)", strings.Count(out, `"active"`))
	}
}

func TestReadSnapshotErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "line 1, column 1"},
		{"{\n\"nodes\": {,}}", "line 2, column 11"},
		{`[]`, "it is an array, not an object {nodes, edges}"},
		{`{"edges": []}`, `neither "nodes" nor "memory"`},
		{`{"memory": []}`, `"memory" is an array`},
		{`{"nodes": {}, "edges": []}`, `"nodes" is empty`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}}`, `no "edges"`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": {}}`, `"edges" is an object, not a list`},
		{"{\"nodes\": {\n\"1\": {\"node_id\": 2, \"kind\": \"task\", \"thought\": \"t\"}}, \"edges\": []}", `line 2: node "1": its key is not its node_id 2`},
		{`{"nodes": {"1": {"node_id": "1", "kind": "task", "thought": "t"}}, "edges": []}`, `node_id is "1" (a string), not an integer`},
		{`{"nodes": {"1": {"node_id": 1.0, "kind": "task", "thought": "t"}}, "edges": []}`, `node_id is 1.0, not an integer`},
		{`{"nodes": {"1": {"node_id": 1, "thought": "t"}}, "edges": []}`, `"kind" is missing`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task"}}, "edges": []}`, `"thought" is missing`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t", "active": "maybe"}}, "edges": []}`, `active "maybe" is neither true, false nor "Flushed"`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t", "related_turn_ids": [0, "1"]}}, "edges": []}`, `related_turn_ids[1] is "1" (a string), not an integer`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t", "related_turn_ids": [9007199254740992]}}, "edges": []}`, `out of range`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}, "01": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": []}`, `node_id 1 is also node "1"'s`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t", "kind": "x"}}, "edges": []}`, `key "kind" appears twice`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": [{"src": 1, "dst": 2}]}`, `edges[0]: dst 2 is not a node of the graph`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": [{"src": "one", "dst": 1}]}`, `edges[0]: src is "one", not a node id`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": [{"dst": 1}]}`, `edges[0]: "src" is missing`},
		{`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": [{"src": 1, "dst": 1, "rationale": 3}]}`, `rationale is a number, not a string`},
	} {
		_, err := ReadSnapshot([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "memobrain: ") {
			t.Errorf("ReadSnapshot(%s)\n error %v\n want it to say %q", tc.in, err, tc.want)
		}
	}
}

// interchange-formats.md §6: MemoBrain is detected by content, bare or under
// "memory", from the head of a file.
func TestLooksLikeSnapshot(t *testing.T) {
	example := readFile(t, "example_snapshot.json")
	for _, tc := range []struct {
		name string
		head []byte
		want bool
	}{
		{"wrapped example", example, true},
		{"bare example", readFile(t, "example_snapshot_bare.json"), true},
		{"run result, memory after the messages", readFile(t, "variants/run_result.json"), true},
		{"variants", readFile(t, "variants/thought_forms.json"), true},
		{"first 200 bytes of the example", example[:200], true},
		{"cut before the first node's kind", example[:90], false},
		{"BOM and compact", []byte("\xef\xbb\xbf{\"nodes\":{\"1\":{\"node_id\":1,\"kind\":\"task\""), true},
		{"memory not an object, nodes later", []byte(`{"memory": 3, "nodes": {"1": {"kind": "task", "node_id": 1}}}`), true},
		{"messages only", readFile(t, "example_messages.json"), false},
		{"a loomsidian export", []byte(`{"current": "a", "nodes": {"a": {"text": "x", "parentId": null}}}`), false},
		{"MiniLoom", []byte(`{"loomTree": {"nodeStore": {"1": {"id": "1", "type": "root"}}}}`), false},
		{"ccmemory", []byte(`{"nodes": [{"id": "decision-1", "type": "Decision"}], "edges": []}`), false},
		{"empty", nil, false},
		{"not JSON", []byte("# notes\n"), false},
	} {
		if got := LooksLikeSnapshot(tc.head); got != tc.want {
			t.Errorf("%s: LooksLikeSnapshot = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Real files of other formats Rhizome reads.
	for _, path := range []string{"../loom/testdata/socketteer-lighthouse.json", "../loom/testdata/socketteer-lighthouse.rhizome.json",
		pitest.Sample("session-with-compaction.jsonl")} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if LooksLikeSnapshot(b[:min(len(b), 64<<10)]) {
			t.Errorf("%s is taken for a MemoBrain snapshot", filepath.Base(path))
		}
	}
}

// A wrapped run result carries the conversation beside the memory.
func TestSnapshotMessages(t *testing.T) {
	s, err := ReadSnapshot(readFile(t, "variants/run_result.json"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 16 || msgs[0].Role != "system" || msgs[15].Role != "user" {
		t.Errorf("%d messages from the run result", len(msgs))
	}
	if m, _ := readExample(t).Messages(); m != nil {
		t.Error("the example has no messages")
	}
}

func TestLooksLikeSnapshotMemoryFirst(t *testing.T) {
	data := []byte(`{"memory": {"note": "not the graph"}, "nodes": {"1": {"node_id": 1, "kind": "task", "thought": "t"}}, "edges": []}`)
	if _, err := ReadSnapshot(data); err != nil {
		t.Fatal(err)
	}
	if !LooksLikeSnapshot(data) {
		t.Error("a bare snapshot with an unrelated \"memory\" object first is not detected")
	}
}
