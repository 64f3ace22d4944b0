package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/eval"
	"rhizome/backend/llm/llmtest"
)

// `rhizome eval` imports a benchmark's own JSON into a temporary library
// and scores the hybrid search beside BM25: on the small LoCoMo- and
// LongMemEval-shaped files every scored question's evidence is found
// (each shares a word with its question and the conversations are
// short), which only holds when hits map back to the benchmark's turns
// and sessions; adversarial and abstention questions are left out; --keep
// leaves the library, whose sessions are the benchmark's.
func TestEvalCommand(t *testing.T) {
	cmd := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		return out.String(), errb.String(), code
	}
	keep := filepath.Join(t.TempDir(), "kept")
	out, errs, code := cmd("eval", "--json", "--keep", keep, "locomo", "../backend/eval/testdata/locomo-mini.json")
	if code != 0 {
		t.Fatalf("eval locomo: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "1 evidence id names no turn") {
		t.Errorf("the dropped evidence id is not said: %s", errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v: %s", err, out)
	}
	if rep.Turns != 15 || rep.Questions != 9 {
		t.Errorf("report of %d turns, %d questions; want 15 and 9", rep.Turns, rep.Questions)
	}
	cats := map[string]eval.Row{}
	for _, r := range rep.Rows {
		cats[r.Category] = r
	}
	if _, ok := cats["adversarial"]; ok {
		t.Errorf("adversarial questions scored: %+v", rep.Rows)
	}
	all := cats["overall"]
	if all.Search.Questions != 8 || all.Search.TurnRecall[10] != 1 || all.Search.SessionAll != 1 || all.BM25.TurnRecall[10] != 1 {
		t.Errorf("overall %+v", all)
	}
	if rep.P95Millis <= 0 || rep.P50Millis > rep.P95Millis {
		t.Errorf("latency p50 %v, p95 %v", rep.P50Millis, rep.P95Millis)
	}
	if _, err := os.Stat(filepath.Join(keep, "library.db")); err != nil {
		t.Errorf("--keep left no library: %v", err)
	}

	out, errs, code = cmd("eval", "longmemeval", "../backend/eval/testdata/longmemeval-mini.json")
	if code != 0 {
		t.Fatalf("eval longmemeval: exit %d: %s", code, errs)
	}
	for _, want := range []string{"longmemeval: 3 conversations, 6 sessions, 12 turns, 3 questions", "single-session-user", "temporal-reasoning", "overall", "p95", "session recall_any@5"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\noverall                         3") {
		t.Errorf("the abstention question was scored:\n%s", out)
	}

	for _, bad := range [][]string{{"eval"}, {"eval", "mteb", "x.json"}, {"eval", "locomo"}} {
		if _, errs, code := cmd(bad...); code != 2 || !strings.Contains(errs, "want locomo FILE or longmemeval FILE") {
			t.Errorf("%v: exit %d: %s", bad, code, errs)
		}
	}
	if _, errs, code := cmd("eval", "locomo", "../backend/eval/testdata/longmemeval-mini.json"); code != 1 || !strings.Contains(errs, "longmemeval-mini.json") {
		t.Errorf("a LongMemEval file read as LoCoMo: exit %d: %s", code, errs)
	}
}

// The memory's recall on the generated LoCoMo-shaped test file
// (build/evalgen; the ranking was tuned on the tune file, never on this
// one): the floors are today's figures less a margin, so that a change to
// the ranking that loses answers fails here. Plain BM25 over the same turns
// is the baseline the search must stay well above.
func TestEvalSyntheticLoCoMoFloors(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 2,565 turns and asks 915 questions: make test runs it")
	}
	var out, errb bytes.Buffer
	misses := filepath.Join(t.TempDir(), "misses.jsonl")
	if code := run(context.Background(), []string{"eval", "--json", "--misses", misses, "locomo", "../backend/eval/testdata/synthetic-locomo-test.json"}, &out, &errb); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errb.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	floors := map[string]float64{"overall": 0.65, "single-hop": 0.75, "temporal": 0.87, "multi-hop": 0.24, "open-domain": 0.3}
	// --misses: one line per scored question not fully found, each
	// evidence turn with its rank (none in the first ten), the hits with
	// their text.
	b, err := os.ReadFile(misses)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 100 || len(lines) > 712 {
		t.Errorf("%d misses of 712 scored questions", len(lines))
	}
	for _, l := range lines {
		var m evalMiss
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a misses line: %v: %s", err, l)
		}
		missed := false
		for _, e := range m.Evidence {
			missed = missed || e.Rank == 0 || e.Rank > 10
			if e.Text == "" {
				t.Errorf("%s: evidence %s without its text", m.ID, e.ID)
			}
		}
		if !missed || m.Question == "" || len(m.Hits) != 10 {
			t.Fatalf("not a miss: %s", l)
		}
	}
	for _, r := range rep.Rows {
		t.Logf("%-12s recall@10 %.3f (bm25 %.3f), session %.3f (bm25 %.3f)", r.Category, r.Search.TurnRecall[10], r.BM25.TurnRecall[10], r.Search.SessionAll, r.BM25.SessionAll)
		if f, ok := floors[r.Category]; ok && r.Search.TurnRecall[10] < f {
			t.Errorf("%s: recall@10 %.3f, below %.2f", r.Category, r.Search.TurnRecall[10], f)
		}
		if r.Category == "overall" && r.Search.TurnRecall[10] < r.BM25.TurnRecall[10]+0.15 {
			t.Errorf("overall recall@10 %.3f is not 0.15 above BM25's %.3f", r.Search.TurnRecall[10], r.BM25.TurnRecall[10])
		}
	}
}

// With an embeddings endpoint named (--base-url, --model) the benchmark's
// turns and questions are embedded by it (llmtest's OpenAI server on
// loopback: a hashed bag of words), and the report is made as offline; half
// an endpoint is refused, saying what is missing.
func TestEvalWithEmbeddingsEndpoint(t *testing.T) {
	srv := llmtest.NewOpenAIServer(1)
	base, stop, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"eval", "--json", "--base-url", base, "--model", "embed-test", "locomo", "../backend/eval/testdata/locomo-mini.json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("eval with an endpoint: exit %d: %s", code, errb.String())
	}
	if srv.EmbeddingRequests() == 0 {
		t.Error("the endpoint embedded nothing")
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if all := rep.Rows[len(rep.Rows)-1]; all.Category != "overall" || all.Search.TurnRecall[10] != 1 {
		t.Errorf("overall %+v", all)
	}
	errb.Reset()
	if code := run(context.Background(), []string{"eval", "--base-url", base, "locomo", "../backend/eval/testdata/locomo-mini.json"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "needs both --base-url and --model") {
		t.Errorf("--base-url alone: exit %d: %s", code, errb.String())
	}
}
