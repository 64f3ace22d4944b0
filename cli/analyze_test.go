package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/llm/llmtest"
	"rhizome/backend/pisession/pitest"
)

type analyzeReport struct {
	Nodes []struct {
		NodeID  string `json:"nodeId"`
		Result  string `json:"result"`
		Version int    `json:"version"`
		Trigger string `json:"trigger"`
		Edges   int    `json:"edges"`
		Tokens  int64  `json:"tokens"`
		Failure *struct {
			Kind string `json:"kind"`
		} `json:"failure"`
	} `json:"nodes"`
	ByResult map[string]int `json:"byResult"`
	Status   struct {
		Queued    int     `json:"queued"`
		BudgetUSD float64 `json:"budgetUsd"`
	} `json:"status"`
}

// `rhizome analyze` with a model named on the command line, served by
// llmtest on loopback in OpenAI's wire protocol: the estimate is printed
// first, a canned analysis makes version 2 of the node with one model
// relation, a refusal is reported as the node's failure; --offline over a
// session finds its nodes current (the offline rules did not change);
// --base-url without --model is a usage error.
func TestAnalyzeCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "library.db")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"import", "--db", db, "--json"}, pitest.Samples()...), &stdout, &stderr); code != 0 {
		t.Fatalf("import: %d %s", code, stderr.String())
	}
	srv := llmtest.NewOpenAIServer(5)
	base, stop, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	canned, err := os.ReadFile(filepath.Join("..", "backend", "analyze", "testdata", "model", "poem-segment.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Script(llmtest.Reply{Text: string(canned)}, llmtest.Reply{Refusal: "I won't analyse this."})

	const session = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617" // large-session.jsonl: 2 segments
	analyze := func(wantCode int, args ...string) analyzeReport {
		t.Helper()
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), append([]string{"analyze", "--db", db}, args...), &stdout, &stderr); code != wantCode {
			t.Fatalf("analyze %v: status %d, want %d\n%s\n%s", args, code, wantCode, stdout.String(), stderr.String())
		}
		var rep analyzeReport
		if strings.Contains(strings.Join(args, " "), "--json") {
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("report: %v\n%s", err, stdout.String())
			}
		}
		return rep
	}
	rep := analyze(0, "--json", "--base-url", base, "--model", "gpt-4o-mini", "--budget", "2", session)
	if !strings.Contains(stderr.String(), "estimate: 2 segments") {
		t.Errorf("no estimate first: %s", stderr.String())
	}
	if len(rep.Nodes) != 2 || rep.ByResult["analysed"] != 1 || rep.ByResult["failed"] != 1 || rep.Status.Queued != 0 || rep.Status.BudgetUSD != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, n := range rep.Nodes {
		switch n.Result {
		case "analysed":
			if n.Version != 2 || n.Trigger != "model_change" || n.Edges != 1 || n.Tokens == 0 {
				t.Errorf("analysed node %+v", n)
			}
		case "failed":
			if n.Failure == nil || n.Failure.Kind != "refusal" {
				t.Errorf("failed node %+v", n)
			}
		}
	}

	analyze(0, "--offline", session)
	if !strings.Contains(stdout.String(), "0 analysed, 2 current") {
		t.Errorf("offline: %s", stdout.String())
	}
	empty := filepath.Join(dir, "empty.db")
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"analyze", "--db", empty}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "no model configured: set one in Settings") {
		t.Errorf("no model: %d %s", code, stderr.String())
	}
	analyze(2, "--base-url", base)
	if !strings.Contains(stderr.String(), "--base-url needs --model") {
		t.Errorf("usage: %s", stderr.String())
	}
}
