package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"rhizome/app"
	"rhizome/backend/eval"
	"rhizome/backend/link"
	"rhizome/store"
)

// evalHits is how many hits each question asks for: the first 10 are
// scored by turn, and the sessions of all of them give the first
// eval.SessionK distinct sessions.
const evalHits = 50

// runEval is `rhizome eval locomo|longmemeval FILE`: the benchmark's own
// JSON imported into a temporary library (one pi session per benchmark
// session, one entry per turn), every question run through the hybrid
// search the window, `rhizome search` and MCP use (entries only, within
// the question's conversation, asked at the question's date where the
// benchmark gives one), and evidence recall@5/@10 by turn and session-level
// recall printed per category beside a plain BM25 over the same turns, with
// the search's latency. See backend/eval for the formats and the measures.
func runEval(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, "print the report as JSON")
	limit := c.Int("limit", 0, "ask only the first N questions (0: all)")
	keep := c.String("keep", "", "keep the library in this folder instead of a temporary one; a folder an earlier --keep filled is asked again without importing")
	misses := c.String("misses", "", "write each scored question whose evidence is not all among the first 10 hits to this file (JSON lines: the question, its evidence turns and the hits, with their text)")
	embeddings := c.modelFlags()
	if status, ok := c.parse(); !ok {
		return status
	}
	if c.NArg() != 2 || (c.Arg(0) != "locomo" && c.Arg(0) != "longmemeval") {
		fmt.Fprintln(stderr, "rhizome eval: want locomo FILE or longmemeval FILE")
		return 2
	}
	b, note, err := readBenchmark(c.Arg(0), c.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "rhizome eval: %v\n", err)
		return 1
	}
	if note != "" {
		fmt.Fprintf(stderr, "rhizome eval: %s\n", note)
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "rhizome-eval-"); err != nil {
			fmt.Fprintf(stderr, "rhizome eval: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "rhizome eval: --keep: %v\n", err)
		return 1
	}
	var missed io.Writer
	if *misses != "" {
		f, err := os.Create(*misses)
		if err != nil {
			fmt.Fprintf(stderr, "rhizome eval: --misses: %v\n", err)
			return 1
		}
		defer f.Close()
		missed = f
	}
	rep, err := runBenchmark(ctx, b, dir, *limit, embeddings.override(), stderr, missed)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome eval: %v\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome eval: %v\n", err)
		return 1
	}
	if *asJSON {
		printJSON(stdout, rep)
		return 0
	}
	printEvalReport(stdout, rep)
	return 0
}

// readBenchmark reads file as the benchmark kind names; note says what
// the reader left out.
func readBenchmark(kind, file string) (*eval.Benchmark, string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if kind == "locomo" {
		b, dropped, err := eval.ReadLoCoMo(f, file)
		note := ""
		switch {
		case dropped == 1:
			note = "1 evidence id names no turn of its conversation and is left out"
		case dropped > 1:
			note = fmt.Sprintf("%d evidence ids name no turn of their conversation and are left out", dropped)
		}
		return b, note, err
	}
	b, err := eval.ReadLongMemEval(f, file)
	return b, "", err
}

// runBenchmark imports b into a library in dir and asks it the first limit
// questions (all when limit <= 0). An embeddings endpoint (its base URL
// and model; the key from RHIZOME_LLM_API_KEY, kept in dir's library
// settings) makes the vectors instead of the offline model. When misses
// is not nil, each scored question whose evidence is not all among the
// first 10 hits is written to it as a JSON line (evalMiss).
func runBenchmark(ctx context.Context, b *eval.Benchmark, dir string, limit int, embeddings app.ModelOverride, progress, misses io.Writer) (eval.Report, error) {
	db := filepath.Join(dir, "library.db")
	_, statErr := os.Stat(db)
	imported := statErr == nil
	w, err := eval.WritePiSessions(b, filepath.Join(dir, "sessions"))
	if err != nil {
		return eval.Report{}, err
	}
	st, err := store.OpenContext(ctx, db)
	if err != nil {
		return eval.Report{}, err
	}
	defer st.Close()
	a := app.New(st, db)
	a.SetContext(ctx)
	if imported {
		// A library an earlier --keep filled: asked again as it is.
		fmt.Fprintf(progress, "asking the library in %s again\n", dir)
		if err := a.LoadVectors(); err != nil {
			fmt.Fprintf(progress, "ranking without vectors: %v\n", err)
		}
	} else {
		if embeddings.BaseURL != "" || embeddings.Model != "" {
			if embeddings.BaseURL == "" || embeddings.Model == "" {
				return eval.Report{}, fmt.Errorf("an embeddings endpoint needs both --base-url and --model")
			}
			if _, err := a.Settings.SetLLM(app.LLMSettingsInput{Provider: "openai", BaseURL: embeddings.BaseURL, Model: embeddings.Model, APIKey: embeddings.APIKey}); err != nil {
				return eval.Report{}, err
			}
			set, err := a.Search.SearchSettings()
			if err != nil {
				return eval.Report{}, err
			}
			set.EmbeddingBaseURL, set.EmbeddingModel = embeddings.BaseURL, embeddings.Model
			if _, err := a.Search.SetSearchSettings(set); err != nil {
				return eval.Report{}, err
			}
		}
		a.StartBackground(false)
		fmt.Fprintf(progress, "importing %d sessions, %d turns\n", b.Sessions(), b.Turns())
		rep, err := a.Import.ImportPaths([]string{filepath.Join(dir, "sessions")})
		if err != nil {
			return eval.Report{}, err
		}
		if rep.Totals.Failed > 0 {
			return eval.Report{}, fmt.Errorf("%d of the benchmark's sessions failed to import", rep.Totals.Failed)
		}
		// The sessions' derivation (summaries, knowledge, relations), the
		// vectors (offline LSA, or the configured embeddings endpoint) and
		// the merged keyword index, as the window has them after an import.
		if err := a.Complete(ctx, nil); err != nil { // every session: the library is new
			return eval.Report{}, err
		}
	}
	qs := b.Questions
	if limit > 0 && limit < len(qs) {
		qs = qs[:limit]
	}
	found, base := map[int]eval.Ranked{}, map[int]eval.Ranked{}
	bm25 := map[int]*eval.BM25{}
	sessionOf := map[int]map[string]string{}
	var asked time.Time
	a.SetClock(func() time.Time {
		if asked.IsZero() {
			return time.Now()
		}
		return asked
	})
	for i, q := range qs {
		if ctx.Err() != nil {
			return eval.Report{}, ctx.Err()
		}
		if i > 0 && i%100 == 0 {
			fmt.Fprintf(progress, "asked %d of %d questions\n", i, len(qs))
		}
		asked = q.Time
		start := time.Now()
		res, err := a.Search.Hybrid(app.HybridQuery{Query: q.Text, Limit: evalHits,
			Filter: app.SearchFilter{Project: w.Project[q.Conversation], Kinds: []string{"entry"}}})
		took := time.Since(start)
		if err != nil {
			return eval.Report{}, fmt.Errorf("question %s: %w", q.ID, err)
		}
		r := eval.Ranked{Latency: took}
		for _, h := range res.Hits {
			it, err := link.Parse(h.URI)
			if err != nil {
				continue
			}
			if t, ok := w.Turn[eval.TurnRef{Session: it.Within, Entry: it.ID}]; ok {
				r.Turns = append(r.Turns, t)
			}
			r.Sessions = appendNew(r.Sessions, w.Session[h.SessionID])
		}
		found[i] = r
		x := bm25[q.Conversation]
		if x == nil {
			conv := b.Conversations[q.Conversation]
			x, sessionOf[q.Conversation] = eval.NewBM25(conv), conv.SessionOfTurn()
			bm25[q.Conversation] = x
		}
		var br eval.Ranked
		for _, t := range x.Search(q.Text, evalHits) {
			br.Turns = append(br.Turns, t)
			br.Sessions = appendNew(br.Sessions, sessionOf[q.Conversation][t])
		}
		base[i] = br
		if misses != nil && len(q.Evidence) > 0 && eval.Recall(q.Evidence, r.Turns, 10) < 1 {
			writeMiss(misses, b, q, r.Turns, br.Turns)
		}
	}
	cats := eval.LoCoMoCategories
	if b.Name == "longmemeval" {
		cats = eval.LongMemEvalTypes
	}
	sub := *b
	sub.Questions = qs
	return eval.Score(&sub, found, base, cats), nil
}

// appendNew appends s to xs unless xs holds it already.
func appendNew(xs []string, s string) []string {
	if slices.Contains(xs, s) {
		return xs
	}
	return append(xs, s)
}

// printEvalReport prints a report as a table: turn recall@5 and @10, and
// session recall_all@5 (recall_any@5 too, which LongMemEval's authors
// report, for that benchmark), each beside BM25's.
func printEvalReport(w io.Writer, r eval.Report) {
	anyCol := r.Benchmark == "longmemeval"
	fmt.Fprintf(w, "%s: %d conversations, %d sessions, %d turns, %d questions\n\n", r.Benchmark, r.Conversations, r.Sessions, r.Turns, r.Questions)
	fmt.Fprintf(w, "%-26s %6s  %-21s  %-21s  %-21s", "", "", "turn recall@5", "turn recall@10", "session recall@5")
	if anyCol {
		fmt.Fprintf(w, "  %-21s", "session recall_any@5")
	}
	fmt.Fprintf(w, "\n%-26s %6s  %10s %10s  %10s %10s  %10s %10s", "category", "asked", "rhizome", "bm25", "rhizome", "bm25", "rhizome", "bm25")
	if anyCol {
		fmt.Fprintf(w, "  %10s %10s", "rhizome", "bm25")
	}
	fmt.Fprintln(w)
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-26s %6d  %10.3f %10.3f  %10.3f %10.3f  %10.3f %10.3f", row.Category, row.Search.Questions,
			row.Search.TurnRecall[5], row.BM25.TurnRecall[5], row.Search.TurnRecall[10], row.BM25.TurnRecall[10],
			row.Search.SessionAll, row.BM25.SessionAll)
		if anyCol {
			fmt.Fprintf(w, "  %10.3f %10.3f", row.Search.SessionAny, row.BM25.SessionAny)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nsearch latency per question: p50 %.1f ms, p95 %.1f ms\n", r.P50Millis, r.P95Millis)
	fmt.Fprintln(w, strings.TrimSpace(`
turn recall@k: the share of a question's evidence turns among its first k hits; session recall@5: 1 when
every session holding evidence is among the first 5 sessions the hits come from (recall_all; recall_any:
when one of them is). Questions without evidence (adversarial, abstention) are not scored.`))
}

// evalMiss is one line of `rhizome eval --misses`: a question whose
// evidence was not all among the first 10 hits, with the text of its
// evidence turns and of those hits (a mark on the hits that are evidence).
type evalMiss struct {
	ID       string     `json:"id"`
	Category string     `json:"category"`
	Question string     `json:"question"`
	Answer   string     `json:"answer,omitempty"`
	Evidence []evalTurn `json:"evidence"`
	Hits     []evalTurn `json:"hits"`
}

type evalTurn struct {
	ID string `json:"id"`
	// Rank is an evidence turn's place among the hits (1 is first; 0 when
	// it is not among them).
	Rank     int    `json:"rank,omitempty"`
	BM25Rank int    `json:"bm25Rank,omitempty"` // the same in the plain BM25's ranking
	Evidence bool   `json:"evidence,omitempty"`
	Text     string `json:"text"`
}

// writeMiss writes q and its first 10 hits to w as one JSON line; bm25 is
// the baseline's ranking of the same question.
func writeMiss(w io.Writer, b *eval.Benchmark, q eval.Question, hits, bm25 []string) {
	text := map[string]string{}
	for _, s := range b.Conversations[q.Conversation].Sessions {
		for _, t := range s.Turns {
			text[t.ID] = t.Speaker + ": " + t.Text
		}
	}
	m := evalMiss{ID: q.ID, Category: q.Category, Question: q.Text, Answer: q.Answer}
	for _, id := range q.Evidence {
		m.Evidence = append(m.Evidence, evalTurn{ID: id, Rank: slices.Index(hits, id) + 1, BM25Rank: slices.Index(bm25, id) + 1, Text: text[id]})
	}
	for _, id := range hits[:min(10, len(hits))] {
		m.Hits = append(m.Hits, evalTurn{ID: id, Evidence: slices.Contains(q.Evidence, id), Text: text[id]})
	}
	line, _ := json.Marshal(m)
	w.Write(append(line, '\n'))
}
