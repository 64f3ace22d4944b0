package app

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/app/ingest"
)

// importCountScript counts, in Python, what a session file holds, knowing
// nothing of Rhizome's readers: per file its size, its complete lines, its
// blank lines, the JSON objects on its lines (several may share a line),
// the values or rests of lines that are not objects (malformed), and
// whether it ends in a half-written line. A pi file's first object is its
// header, not an entry; a pi object without "type" is not an entry.
const importCountScript = `
import json, sys
dec = json.JSONDecoder()
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    parts = data.split(b"\n")
    last = parts.pop()
    lines = blank = objects = malformed = 0
    pending = 0
    pi = None
    def scan(raw, first):
        global objects, malformed, pi
        s = raw.decode("utf-8", "surrogateescape")
        if first:
            s = s.lstrip("\ufeff")
        s = s.strip(" \t\r\n")
        i, n, bad = 0, 0, 0
        while i < len(s):
            try:
                v, j = dec.raw_decode(s, i)
            except ValueError:
                return n, bad + 1, False
            if pi is None:
                pi = isinstance(v, dict) and v.get("type") == "session"
            if isinstance(v, dict) and (not pi or "type" in v):
                n += 1
            else:
                bad += 1
            while j < len(s) and s[j] in " \t\r\n":
                j += 1
            i = j
        return n, bad, True
    for k, raw in enumerate(parts):
        lines += 1
        if not raw.strip(b" \t\r\n") or (k == 0 and raw.strip(b" \t\r\n") == b"\xef\xbb\xbf"):
            blank += 1
            continue
        n, bad, _ = scan(raw, k == 0)
        objects += n
        malformed += bad
    if last.strip(b" \t\r\n"):
        n, bad, whole = scan(last, not parts)
        if whole and bad == 0:
            objects += n
            lines += 1
        else:
            pending = 1
    entries = objects - 1 if pi else objects
    print(path, len(data), lines, blank, entries, malformed, pending)
`

// Every line of every file is accounted for (issue 11 §4), against a count
// written in Python (importCountScript): for each real file of the three
// formats, as is and with each corruption, the library's entries are the
// file's objects (less pi's header), its malformed count the file's values
// and rests that are not entries, its lines the complete lines, its pending
// tail the half-written last line; and the bytes of the entries' objects
// and of the gaps between them add up to the file's size. It skips when
// python3 is not installed.
func TestEveryLineAccountedForInTheLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-corpus matrix (every real file with each corruption, counted twice): make test runs it")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the independent line count needs it")
	}
	// One folder, and one library, per corruption: the copies of a file
	// share its session id.
	root := t.TempDir()
	var paths []string
	for format, files := range everyRealFile(t) {
		for i, path := range files {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for k, c := range corruptions {
				// The file keeps its name (a Codex history window's id is
				// in it), in a folder of its own.
				dir := filepath.Join(root, fmt.Sprint(k), fmt.Sprintf("%s-%d", format, i))
				os.MkdirAll(dir, 0o755)
				p := filepath.Join(dir, filepath.Base(path))
				if err := os.WriteFile(p, c.do(orig), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
		}
	}
	out, err := exec.Command(py, append([]string{"-c", importCountScript}, paths...)...).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	rows := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(rows) != len(paths) {
		t.Fatalf("python3 counted %d files of %d", len(rows), len(paths))
	}
	libs := map[string]*sql.DB{}
	for k := range corruptions {
		dir := filepath.Join(root, fmt.Sprint(k))
		l := newTestLib(t)
		rep := l.importPaths(t, dir)
		for _, f := range rep.Files {
			if f.Status == ingest.StatusFailed {
				t.Errorf("%s: %s", f.Path, f.Error)
			}
		}
		libs[dir] = l.db(t)
	}
	if t.Failed() {
		t.FailNow()
	}
	var totalLines, totalEntries int
	for _, row := range rows {
		var path string
		var size int64
		var lines, blank, entries, malformed, pending int
		if _, err := fmt.Sscan(row, &path, &size, &lines, &blank, &entries, &malformed, &pending); err != nil {
			t.Fatalf("python3 output %q: %v", row, err)
		}
		db := libs[filepath.Dir(filepath.Dir(path))]
		var gotEntries, gotMalformed, gotLines, gotPending, stored int
		var fileBytes, rawBytes, gapBytes int64
		err := db.QueryRow(`SELECT s.entries, s.malformed, s.lines, s.pending_tail, s.file_bytes,
			(SELECT count(*) FROM entries e WHERE e.session_pk = s.pk),
			(SELECT coalesce(sum(length(CAST(unpack_raw(e.raw) AS BLOB))), 0) FROM entries e WHERE e.session_pk = s.pk),
			(SELECT coalesce(sum(length(g.bytes)), 0) FROM session_gaps g WHERE g.session_pk = s.pk)
			FROM sessions s WHERE s.path = ?`, path).Scan(&gotEntries, &gotMalformed, &gotLines, &gotPending, &fileBytes, &stored, &rawBytes, &gapBytes)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// The bytes no row holds are the one-byte "\n" and two-byte
		// "\r\n" line ends left implicit: at most two per line.
		implicit := fileBytes - rawBytes - gapBytes
		if gotEntries != entries || stored != entries || gotMalformed != malformed || gotLines != lines ||
			gotPending != pending || fileBytes != size || implicit < 0 || implicit > 2*int64(lines+1) {
			t.Errorf("%s: python counts %d bytes, %d lines (%d blank), %d entries, %d malformed, pending %d;\n"+
				"library: %d bytes (%d in objects, %d in gaps), %d lines, %d entries (%d stored), %d malformed, pending %d",
				filepath.Base(path), size, lines, blank, entries, malformed, pending,
				fileBytes, rawBytes, gapBytes, gotLines, gotEntries, stored, gotMalformed, gotPending)
		}
		totalLines += lines
		totalEntries += entries
	}
	t.Logf("%d files, %d lines, %d entries: every one accounted for", len(rows), totalLines, totalEntries)
}
