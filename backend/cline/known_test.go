package cline

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/cline/clinetest"
	"rhizome/backend/sessiondoc"
)

// rewrite is doc with each message m (its index i) replaced by
// edit(i, m), left out where edit gives nil. doc is a conversation Read
// accepts.
func rewrite(t testing.TB, doc []byte, edit func(i int, m []byte) []byte) []byte {
	t.Helper()
	top, err := sessiondoc.CheckOutline(doc, "rewrite")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []sessiondoc.Span
	for j, m := range top.Members {
		if m.Key == "messages" {
			msgs = top.Elements[j]
		}
	}
	if len(msgs) == 0 {
		return doc
	}
	var kept [][]byte
	for i, sp := range msgs {
		if m := edit(i, doc[sp.Start:sp.End]); m != nil {
			kept = append(kept, m)
		}
	}
	out := append([]byte(nil), doc[:msgs[0].Start]...)
	out = append(out, bytes.Join(kept, []byte(",\n    "))...)
	return append(out, doc[msgs[len(msgs)-1].End:]...)
}

// firstMessages keeps the first k messages.
func firstMessages(k int) func(int, []byte) []byte {
	return func(i int, m []byte) []byte {
		if i < k {
			return m
		}
		return nil
	}
}

// agree checks a reading against st.Known() (light) against the whole
// reading of the same document (whole): every field but the items the
// same; the same keys; an item st holds without its entry, every other
// item with the entry the whole reading gave; and st.Diff of each the same
// change.
func agree(t testing.TB, what string, whole, light *sessiondoc.Doc, st sessiondoc.State) {
	t.Helper()
	w, l := *whole, *light
	w.Items, l.Items = nil, nil
	if !reflect.DeepEqual(w, l) {
		t.Fatalf("%s: the reading against the state differs beside its items:\n%+v\nwhole:\n%+v", what, l, w)
	}
	if len(light.Items) != len(whole.Items) {
		t.Fatalf("%s: %d items, whole %d", what, len(light.Items), len(whole.Items))
	}
	held := st.Known()
	for i, it := range light.Items {
		wit := whole.Items[i]
		switch stored := held.Next(wit.Key); {
		case it.Key != wit.Key:
			t.Fatalf("%s: item %d key %s, whole %s", what, i, it.Key, wit.Key)
		case stored && it.Entry != nil:
			t.Fatalf("%s: item %d (%s) is stored, and has an entry", what, i, it.Key)
		case !stored && it.Entry == nil:
			t.Fatalf("%s: item %d (%s) is new, and has no entry", what, i, it.Key)
		case !stored && !reflect.DeepEqual(it.Entry, wit.Entry):
			t.Fatalf("%s: new item %d (%s):\n%+v\nwhole:\n%+v", what, i, it.Key, *it.Entry, *wit.Entry)
		}
	}
	if cw, cl := st.Diff(whole), st.Diff(light); !reflect.DeepEqual(cw, cl) {
		t.Fatalf("%s: change %+v, whole %+v", what, cl, cw)
	}
}

// rereadAgrees reads before (beside bside) as the library stored it, then
// after (beside aside) against what it holds and whole, and checks they
// agree; then after again against the state after, where every item is
// held.
func rereadAgrees(t testing.TB, what string, before []byte, bside Side, after []byte, aside Side) {
	t.Helper()
	b, err := Read(before, "f", bside)
	if err != nil {
		t.Fatalf("%s: before: %v", what, err)
	}
	st := sessiondoc.State{}.Diff(b).Next
	whole, err := Read(after, "f", aside)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	light, err := ReadKnown(after, "f", aside, st.Known())
	if err != nil {
		t.Fatalf("%s: against the state: %v", what, err)
	}
	agree(t, what, whole, light, st)
	st = st.Diff(light).Next
	again, err := ReadKnown(after, "f", aside, st.Known())
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range again.Items {
		if it.Entry != nil {
			t.Fatalf("%s: read again, item %d (%s) has an entry", what, i, it.Key)
		}
	}
	whole, _ = Read(after, "f", aside)
	agree(t, what+", read again", whole, again, st)
}

// A re-read against the stored state gives what a whole read gives but
// for the entries of the stored items, left out: each real conversation
// cut after every message then whole (with and without its compaction
// beside the shorter one), with each message rewritten in turn, or left
// out; the state that later messages depend on (the prompt answered, the
// spawn_agent call a result links to its sub-agent, the entry before, the
// models) is kept by the light reading of a stored message.
func TestReadKnown(t *testing.T) {
	for _, f := range realDocs(t) {
		full, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		side := realSide(t, f)
		bare := side
		bare.Compaction, bare.CompactionName = nil, ""
		n := len(readReal(t, f).Items)
		for k := 0; k <= n; k++ {
			short := rewrite(t, full, firstMessages(k))
			rereadAgrees(t, fmt.Sprintf("%s: %d messages then all", f, k), short, side, full, side)
			rereadAgrees(t, fmt.Sprintf("%s: %d messages without the compaction, then all", f, k), short, bare, full, side)
		}
		for r := 0; r < n; r++ {
			edited := rewrite(t, full, func(i int, m []byte) []byte {
				if i == r {
					return append(bytes.TrimSuffix(bytes.Clone(m), []byte("}")), `, "edited": true}`...)
				}
				return m
			})
			rereadAgrees(t, fmt.Sprintf("%s: message %d rewritten", f, r), full, side, edited, side)
			dropped := rewrite(t, full, func(i int, m []byte) []byte {
				if i == r {
					return nil
				}
				return m
			})
			rereadAgrees(t, fmt.Sprintf("%s: message %d left out", f, r), full, side, dropped, side)
		}
	}
}

// The same on a grown conversation (the first real one's messages again
// and again under new ids), cut at a few places.
func TestReadKnownGrown(t *testing.T) {
	real, err := os.ReadFile(docPath(first))
	if err != nil {
		t.Fatal(err)
	}
	g, err := clinetest.NewGrowing(real)
	if err != nil {
		t.Fatal(err)
	}
	g.Grow(256 << 10)
	full := g.Bytes()
	side := realSide(t, docPath(first))
	d, err := Read(full, "f", side)
	if err != nil {
		t.Fatal(err)
	}
	n := len(d.Items)
	for _, k := range []int{0, 1, 7, n / 3, n / 2, n - 1, n} {
		rereadAgrees(t, fmt.Sprintf("grown: %d of %d messages then all", k, n), rewrite(t, full, firstMessages(k)), side, full, side)
	}
}

// oddMessages are messages the light reading does not scan (a key in
// another case or repeated, a field of another kind), odd ones it does (no
// id, the same message twice, escapes, a byte that is no UTF-8, nulls, a
// compaction, an error, another role, spawn_agent calls and results), and
// ones left out as problems.
var oddMessages = []string{
	prompt,
	`{"id": "a0", "role": "assistant", "content": [{"type": "tool_use", "id": "sp1", "name": "spawn_agent", "input": {"task": "Review it"}}], "ts": 1796293572601, "modelInfo": {"id": "m\u00e9", "provider": "p"}}`,
	`{"id": "r0", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "sp1", "content": "{\"text\": \"done\"}"}], "ts": 1796293572602}`,
	`{"role": "user", "content": "plain, no id"}`,
	`{"ID": "x1", "role": "user", "content": "a key in another case"}`,
	`{"id": "x2", "role": "assistant", "role": "assistant", "content": [{"type": "text", "text": "role twice"}], "modelInfo": {"id": "m2"}}`,
	`{"\u0069d": "x3", "role": "user", "content": [{"type": "text", "text": "an escaped key"}, null], "ts": null, "modelInfo": null}`,
	`{"id": "x4", "role": "assistant", "content": [{"Type": "tool_use", "id": "c9", "name": "read_files", "input": {}}], "modelInfo": {"Id": "m3"}}`,
	`{"id": "dup", "role": "user", "content": "the same twice"}`,
	`{"id": "dup", "role": "user", "content": "the same twice"}`,
	`{"id": "s1", "role": "system", "content": [{"type": "text", "text": "another role"}], "ts": 1796293572700}`,
	`{"id": "error_1", "role": "assistant", "content": [{"type": "text", "text": "failed"}], "metadata": {"displayRole": "error"}}`,
	`{"id": "c1", "role": "user", "content": [{"type": "text", "text": "Context summary:\n\nsum"}], "metadata": {"kind": "compaction_summary", "tokensBefore": 9}}`,
	`{"id": "bad", "role": "assistant", "content": [{"type": "text", "text": 5}]}`,
	`{"id": "late", "role": "assistant", "content": [{"type": "tool_use", "id": "sp2", "name": "spawn_agent", "input": "no object"}, {"type": "tool_use", "id": "sp3", "name": "spawn_agent", "input": {"task": "Second"}}], "ts": "soon"}`,
	`{"id": "x` + "\xff" + `\u00e9", "role": "assistant", "content": [{"type": "tool_use", "id": "sp4", "name": "spawn\u005fagent", "input": {"task": "Second", "Task": "Third"}}], "ts": 1796293572800, "metadata": null}`,
	`{"id": "r4", "role": "user", "content": [{"type": "text", "text": "before"}, {"type": "tool_result", "tool_use_id": "sp4", "content": [{"query": "q", "result": "r", "success": true}]}]}`,
	`{"id": "m5", "role": "assistant", "content": null, "metadata": {"kind": "compaction"}, "metadata2": 1}`,
	`{"id": 7, "role": "user", "content": "an id of another kind"}`,
	`{"id": "last", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "sp1", "content": "again"}], "ts": -0}`,
}

// oddSubagents are the sub-agents beside oddMessages.
var oddSubagents = []Subagent{{AgentID: "ag1", Task: "Review it"}, {AgentID: "ag2", Task: "Second"}, {AgentID: "ag3", Task: "Third"}}

// oddMessages cut after every message, then whole: the same as a whole
// read.
func TestReadKnownOdd(t *testing.T) {
	msgs := oddMessages
	full := []byte(envelopeOf(strings.Join(msgs, ",\n")))
	side := Side{Subagents: oddSubagents}
	if d, err := Read(full, "f", side); err != nil || len(d.Problems) != 3 {
		t.Fatalf("%v, problems %v", err, d.Problems)
	}
	for k := 0; k <= len(msgs); k++ {
		rereadAgrees(t, fmt.Sprintf("%d messages then all", k), rewrite(t, full, firstMessages(k)), side, full, side)
	}
}

// A new spawn_agent result read against the state that holds its call and
// the prompt before is linked to its sub-agent and answers that prompt:
// the light reading of the stored messages kept the call and the turn.
func TestReadKnownNeedsTheState(t *testing.T) {
	full, err := os.ReadFile(docPath(first))
	if err != nil {
		t.Fatal(err)
	}
	side := realSide(t, docPath(first))
	d := readReal(t, docPath(first))
	k := -1
	for i, it := range d.Items {
		if m := it.Entry.Message; m != nil && m.ToolName == "spawn_agent" {
			k = i // the result of the call
		}
	}
	if k < 1 || d.Items[k].Entry.SubagentID != agent {
		t.Fatalf("no spawn_agent result linked to %s", agent)
	}
	b, _ := Read(rewrite(t, full, firstMessages(k)), "f", side)
	st := sessiondoc.State{}.Diff(b).Next
	light, err := ReadKnown(full, "f", side, st.Known())
	if err != nil {
		t.Fatal(err)
	}
	if e := light.Items[k].Entry; e == nil || e.SubagentID != agent || e.TurnID != d.Items[k].Entry.TurnID || e.TurnID == "" {
		t.Fatalf("the new result %+v: the stored call and prompt are forgotten", e)
	}
}
