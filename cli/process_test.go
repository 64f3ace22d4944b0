package cli

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rhizome/backend/pisession/pitest"
)

// These tests run rhizome as real processes: this test binary, started
// again with RHIZOME_TEST_MAIN=1, is the rhizome command (TestMain runs
// Main, as the binary's main does, without the embedded frontend).

func TestMain(m *testing.M) {
	if os.Getenv("RHIZOME_TEST_MAIN") == "1" {
		os.Exit(Main(Assets{}))
	}
	code := m.Run()
	if corpusDir != "" {
		os.RemoveAll(corpusDir)
	}
	os.Exit(code)
}

// rhizomeCmd is the command `rhizome args...`, run as a process of its own.
func rhizomeCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RHIZOME_TEST_MAIN=1")
	return cmd
}

// The corpus shared by the process tests: copies of the real samples with
// fresh session ids (pitest.WriteCorpus), corpusMB megabytes, so that its
// import lasts several seconds. RHIZOME_LOCK_TEST_MB=1400 makes it big
// enough for a 30 s import.
var (
	corpusOnce  sync.Once
	corpusDir   string
	corpusFiles int
	corpusErr   error
)

func corpusMB() int64 {
	if mb, err := strconv.Atoi(os.Getenv("RHIZOME_LOCK_TEST_MB")); err == nil && mb > 0 {
		return int64(mb)
	}
	return 200
}

func bigCorpus(t *testing.T) (dir string, files int) {
	t.Helper()
	corpusOnce.Do(func() {
		corpusDir, corpusErr = os.MkdirTemp("", "rhizome-corpus-")
		if corpusErr == nil {
			corpusFiles, _, corpusErr = pitest.WriteCorpus("../app/samples", filepath.Join(corpusDir, "sessions"), corpusMB()<<20)
		}
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return filepath.Join(corpusDir, "sessions"), corpusFiles
}

// committedSessions counts the sessions committed to the library at path,
// reading it as another process would; -1 while it has no schema yet.
func committedSessions(path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)")
	if err != nil {
		return -1
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// waitForSessions waits until the library at path holds at least n
// sessions, or the process done reports it ended.
func waitForSessions(t *testing.T, path string, n int, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for committedSessions(path) < n {
		select {
		case <-done:
			t.Fatalf("the import ended before %d sessions were committed", n)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d sessions committed after 60 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startedPids maps the result channel start returns to its process's pid.
var startedPids sync.Map

type processResult struct {
	out, err string
	code     int
	end      time.Time
}

// start starts cmd and returns a channel that gets its result once it ends.
func start(t *testing.T, cmd *exec.Cmd) <-chan processResult {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ch := make(chan processResult, 1)
	startedPids.Store((<-chan processResult)(ch), cmd.Process.Pid)
	go func() {
		cmd.Wait()
		ch <- processResult{out: out.String(), err: errb.String(), code: cmd.ProcessState.ExitCode(), end: time.Now()}
	}()
	return ch
}

// While one process imports a large corpus (a transaction per file, one
// after the other), other processes import, search and write through
// `rhizome serve` on the same library: all of them succeed, and each is done
// while the long import is still running. Before, they failed with
// "database is locked" (the import held the write lock nearly all the
// time, and opening the library took it for the migrations) or waited for
// the whole import.
func TestWritersTakeTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-corpus matrix (imports a 200 MB corpus): make test runs it")
	}
	corpus, files := bigCorpus(t)
	lib := filepath.Join(t.TempDir(), "library.db")

	long := start(t, rhizomeCmd("import", "--db", lib, "--json", corpus))
	var longRes processResult
	longDone := make(chan struct{})
	go func() { longRes = <-long; close(longDone) }()
	waitForSessions(t, lib, 1, longDone)
	began := time.Now()

	other := start(t, rhizomeCmd("import", "--db", lib, "--json", "../app/samples"))
	search := start(t, rhizomeCmd("search", "--db", lib, "--json", "bash")) // in every sample

	// rhizome serve: open the library, then a write (a new loom tree).
	serve := rhizomeCmd("serve", "--db", lib, "--addr", "127.0.0.1:0")
	serveOut, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serveErr bytes.Buffer
	serve.Stderr = &serveErr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill() })
	serveWrote := make(chan error, 1)
	var serveEnd time.Time // when the write was answered; set before serveWrote gets nil
	go func() {
		line, err := bufio.NewReader(serveOut).ReadString('\n')
		if err != nil {
			serveWrote <- fmt.Errorf("serve printed no URL (%v): %s", err, serveErr.String())
			return
		}
		go io.Copy(io.Discard, serveOut)
		base, token, _ := strings.Cut(strings.TrimSpace(line), "/?token=")
		body := `[{"mode": "dialogue", "rootText": "Written while another process imports."}]`
		res, err := http.Post(base+"/api/Loom/CreateTree?token="+token, "application/json", strings.NewReader(body))
		if err != nil {
			serveWrote <- err
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			serveWrote <- fmt.Errorf("Loom.CreateTree: HTTP %d: %s", res.StatusCode, b)
			return
		}
		serveEnd = time.Now()
		serveWrote <- nil
	}()

	otherRes, searchRes := <-other, <-search
	if err := <-serveWrote; err != nil {
		t.Errorf("serve write: %v", err)
	}
	serve.Process.Signal(syscall.SIGTERM)
	serve.Wait()
	<-longDone

	if otherRes.code != 0 {
		t.Errorf("second import: exit %d: %s %s", otherRes.code, otherRes.out, otherRes.err)
	} else {
		var rep cliReport
		json.Unmarshal([]byte(otherRes.out), &rep)
		if rep.Totals["imported"] != 3 {
			t.Errorf("second import: %v, want 3 imported", rep.Totals)
		}
	}
	var found struct{ Hits []struct{ NodeID string } }
	if searchRes.code != 0 || json.Unmarshal([]byte(searchRes.out), &found) != nil || len(found.Hits) == 0 {
		t.Errorf("search: exit %d, %s %s", searchRes.code, searchRes.out, searchRes.err)
	}
	if longRes.code != 0 {
		t.Fatalf("long import: exit %d: %s", longRes.code, longRes.err)
	}
	var rep cliReport
	if err := json.Unmarshal([]byte(longRes.out), &rep); err != nil || rep.Totals["imported"] != float64(files) {
		t.Errorf("long import: %v (%v), want %d imported", rep.Totals, err, files)
	}
	t.Logf("%d files, %d MB: long import ran %v after the others began; second import took %v, search %v, serve write %v",
		files, corpusMB(), longRes.end.Sub(began).Round(time.Millisecond), otherRes.end.Sub(began).Round(time.Millisecond),
		searchRes.end.Sub(began).Round(time.Millisecond), serveEnd.Sub(began).Round(time.Millisecond))
	for name, end := range map[string]time.Time{"second import": otherRes.end, "search": searchRes.end, "serve write": serveEnd} {
		if end.IsZero() || !end.Before(longRes.end) {
			t.Errorf("%s ended %v after the long import: it waited for the whole import", name, end.Sub(longRes.end).Round(time.Millisecond))
		}
	}
	if n := committedSessions(lib); n != files+3 {
		t.Errorf("%d sessions in the library, want %d", n, files+3)
	}
}
