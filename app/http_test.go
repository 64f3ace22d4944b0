package app

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testServer is a Server for l on a loopback port, as `rhizome serve` runs
// it, until the test ends.
type testServer struct {
	*Server
	base  string // http://127.0.0.1:PORT
	token string
}

func startTestServer(t *testing.T, l *testLib, assets fs.FS, tune func(*Server)) *testServer {
	t.Helper()
	srv, err := NewServer(l.App, assets)
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
	hs := &http.Server{Handler: srv}
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
	sample, _ := filepath.Abs(filepath.Join("samples", "session-with-compaction.jsonl"))
	paths := []string{"/etc/shadow", "/no/such/file.jsonl", secret, "/dev/zero", sample}
	for _, method := range []string{"Import/ImportPaths", "Loom/ImportPaths"} {
		var first string
		for _, p := range paths {
			start := time.Now()
			code, body := ts.post(t, method, 5*time.Second, []string{p})
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("%s %s: answered after %s", method, p, took)
			}
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
	if rep := window.importPaths(t, sample); rep.Totals.Imported != 1 {
		t.Errorf("ImportPaths outside serve: %+v", rep.Totals)
	}
}
