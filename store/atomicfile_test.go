package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file written by WriteFile has exactly the bytes and the mode asked for,
// whatever the umask, and replaces the old one; no temporary is left.
func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	for i, perm := range []os.FileMode{0o600, 0o644} {
		want := []byte(fmt.Sprintf("version %d\n", i))
		if err := WriteFile(path, want, perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != string(want) {
			t.Errorf("read %q, %v; want %q", got, err, want)
		}
		if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != perm {
			t.Errorf("mode %v, want %v", fi.Mode().Perm(), perm)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder, want the file alone", len(entries))
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("x"), 0o600); err == nil ||
		!strings.Contains(err.Error(), filepath.Join(dir, "missing", "x")) {
		t.Errorf("writing into a missing folder: %v, want an error naming the file", err)
	}
}

// A write that fails half way leaves the old file as it was, and no
// temporary.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := WriteFileFrom(path, 0o600, func(w io.Writer) error {
		w.Write([]byte("new, half"))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want the write's, naming the file", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder, want the old file alone", len(entries))
	}
}

// A process killed (SIGKILL) in the middle of a write, the new bytes half
// written, leaves the old file whole under its name: the half-written bytes
// are only ever in a temporary beside it.
func TestWriteFileKilledMidWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	if path := os.Getenv("RHIZOME_ATOMIC_CHILD"); path != "" {
		// The child: write half of the new content, say so, and wait to be killed.
		WriteFileFrom(path, 0o600, func(w io.Writer) error {
			w.Write([]byte(strings.Repeat("new ", 1<<16)))
			if f, ok := w.(*os.File); ok {
				f.Sync()
			}
			fmt.Println("half written")
			time.Sleep(time.Minute)
			return nil
		})
		os.Exit(0)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	old := []byte(`{"version": 1, "secrets": {}}` + "\n")
	if err := WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileKilledMidWrite$")
	cmd.Env = append(os.Environ(), "RHIZOME_ATOMIC_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "half written\n" {
		cmd.Process.Kill()
		t.Fatalf("child said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(old) {
		t.Errorf("after a crash mid-write the file holds %d bytes (%.40q), %v; want the old %d", len(got), got, err, len(old))
	}
	entries, _ := os.ReadDir(dir)
	var temps int
	for _, e := range entries {
		if e.Name() != "secrets.json" {
			temps++
			if !strings.HasPrefix(e.Name(), ".secrets.json.") {
				t.Errorf("left behind %s, not a hidden temporary of secrets.json", e.Name())
			}
		}
	}
	if temps != 1 {
		t.Errorf("%d temporaries beside the file, want the killed write's one", temps)
	}
	// The next write succeeds and leaves no temporary of its own.
	if err := WriteFile(path, []byte("next"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "next" {
		t.Errorf("next write: %q", got)
	}
}
