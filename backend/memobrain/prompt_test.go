package memobrain

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// afterRecall is the example after a turn, a flush, a fold and an isolated
// node: every case PrettyPrint and Organize handle.
func afterRecall(t testing.TB) *Graph {
	t.Helper()
	g := buildExample(t)
	if _, err := g.ApplyFlushAndFold(mustFlushAndFold(t, `{"flush_ops": [{"id": 6, "rationale": "repeats node 5"}],
	  "fold_ops": [{"ids": [3, 7, 8], "rationale": "birth year and works are settled", "notes": [{"role": "assistant", "content": "Looked up Chipperfield's biography and the office's museums."}, {"role": "user", "content": "Born 1953 in London; the office restored the Neues Museum (Berlin, 2009) — 'Zürich' too."}]}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ApplyPatch(mustPatch(t, `{"add_nodes": [{"tmp_id": "a", "kind": "evidence", "thought": [{"role": "assistant", "content": "answer"}, {"role": "user", "content": "no tool was called"}]}], "add_edges": []}`), []int{16, 17}); err != nil {
		t.Fatal(err)
	}
	return g
}

// PrettyPrint is MemoBrain's pretty_print, line for line: the golden files
// were checked against the output of MemoBrain's own problem_tree.py for the
// same snapshots.
func TestPrettyPrint(t *testing.T) {
	golden(t, "pretty_example.txt", []byte(PrettyPrint(readExample(t).Graph)))
	golden(t, "pretty_after_recall.txt", []byte(PrettyPrint(afterRecall(t))))
	if got := PrettyPrint(NewGraph()); got != "No roots (possibly empty graph)" {
		t.Errorf("empty graph: %q", got)
	}
	out := PrettyPrint(afterRecall(t))
	for _, want := range []string{"- Node 6: [evidence] [Flushed] [{'role': 'assistant', ", "\n- Node 11: [evidence] [Active] "} {
		if !strings.Contains(out, want) {
			t.Errorf("pretty_print shows %q", want)
		}
	}
	// Nodes no root reaches (a cycle a snapshot may hold) are listed apart.
	s, err := ReadSnapshot([]byte(`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "Begin"},
	  "2": {"node_id": 2, "kind": "subtask", "thought": [{"role": "user", "content": "a"}]},
	  "3": {"node_id": 3, "kind": "subtask", "thought": "b", "active": "Flushed"},
	  "4": {"node_id": 4, "kind": "evidence", "thought": "c", "active": false}},
	  "edges": [{"src": 2, "dst": 3}, {"src": 3, "dst": 2, "rationale": null}, {"src": 1, "dst": 4}]}`))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "pretty_cycle.txt", []byte(PrettyPrint(s.Graph)))
	if strings.Contains(out, "Node 7:") {
		t.Error("a folded node is shown")
	}
}

// The prompts carry what MemoBrain's carry (interchange-formats.md §3).
func TestPrompts(t *testing.T) {
	msgs, err := ReadMessages(readFile(t, "example_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := readExample(t).Graph
	pairs := Pairs(msgs, 14)
	if len(pairs) != 1 {
		t.Fatalf("%d pairs from turn 14", len(pairs))
	}
	p := PatchPrompt(g, pairs[0])
	if p.System != MemoryPatchInstructions {
		t.Error("the patch prompt's system message")
	}
	golden(t, "patch_prompt_user.txt", []byte(p.User))
	if !strings.HasPrefix(p.User, `CURRENT_INTERACTION:
[{"role": "assistant", "content": "Confirm the Neues Museum.\n<tool_call>{\"name\": \"visit\", \"arguments\": {\"url\": [\"https://davidchipperfield.com/projects/neues-museum\"]}}</tool_call>"}, {"role": "user", "content": "<tool_response>\nNeues Museum, Berlin. Reopened 2009. Mies van der Rohe Award 2011.\n</tool_response>"}]

- Node 1: [task] [Active] Begin to solve the task: `) {
		t.Errorf("§3: CURRENT_INTERACTION, the pair as json.dumps writes it, a blank line, the graph:\n%s", p.User)
	}
	r := RecallPrompt(g)
	if r.System != FlushAndFoldInstructions || r.User != "CURRENT_GRAPH:\n"+PrettyPrint(g) {
		t.Errorf("§3: the flush-and-fold prompt: %+v", r)
	}
	for _, want := range []string{`"add_nodes"`, `"add_edges"`, `"tmp_id"`, `"subtask" or "evidence"`, "never create one", "Never create a cycle", "nothing else"} {
		if !strings.Contains(MemoryPatchInstructions, want) {
			t.Errorf("the memory-patch prompt does not say %s", want)
		}
	}
	for _, want := range []string{`"flush_ops"`, `"fold_ops"`, `"ids"`, `"notes"`, "Only Active nodes", "at most one operation", "nothing else"} {
		if !strings.Contains(FlushAndFoldInstructions, want) {
			t.Errorf("the flush-and-fold prompt does not say %s", want)
		}
	}
	// The example replies in the prompts are what the readers accept.
	for _, prompt := range []string{MemoryPatchInstructions, FlushAndFoldInstructions} {
		i := strings.Index(prompt, "for example:\n")
		j := strings.Index(prompt, "\n}\n") + 2
		example := prompt[i+len("for example:\n") : j]
		var err error
		if prompt == MemoryPatchInstructions {
			_, err = ReadPatch([]byte(example))
		} else {
			_, err = ReadFlushAndFold([]byte(example))
		}
		if err != nil {
			t.Errorf("the prompt's own example is refused: %v\n%s", err, example)
		}
	}
}

// Organize is MemoBrain's _organize: the golden file was checked against
// MemoBrain's own code for the same graph and messages.
func TestOrganize(t *testing.T) {
	msgs, err := ReadMessages(readFile(t, "example_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := afterRecall(t)
	out, err := Organize(g, msgs)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "organize_after_recall.json", indentJSON(t, out))
	// ERRATA: a flushed node's turns are replaced by its compact notes.
	n6, _ := g.Node(6)
	var notes []string
	for _, n := range n6.Thought.Notes {
		b, _ := n.MarshalJSON()
		notes = append(notes, string(b))
	}
	var all []string
	for _, m := range out {
		all = append(all, string(m))
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, notes[0]) || !strings.Contains(joined, notes[1]) || strings.Contains(joined, "Check the competition.") {
		t.Error("ERRATA: the flushed node 6's turns 8 and 9 are not replaced by its notes")
	}
	// The fold's summary takes the place of its unprotected turns (10, 11),
	// at its last turn, 13; with 16 messages that turn is among the last
	// four, protected, so MemoBrain inserts no summary at all.
	if strings.Contains(joined, "Now the birth year.") || !strings.Contains(joined, "Other museums by the office.") || strings.Contains(joined, "Looked up Chipperfield's biography") {
		t.Error("the folded turns 10 and 11 are not removed, or the summary is inserted at a protected turn")
	}
	// The first three and last four messages are kept.
	for _, i := range []int{0, 1, 2, 12, 13, 14, 15} {
		b, _ := msgs[i].MarshalJSON()
		if !bytes.Contains([]byte(joined), b) {
			t.Errorf("protected message %d is gone", i)
		}
	}
	// Two turns more, and turn 13 is no longer protected: the summary
	// stands there instead.
	long := append(slices.Clone(msgs), Message{Role: "assistant", Content: "Answer."}, Message{Role: "user", Content: "ok"},
		Message{Role: "assistant", Content: "Done."}, Message{Role: "user", Content: "bye"})
	out, err = Organize(g, long)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "organize_after_recall_long.json", indentJSON(t, out))
	if len(out) != 20-5+2 || !strings.Contains(string(out[9]), "Looked up Chipperfield's biography") {
		t.Errorf("%d messages; the summary's notes are not at turn 13", len(out))
	}
	// A summary whose thought is not notes: MemoBrain raises.
	s, err := ReadSnapshot([]byte(`{"nodes": {"1": {"node_id": 1, "kind": "summary", "related_turn_ids": [5], "thought": "plain text"}}, "edges": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Organize(s.Graph, msgs); err == nil {
		t.Error("a summary with a plain-text thought")
	}
}

func TestMessages(t *testing.T) {
	msgs, err := ReadMessages(readFile(t, "example_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 16 || msgs[0].Role != "system" || msgs[1].Role != "user" || msgs[2].Role != "assistant" {
		t.Fatalf("%d messages", len(msgs))
	}
	// memorize groups user/assistant messages in pairs from start.
	if p := Pairs(msgs, 2); len(p) != 7 || p[0][0].Role != "assistant" || p[6][1].Role != "user" {
		t.Errorf("pairs from 2: %d", len(p))
	}
	if p := Pairs(msgs, 0); len(p) != 7 || p[0][0].Role != "user" || p[0][1].Role != "assistant" {
		t.Errorf("pairs from 0 skip the system message: %d", len(p))
	}
	if p := Pairs(msgs, -2); len(p) != 1 || p[0][0].Content != msgs[14].Content {
		t.Error("a negative start counts from the end, as Python slicing")
	}
	if p := Pairs(msgs, 99); p != nil {
		t.Error("a start past the end")
	}
	// Linking turns to nodes: every turn of the example has its nodes.
	links, beyond := LinkTurns(readExample(t).Graph, msgs)
	if len(links) != 16 || len(beyond) != 0 {
		t.Fatalf("%d links, beyond %v", len(links), beyond)
	}
	if got := links[3].Nodes; len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("turn 3 links nodes %v, want [2 3]", got)
	}
	if got := links[15].Nodes; len(got) != 1 || got[0] != 9 {
		t.Errorf("turn 15 links nodes %v, want [9]", got)
	}
	if _, beyond := LinkTurns(afterRecall(t), msgs[:10]); len(beyond) != 8 || beyond[0] != 10 {
		t.Errorf("turn ids past the conversation: %v", beyond)
	}
	// The run result form, and messages that keep what they had.
	wrapped, err := ReadMessages([]byte(`{"question": "q", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}], "name": "x"}]}`))
	if err != nil || len(wrapped) != 1 || wrapped[0].Content != `[{"type": "text", "text": "hi"}]` {
		t.Errorf("%+v %v", wrapped, err)
	}
	if b, _ := wrapped[0].MarshalJSON(); !strings.Contains(string(b), `"name": "x"`) {
		t.Errorf("a message lost a key: %s", b)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"question": "q"}`, `an object without "messages"`},
		{`[{"content": "x"}]`, `messages[0]: "role" is missing`},
		{"[\n{\"role\": \"user\"},\n3]", `line 3: messages[1]: it is a number, not an object {role, content}`},
		{`{"messages": 3}`, `they are a number, not a list`},
	} {
		if _, err := ReadMessages([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadMessages(%s): %v, want %q", tc.in, err, tc.want)
		}
	}
	var v any
	if err := json.Unmarshal(indentJSON(t, msgs), &v); err != nil {
		t.Error(err)
	}
}
