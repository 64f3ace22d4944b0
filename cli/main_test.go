package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rhizome/backend/llm/llmtest"
	"rhizome/backend/pisession/pitest"
	"rhizome/store"
)

type cliReport struct {
	Files []struct {
		Path             string         `json:"path"`
		Status           string         `json:"status"`
		Version          int            `json:"version"`
		SessionID        string         `json:"sessionId"`
		Entries          int            `json:"entries"`
		EntriesByType    map[string]int `json:"entriesByType"`
		Segments         int            `json:"segments"`
		BoundariesByType map[string]int `json:"boundariesByType"`
		EdgesByType      map[string]int `json:"edgesByType"`
		MalformedLines   []struct {
			Line   int    `json:"line"`
			Offset int64  `json:"offset"`
			Reason string `json:"reason"`
		} `json:"malformedLines"`
		PendingTail bool   `json:"pendingTail"`
		Error       string `json:"error"`
	} `json:"files"`
	Totals map[string]float64 `json:"totals"`
}

// run is Run as the tests run it: without the embedded frontend.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Run(ctx, args, stdout, stderr, Assets{})
}

func importJSON(t *testing.T, db string, paths ...string) (cliReport, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"import", "--db", db, "--json"}, paths...), &out, &errb)
	var r cliReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("import --json printed no JSON object (%v): %s\nstderr: %s", err, out.String(), errb.String())
	}
	return r, code
}

// The real sessions import with the exact entry counts, and importing the
// same bytes again changes nothing.
func TestImportCommandRealSessions(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lib.db")
	r, code := importJSON(t, db, "../app/samples")
	if code != 0 {
		t.Fatalf("exit status %d, want 0", code)
	}
	want := map[string]int{"large-session.jsonl": 1018, "session-with-compaction.jsonl": 463, "compact-with-images.jsonl": 1013}
	if len(r.Files) != len(want) {
		t.Fatalf("%d files reported, want %d", len(r.Files), len(want))
	}
	for _, f := range r.Files {
		name := filepath.Base(f.Path)
		if f.Status != "imported" || f.Entries != want[name] || f.Version != 1 || len(f.MalformedLines) != 0 {
			t.Errorf("%s: status %q, %d entries (want %d), version %d, %d malformed", name, f.Status, f.Entries, want[name], f.Version, len(f.MalformedLines))
		}
		if f.Segments < 1 {
			t.Errorf("%s: no segments", name)
		}
		if name == "compact-with-images.jsonl" && f.BoundariesByType["compaction"] != 2 {
			t.Errorf("%s: %d compaction boundaries, want 2 (one is on the concatenated last line)", name, f.BoundariesByType["compaction"])
		}
	}
	again, code := importJSON(t, db, "../app/samples")
	if code != 0 {
		t.Fatalf("re-import exit status %d", code)
	}
	for _, f := range again.Files {
		if f.Status != "unchanged" {
			t.Errorf("re-import of %s: status %q, want unchanged", f.Path, f.Status)
		}
	}
}

// A file without a header fails with a reason naming it, the good file
// beside it imports, and the exit status is non-zero.
func TestImportCommandFailureExitStatus(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "no-header.jsonl")
	os.WriteFile(bad, []byte(`{"type":"message","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"), 0o644)
	r, code := importJSON(t, filepath.Join(dir, "lib.db"), bad, "../app/samples/session-with-compaction.jsonl")
	if code == 0 {
		t.Fatal("exit status 0 although a file failed")
	}
	statuses := map[string]cliReportFile{}
	for _, f := range r.Files {
		statuses[filepath.Base(f.Path)] = cliReportFile{f.Status, f.Error}
	}
	if s := statuses["no-header.jsonl"]; s.status != "failed" || !strings.Contains(s.err, "header") {
		t.Errorf("no-header.jsonl: %+v, want failed with a reason about the header", s)
	}
	if s := statuses["session-with-compaction.jsonl"]; s.status != "imported" {
		t.Errorf("good file: %+v, want imported", s)
	}
}

type cliReportFile struct{ status, err string }

// serve prints its URL first, refuses requests without the token or from
// other origins, serves the use cases and streams import progress.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--db", filepath.Join(t.TempDir(), "lib.db"), "--addr", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("serve did not stop when its context ended")
		}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v", err)
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("first line %q is not the loopback URL with a token", url)
	}
	base, token, _ := strings.Cut(url, "/?token=")

	get := func(path string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("GET", base+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := get("/api", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api without token: %d, want 401", res.StatusCode)
	}
	if res := get("/api?token="+token, map[string]string{"Origin": "http://evil.example"}); res.StatusCode != http.StatusForbidden {
		t.Errorf("GET /api from another origin: %d, want 403", res.StatusCode)
	}
	res := get("/api?token="+token, nil)
	var list struct{ Methods []string }
	json.NewDecoder(res.Body).Decode(&list)
	if !contains(list.Methods, "Import.ImportFiles") || !contains(list.Methods, "Graph.Graph") {
		t.Fatalf("GET /api methods %v lack the use cases", list.Methods)
	}

	events := get("/api/events?token="+token, nil)
	defer events.Body.Close()
	progress := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(events.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: import:progress") {
				progress <- sc.Text()
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond) // let the event stream register

	raw, err := os.ReadFile("../app/samples/session-with-compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal([]any{[]map[string]string{{"name": "session-with-compaction.jsonl", "content": base64.StdEncoding.EncodeToString(raw)}}})
	post, err := http.Post(base+"/api/Import/ImportFiles?token="+token, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var rep cliReport
	json.NewDecoder(post.Body).Decode(&rep)
	if post.StatusCode != 200 || len(rep.Files) != 1 || rep.Files[0].Status != "imported" || rep.Files[0].Entries != 463 {
		t.Fatalf("ImportFiles: %d %+v", post.StatusCode, rep)
	}
	select {
	case <-progress:
	case <-time.After(5 * time.Second):
		t.Error("no import:progress event on /api/events")
	}

	bad, _ := http.Post(base+"/api/Graph/Node?token="+token, "application/json", strings.NewReader(`["no-such-node"]`))
	var e struct{ Error string }
	json.NewDecoder(bad.Body).Decode(&e)
	if bad.StatusCode != http.StatusNotFound || e.Error == "" {
		t.Errorf("Graph.Node of an unknown id: %d %q, want 404 with a message", bad.StatusCode, e.Error)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// serve listens on loopback only.
func TestServeRefusesNonLoopback(t *testing.T) {
	var errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--db", filepath.Join(t.TempDir(), "lib.db"), "--addr", "0.0.0.0:0"}, io.Discard, &errb)
	if code == 0 || !strings.Contains(errb.String(), "loopback") {
		t.Errorf("serve on 0.0.0.0: exit %d, stderr %q; want a refusal naming loopback", code, errb.String())
	}
}

// startServe runs `rhizome serve` with args on a fresh library until the
// test ends and returns its base URL and token.
func startServe(t *testing.T, args ...string) (base, token string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- run(ctx, append([]string{"serve", "--db", filepath.Join(t.TempDir(), "lib.db"), "--addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("serve did not stop when its context ended")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	base, token, _ = strings.Cut(strings.TrimSpace(line), "/?token=")
	return base, token
}

func callAPI(t *testing.T, base, token, method string, out any, args ...any) {
	t.Helper()
	body, _ := json.Marshal(args)
	res, err := http.Post(base+"/api/"+method+"?token="+token, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("%s: HTTP %d: %s", method, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v: %s", method, err, b)
		}
	}
}

// serve generates with any OpenAI-compatible model its settings name: here
// the fake model of the end-to-end tests (llmtest, a server speaking the
// OpenAI streaming protocol on loopback), set through Settings.SetLLM over
// HTTP as the end-to-end harness does; the loom writes three continuations.
func TestServeGeneratesWithTheFakeModel(t *testing.T) {
	fake := llmtest.NewOpenAIServer(1)
	model, stop, err := fake.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	base, token := startServe(t)
	callAPI(t, base, token, "Settings/SetLLM", nil, map[string]any{"provider": "openai", "baseUrl": model, "model": "rhizome-test", "n": 3})
	var tree struct {
		Tree struct {
			ID         string `json:"id"`
			RootNodeID string `json:"rootNodeId"`
		} `json:"tree"`
	}
	callAPI(t, base, token, "Loom/CreateTree", &tree, map[string]string{"mode": "dialogue", "rootText": "Write the opening line of a story about a lighthouse."})
	var gen struct {
		Nodes []struct {
			ID         string `json:"id"`
			AuthorType string `json:"authorType"`
			ParentID   string `json:"parentId"`
			Text       string `json:"text"`
		} `json:"nodes"`
	}
	callAPI(t, base, token, "Loom/Generate", &gen, map[string]any{"treeId": tree.Tree.ID, "activePath": map[string]string{"nodeId": tree.Tree.RootNodeID}, "n": 3})
	if len(gen.Nodes) != 3 {
		t.Fatalf("%d continuations, want 3", len(gen.Nodes))
	}
	seen := map[string]bool{}
	for _, n := range gen.Nodes {
		if n.AuthorType != "model" || n.ParentID != tree.Tree.RootNodeID || strings.TrimSpace(n.Text) == "" {
			t.Errorf("continuation %+v: want a non-empty model node under the root", n)
		}
		seen[n.Text] = true
	}
	if len(seen) != 3 {
		t.Errorf("the three continuations are not distinct: %v", seen)
	}
	var tampered []any
	callAPI(t, base, token, "Loom/Verify", &tampered, tree.Tree.ID)
	if len(tampered) != 0 {
		t.Errorf("Verify found tampering in a fresh tree: %v", tampered)
	}
}

// The text report of a file with more malformed lines than the library
// keeps says the true number and shows only the first few.
func TestImportCommandCountsMalformedLines(t *testing.T) {
	full, err := os.ReadFile("../app/samples/session-with-compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := bytes.Cut(full, []byte("\n"))
	var b bytes.Buffer
	b.Write(header)
	b.WriteString("\n")
	for i := 0; i < 10250; i++ {
		b.WriteString("not json {{\n")
	}
	b.Write(rest)
	dir := t.TempDir()
	p := filepath.Join(dir, "noisy.jsonl")
	os.WriteFile(p, b.Bytes(), 0o644)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"import", "--db", filepath.Join(dir, "lib.db"), p}, &out, &errb); code != 0 {
		t.Fatalf("exit status %d: %s", code, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "10250 malformed lines") || !strings.Contains(text, "and 10230 more malformed lines") {
		t.Errorf("the report does not say the true number:\n%s", text)
	}
	if n := strings.Count(text, "\n"); n > 30 {
		t.Errorf("the report is %d lines long", n)
	}
}

// `rhizome import` makes the sessions readable, then waits for their
// derivation and reports both moments (issue 25); with --no-wait it
// returns once they are readable, and the library says they are still
// being analysed.
func TestImportWaitsForTheDerivation(t *testing.T) {
	for _, wait := range []bool{true, false} {
		db := filepath.Join(t.TempDir(), "library.db")
		args := []string{"import", "--db", db}
		if !wait {
			args = append(args, "--no-wait")
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), append(args, pitest.SamplesDir()), &out, &errb); code != 0 {
			t.Fatalf("%v: exit status %d: %s", args, code, errb.String())
		}
		st, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		pending, err := st.DerivePending(context.Background())
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		text := out.String()
		if wait && (pending != 0 || !regexp.MustCompile(`readable after [0-9.]+ s, complete after [0-9.]+ s\n`).MatchString(text)) {
			t.Errorf("import: %d sessions still being analysed; printed:\n%s", pending, text)
		}
		if !wait && (pending != 3 || !strings.Contains(text, "summaries, knowledge and relations are left to the window")) {
			t.Errorf("import --no-wait: %d sessions still being analysed, want 3; printed:\n%s", pending, text)
		}
		r, code := importJSON(t, filepath.Join(t.TempDir(), "other.db"), append(args[3:], pitest.SamplesDir())...)
		rd, cp := r.Totals["readableSeconds"], r.Totals["completeSeconds"]
		if code != 0 || rd <= 0 || wait && cp < rd || !wait && cp != 0 {
			t.Errorf("import --json %v: readableSeconds %v, completeSeconds %v", args[3:], rd, cp)
		}
	}
}
