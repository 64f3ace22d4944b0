package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"rhizome/app"
	"rhizome/backend/llm/llmtest"
	"rhizome/store"
	"rhizome/store/storetest"
)

// samplePath is a real pi session of app/samples.
func samplePath(name string) string { return filepath.Join("..", "app", "samples", name) }

// testLib is an app over a library in a temporary file.
type testLib struct {
	*app.App
	path string
}

func newTestLib(t *testing.T) *testLib {
	t.Helper()
	p := storetest.Path(t) // migrated once per test binary, not per test
	st, err := store.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &testLib{App: app.New(st, p), path: p}
}

// testServer is a server for l on a loopback port, as `rhizome serve` runs
// it, until the test ends.
type testServer struct {
	*Server
	base  string // http://127.0.0.1:PORT
	token string
}

func startTestServer(t *testing.T, l *testLib, assets fs.FS, tune func(*Server)) *testServer {
	t.Helper()
	srv, err := New(l.App, assets)
	if err != nil {
		t.Fatal(err)
	}
	if tune != nil {
		tune(srv)
	}
	ln, url, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	base, token, _ := strings.Cut(url, "/?token=")
	return &testServer{Server: srv, base: base, token: token}
}

// post calls a use case with a client that gives up after wait.
func (ts *testServer) post(t *testing.T, method string, wait time.Duration, args ...any) (int, string) {
	t.Helper()
	body, _ := json.Marshal(args)
	c := &http.Client{Timeout: wait}
	res, err := c.Post(ts.base+"/api/"+method+"?token="+ts.token, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// In `rhizome serve`, the use cases that take paths on this machine answer
// 501 before looking at the path: a file that exists but is private, a
// missing one, a device that never ends and a real session all get the same
// status and body, which names none of them, at once; nothing is imported.
// (Before: /etc/shadow and a missing file failed with different reasons, and
// /dev/zero was read until the client gave up.)
func TestServePathCallsAnswer501(t *testing.T) {
	l := newTestLib(t)
	ts := startTestServer(t, l, nil, nil)
	secret := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(secret, []byte("private\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sample, _ := filepath.Abs(samplePath("session-with-compaction.jsonl"))
	paths := []string{"/etc/shadow", "/no/such/file.jsonl", secret, "/dev/zero", sample}
	for _, method := range []string{"Import/ImportPaths", "Loom/ImportPaths", "Loom/ImportCopyPaths"} {
		var first string
		for _, p := range paths {
			// No time is asserted: a path that were read (/dev/zero never
			// ends) would get no answer at all, the client giving up after
			// 20 s (code 0), which a loaded machine never takes to answer 501.
			code, body := ts.post(t, method, 20*time.Second, []string{p})
			if code != http.StatusNotImplemented {
				t.Errorf("%s %s: HTTP %d %s, want 501", method, p, code, body)
			}
			if strings.Contains(body, filepath.Base(p)) || strings.Contains(body, "shadow") {
				t.Errorf("%s %s: body %s names the path", method, p, body)
			}
			if first == "" {
				first = body
			} else if body != first {
				t.Errorf("%s: %s answers %s, %s answers %s; want the same", method, paths[0], first, p, body)
			}
		}
	}
	if st, err := l.Library.Stats(); err != nil || st.Sessions != 0 {
		t.Errorf("after refused path calls: %+v, %v; want an empty library", st, err)
	}
	// The window and the command line (not served) still import by path.
	window := newTestLib(t)
	if rep, err := window.Import.ImportPaths([]string{sample}); err != nil || rep.Totals.Imported != 1 {
		t.Errorf("ImportPaths outside serve: %+v, %v", rep.Totals, err)
	}
}

// A binary built without the frontend (frontend/dist held only .gitkeep)
// answers the page with one saying so and how to build it, not a bare 404;
// the API still works.
func TestServeWithoutFrontend(t *testing.T) {
	for name, assets := range map[string]fs.FS{
		"only .gitkeep": fstest.MapFS{".gitkeep": {Data: nil}},
		"no assets":     nil,
	} {
		t.Run(name, func(t *testing.T) {
			ts := startTestServer(t, newTestLib(t), assets, nil)
			for _, path := range []string{"/", "/?token=" + ts.token, "/assets/index.js"} {
				res, err := http.Get(ts.base + path)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				page := string(b)
				if res.StatusCode == http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
					!strings.Contains(page, "frontend was not built") || !strings.Contains(page, "make build") {
					t.Errorf("GET %s: HTTP %d %s %q; want a page saying the frontend was not built and to run make build",
						path, res.StatusCode, res.Header.Get("Content-Type"), page)
				}
				if strings.Contains(page, "<script") {
					t.Errorf("GET %s: the page holds a script", path)
				}
			}
			if code, body := ts.post(t, "Library/Stats", 5*time.Second); code != 200 {
				t.Errorf("Library.Stats without a frontend: HTTP %d %s", code, body)
			}
		})
	}
	// With a frontend, its index.html is served.
	ts := startTestServer(t, newTestLib(t), fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Rhizome</title>")}}, nil)
	res, err := http.Get(ts.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "<title>Rhizome</title>") {
		t.Errorf("GET / with a frontend: HTTP %d %q", res.StatusCode, b)
	}
}

// The token is compared in constant time: no == or != on the server's token
// anywhere in the package (the time a byte-by-byte comparison takes tells
// how long the right prefix of a guess is). A timing measurement on a shared
// machine would be noise; this checks the code instead.
func TestTokenComparedInConstantTime(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	isToken := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "token"
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				b, ok := n.(*ast.BinaryExpr)
				if ok && (b.Op == token.EQL || b.Op == token.NEQ) && (isToken(b.X) || isToken(b.Y)) {
					t.Errorf("%s: the token is compared with %s; use subtle.ConstantTimeCompare", fset.Position(b.Pos()), b.Op)
				}
				return true
			})
		}
	}
	// And a wrong token of the right length, a prefix and the token with a
	// byte more are refused; the token itself is not.
	ts := startTestServer(t, newTestLib(t), nil, nil)
	wrong := []byte(ts.token)
	wrong[len(wrong)-1] ^= 1
	for _, tok := range []string{string(wrong), ts.token[:len(ts.token)-1], ts.token + "0", ""} {
		res, err := http.Get(ts.base + "/api?token=" + tok)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: HTTP %d, want 401", tok, res.StatusCode)
		}
	}
	req, _ := http.NewRequest("GET", ts.base+"/api", nil)
	req.Header.Set("X-Rhizome-Token", ts.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("the token in X-Rhizome-Token: HTTP %d, want 200", res.StatusCode)
	}
}

// shortTimeouts make the timeout tests quick.
var shortTimeouts = timeouts{ReadHeader: 200 * time.Millisecond, Read: 300 * time.Millisecond, Write: 300 * time.Millisecond, Idle: 300 * time.Millisecond}

// sendRaw opens a connection to host and writes raw to it as it is; the
// connection closes when the test ends.
func sendRaw(t *testing.T, host, raw string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	return conn
}

// closedWithin reports whether the server closes conn within d (reads
// return EOF or a reset), reading and dropping what it sends first.
func closedWithin(conn net.Conn, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// The server has timeouts: a client that sends half its headers, or keeps
// an idle connection, is cut off; a body that stalls is given up on. But
// what must outlast them does: the event stream, and a call whose use case
// runs longer than the write timeout (Loom.Generate while the model writes).
func TestServeTimeouts(t *testing.T) {
	l := newTestLib(t)
	ts := startTestServer(t, l, nil, func(s *Server) { s.timeouts = shortTimeouts })
	host := strings.TrimPrefix(ts.base, "http://")

	t.Run("half the headers", func(t *testing.T) {
		conn := sendRaw(t, host, fmt.Sprintf("GET /api?token=%s HTTP/1.1\r\nHost: %s\r\n", ts.token, host))
		if !closedWithin(conn, 3*time.Second) {
			t.Error("a client sending half its headers still holds its connection after 3 s")
		}
	})

	t.Run("idle connection", func(t *testing.T) {
		conn := sendRaw(t, host, fmt.Sprintf("GET /api?token=%s HTTP/1.1\r\nHost: %s\r\n\r\n", ts.token, host))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET /api: %v %v", res, err)
		}
		if !closedWithin(conn, 3*time.Second) {
			t.Error("an idle kept-alive connection is still open after 3 s")
		}
	})

	t.Run("stalled body", func(t *testing.T) {
		conn := sendRaw(t, host, fmt.Sprintf("POST /api/Library/Stats?token=%s HTTP/1.1\r\nHost: %s\r\nContent-Length: 100\r\n\r\n[", ts.token, host))
		if !closedWithin(conn, 3*time.Second) {
			t.Error("a call whose body stalls still holds its connection after 3 s")
		}
	})

	t.Run("event stream", func(t *testing.T) {
		res, err := http.Get(ts.base + "/api/events?token=" + ts.token)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		got := make(chan string, 8)
		go func() {
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "event: ") {
					got <- sc.Text()
				}
			}
			close(got)
		}()
		time.Sleep(4 * shortTimeouts.Write) // past every timeout
		ts.broadcast("library:changed", nil)
		select {
		case ev, ok := <-got:
			if !ok || ev != "event: library:changed" {
				t.Errorf("event stream: %q (open %v), want library:changed", ev, ok)
			}
		case <-time.After(3 * time.Second):
			t.Error("no event on a stream older than the timeouts")
		}
	})

	t.Run("long call", func(t *testing.T) {
		fake := llmtest.NewOpenAIServer(1)
		fake.ChunkDelay = 150 * time.Millisecond // 6 chunks or more: over 900 ms
		model, stop, err := fake.Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer stop(t.Context())
		if _, err := l.Settings.SetLLM(app.LLMSettingsInput{Provider: "openai", BaseURL: model, Model: "rhizome-test", N: 1}); err != nil {
			t.Fatal(err)
		}
		tree, err := l.Loom.CreateTree(app.LoomTreeSpec{Mode: "dialogue", RootText: "Begin a story about a lighthouse."})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		code, body := ts.post(t, "Loom/Generate", 30*time.Second,
			app.LoomGenerateRequest{TreeID: tree.Tree.ID, ActivePath: app.ActivePath{NodeID: tree.Tree.RootNodeID}, N: 1})
		took := time.Since(start)
		if took < 3*shortTimeouts.Write {
			t.Fatalf("Loom.Generate took %s: too quick to test the write timeout", took)
		}
		var gen app.LoomGenerated
		if code != 200 || json.Unmarshal([]byte(body), &gen) != nil || len(gen.Nodes) != 1 {
			t.Errorf("Loom.Generate over %s (write timeout %s): HTTP %d %s", took, shortTimeouts.Write, code, body)
		}
	})
}

// `rhizome serve` serves exactly the use cases the window binds: every
// exported method of every area of app.App.Areas (what Wails binds, and what
// build/contract writes into the frontend's method list), each under
// "Area.Method", and nothing else; GET /api lists them.
func TestServedMethodsAreTheBoundOnes(t *testing.T) {
	l := newTestLib(t)
	var bound []string
	for _, area := range l.Areas() {
		typ := reflect.TypeOf(area.Impl)
		for i := 0; i < typ.NumMethod(); i++ {
			bound = append(bound, area.Name+"."+typ.Method(i).Name)
		}
	}
	sort.Strings(bound)
	ts := startTestServer(t, l, nil, nil)
	served := ts.methodNames()
	for _, m := range bound {
		if !slices.Contains(served, m) {
			t.Errorf("%s is bound to the window but not served: add it to useCases (methods.go)", m)
		}
	}
	for _, m := range served {
		if !slices.Contains(bound, m) {
			t.Errorf("%s is served but bound to no window", m)
		}
	}
	res, err := http.Get(ts.base + "/api?token=" + ts.token)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct{ Methods []string }
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || !slices.Equal(list.Methods, served) {
		t.Errorf("GET /api: %v %v, want %v", list.Methods, err, served)
	}
	// A call with the wrong number of arguments, or one that does not
	// decode, is the caller's error (400), named.
	if code, body := ts.post(t, "Loom/Diff", 5*time.Second, "a", "b"); code != 400 || !strings.Contains(body, "takes 4 arguments, got 2") {
		t.Errorf("Loom.Diff with 2 arguments: HTTP %d %s", code, body)
	}
	if code, body := ts.post(t, "Library/SegmentEntries", 5*time.Second, "n", "zero", 0); code != 400 || !strings.Contains(body, "argument 2") {
		t.Errorf("Library.SegmentEntries with a string offset: HTTP %d %s", code, body)
	}
	if code, body := ts.post(t, "Library/NoSuch", 5*time.Second); code != 404 || !strings.Contains(body, "no such method") {
		t.Errorf("an unknown method: HTTP %d %s", code, body)
	}
}
