package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"rhizome/backend/llm/llmtest"
	"rhizome/backend/memobrain"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
)

// runSessionLines is how much of a real session the run tests read: its
// first lines, a real session cut short (a few turns of a real agent).
const runSessionLines = 40

// runSession imports the first runSessionLines lines of the real sample
// large-session.jsonl into l and returns its id and its conversation as
// MemoBrain reads it.
func runSession(t *testing.T, l *testLib) (string, memobrain.Conversation) {
	t.Helper()
	b, err := os.ReadFile(pitest.Sample("large-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b = prefixLines(b, runSessionLines)
	rep, err := l.Import.ImportFiles([]DroppedFile{{Name: "large-session.jsonl", Content: base64.StdEncoding.EncodeToString(b)}})
	if err != nil || rep.Totals.Imported != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	s, err := pisession.Read(bytes.NewReader(b), "large-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]*session.Entry, len(s.Entries))
	for i := range s.Entries {
		entries[i] = &s.Entries[i]
	}
	conv, err := memobrain.SessionConversation(s.Header, entries)
	if err != nil {
		t.Fatal(err)
	}
	return s.Header.ID, conv
}

// runScript is what the model answers a run on the session cut short: a
// patch for turn 1 (a subtask and its evidence), a reply for turn 2 that is
// no patch at all, a patch for turn 3 that puts the graph over its budget
// of 3 nodes, a flush and fold then, and empty patches for the other turns.
func runScript(turns int) []llmtest.Reply {
	replies := []llmtest.Reply{
		{Text: `{"add_nodes": [{"tmp_id": "tmp1", "kind": "subtask", "thought": [{"role": "assistant", "content": "Read the theme docs and the selectors."}, {"role": "user", "content": "Docs and theme.ts read."}]},
		  {"tmp_id": "tmp2", "kind": "evidence", "thought": [{"role": "assistant", "content": "read theme.md"}, {"role": "user", "content": "Themes define every color token."}]}],
		 "add_edges": [{"src": 1, "dst": "tmp1", "rationale": "decompose"}, {"src": "tmp1", "dst": "tmp2", "rationale": "found"}]}`},
		{Text: "I think the agent is reading files. Nothing to add."},
		{Text: "```json\n" + `{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "list the selectors"}, {"role": "user", "content": "oauth-selector.ts and others."}]}],
		 "add_edges": [{"src": "node 2", "dst": "tmp1", "rationale": "found"}]}` + "\n```"},
		{Text: `<think>3 and 4 answer 2.</think>{"flush_ops": [], "fold_ops": [{"ids": [3, 4], "rationale": "the files are read",
		  "notes": [{"role": "assistant", "content": "Read the docs and listed the selectors."}, {"role": "user", "content": "Color tokens; oauth-selector.ts is the pattern."}]}]}`},
	}
	for k := 4; k <= turns; k++ {
		replies = append(replies, llmtest.Reply{Text: `{"add_nodes": [], "add_edges": []}`})
	}
	return replies
}

// Issue 12 §2: with a model configured, Rhizome runs MemoBrain's loop on a
// session, against a local server speaking the provider's real wire
// protocol: the task from the first request, a patch per turn with the
// turn's message indexes, flush and fold past the budget, a reply that is no
// patch left out and reported, and each turn linked to its session entries
// by rhizome: URIs.
func TestRunOnSession(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			l := newTestLib(t)
			events := captureEvents(l)
			sessionID, conv := runSession(t, l)
			turns := len(memobrain.Pairs(conv.Messages, 2))
			if turns < 5 {
				t.Fatalf("the session cut short has %d turns; the script needs 5", turns)
			}
			var received func() []llmtest.Received
			var base string
			switch provider {
			case "openai":
				srv := llmtest.NewOpenAIServer(1)
				srv.Script(runScript(turns)...)
				hs := httptest.NewServer(srv)
				t.Cleanup(hs.Close)
				base, received = hs.URL+"/v1", srv.Received
			case "anthropic":
				srv := llmtest.NewAnthropicServer(1)
				srv.Script(runScript(turns)...)
				hs := httptest.NewServer(srv)
				t.Cleanup(hs.Close)
				base, received = hs.URL, srv.Received
			}
			if _, err := l.Settings.SetLLM(LLMSettingsInput{Provider: provider, BaseURL: base, Model: "memory-test", APIKey: testAPIKey}); err != nil {
				t.Fatal(err)
			}
			res, err := l.Reasoning.RunOnSession(ReasoningRunRequest{SessionID: sessionID, Budget: 3, RequestID: "run-1"})
			if err != nil {
				t.Fatal(err)
			}
			checkNoNullLists(t, "Reasoning.RunOnSession", res) // docs/CONTRACT.md, "Lists"
			if res.Turns != turns || res.Applied != turns-1 || res.Recalls != 1 || len(res.Problems) != 1 {
				t.Fatalf("result %+v", res)
			}
			if p := res.Problems[0]; p.Turn != 2 || p.Phase != "patch" || !strings.Contains(p.Error, "unable to read a memory patch") {
				t.Errorf("the reply that is no patch: %+v", p)
			}
			reqs := received()
			if len(reqs) != turns+1 {
				t.Errorf("%d requests, want a patch per turn and one flush and fold", len(reqs))
			}
			// What the model was sent: MemoBrain's prompts.
			for i, r := range reqs {
				body := string(r.Body)
				recall := i == 3
				want := "CURRENT_INTERACTION:"
				if recall {
					want = "CURRENT_GRAPH:"
				}
				if !strings.Contains(body, want) || !strings.Contains(body, "Node 1: [task] [Active] Begin to solve the task: ") {
					t.Errorf("request %d lacks %q and the graph: %.400s", i, want, body)
				}
			}
			if !strings.Contains(string(reqs[4].Body), "- Node 5: [summary] [Active]") {
				t.Errorf("after the fold the model sees the summary: %.2000s", reqs[4].Body)
			}

			v, err := l.Reasoning.Open(res.Graph.ID)
			if err != nil {
				t.Fatal(err)
			}
			if v.Info.SessionID != sessionID || v.Info.Model != provider+"/memory-test" || v.Info.Nodes != 5 || v.Info.Messages != len(conv.Messages) {
				t.Errorf("graph %+v", v.Info)
			}
			state := map[int]ReasoningNodeView{}
			for _, n := range v.Nodes {
				state[n.ID] = n
			}
			if state[1].Kind != "task" || !strings.HasPrefix(state[1].Text, memobrain.TaskPrefix+conv.Task[:20]) {
				t.Errorf("the task from the first request: %+v", state[1])
			}
			// Turn k's patch has ids 2k, 2k+1: turn 1 -> [2, 3], turn 3 -> [6, 7].
			if !slices.Equal(state[2].TurnIDs, []int{2, 3}) || !slices.Equal(state[4].TurnIDs, []int{6, 7}) ||
				state[3].State != "folded" || state[4].State != "folded" || state[5].Kind != "summary" || !slices.Equal(state[5].TurnIDs, []int{2, 3, 6, 7}) {
				t.Errorf("nodes %+v", state)
			}
			kinds := []string{}
			for _, s := range v.History {
				kinds = append(kinds, s.Kind)
			}
			if len(kinds) != 1+(turns-1)+1 || kinds[0] != "init" || kinds[3] != "fold" {
				t.Errorf("history %v", kinds)
			}

			// Turns link to the session's entries; each entry to its node.
			tl, err := l.Reasoning.Turns(res.Graph.ID, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(tl) != 2 || tl[0].Role != "assistant" || tl[1].Role != "user" || tl[0].Content != conv.Messages[2].Content {
				t.Fatalf("node 2's turns %+v", tl)
			}
			for _, turn := range tl {
				if len(turn.Entries) != len(conv.Entries[turn.Turn]) {
					t.Errorf("turn %d links %d entries, was made of %d", turn.Turn, len(turn.Entries), len(conv.Entries[turn.Turn]))
				}
				for i, e := range turn.Entries {
					if e.EntryID != conv.Entries[turn.Turn][i] || e.URI != "rhizome:entry/"+sessionID+"/"+e.EntryID || e.NodeID == "" {
						t.Errorf("turn %d entry %+v", turn.Turn, e)
					}
				}
			}
			// The history goes back to before the fold.
			at, err := l.Reasoning.At(res.Graph.ID, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(at.Nodes) != 4 || stateOf(at.Nodes, 3) != "active" {
				t.Errorf("before the fold: %+v", at.Nodes)
			}
			if got := events.of("reasoning:progress"); len(got) < turns {
				t.Errorf("%d progress events for %d turns", len(got), turns)
			}
			if len(events.of("reasoning:changed")) == 0 {
				t.Error("no reasoning:changed event")
			}
		})
	}
}

// A run that fails (the provider's error: one it does not retry) or is
// cancelled writes nothing;
// so does a run without a model.
func TestRunOnSessionFailsWhole(t *testing.T) {
	l := newTestLib(t)
	sessionID, _ := runSession(t, l)
	if _, err := l.Reasoning.RunOnSession(ReasoningRunRequest{SessionID: sessionID}); err == nil || !strings.Contains(err.Error(), "no model configured") {
		t.Errorf("without a model: %v", err)
	}
	srv := llmtest.NewOpenAIServer(1)
	srv.Script(llmtest.Reply{Text: `{"add_nodes": [], "add_edges": []}`}, llmtest.Reply{Fail: llmtest.FailContextLength})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	if _, err := l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: hs.URL + "/v1", Model: "m", APIKey: testAPIKey}); err != nil {
		t.Fatal(err)
	}
	_, err := l.Reasoning.RunOnSession(ReasoningRunRequest{SessionID: sessionID})
	if err == nil || !strings.Contains(err.Error(), "turn 2 of") || !strings.Contains(err.Error(), "context_length_exceeded") {
		t.Errorf("a provider failure: %v", err)
	}
	// Cancelled while the model writes.
	srv.ChunkDelay = 50 * 1e6
	events := captureEvents(l)
	done := make(chan error, 1)
	go func() {
		_, err := l.Reasoning.RunOnSession(ReasoningRunRequest{SessionID: sessionID, RequestID: "stop-me"})
		done <- err
	}()
	events.wait(t, "reasoning:progress")
	for !l.Reasoning.CancelRun("stop-me") {
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "cancelled, nothing written") {
		t.Errorf("a cancelled run: %v", err)
	}
	if list, _ := l.Reasoning.List(); len(list) != 0 {
		t.Errorf("%d graphs written by failed runs", len(list))
	}
	if _, err := l.Reasoning.RunOnSession(ReasoningRunRequest{SessionID: "no-such-session"}); err == nil {
		t.Error("a run on a session the library lacks")
	}
	b, _ := json.Marshal(ReasoningRunRequest{})
	if !strings.Contains(string(b), `"budget"`) {
		t.Error(string(b))
	}
}
