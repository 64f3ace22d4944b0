package gemini

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The files of a project (testdata/generate/README.md, "Where"):
//
//	~/.gemini/projects.json                         {"projects": {"/abs/project/root": "<slug>"}}
//	~/.gemini/tmp/<slug>/.project_root              "/abs/project/root"
//	~/.gemini/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl   a session (or a resume stub)
//	~/.gemini/tmp/<slug>/chats/session-<epoch ms>-<id8>.jsonl           a session made by --session-file
//	~/.gemini/tmp/<slug>/chats/<parent session id>/<agent session id>.jsonl  a sub-agent
//
// $GEMINI_CLI_HOME, when set, replaces the home folder. Before the slug
// scheme the folder was tmp/<sha256 hex of the root>/.

// Layout is what the folders around a recording say about it, which its
// lines do not: the project it belongs to, the session that ran a
// sub-agent, and whether it is a later recording of a session recorded in
// another file (a resume stub).
type Layout struct {
	// ProjectRoot is the project's absolute path: <slug>/.project_root,
	// else the root projects.json maps to the slug (or whose sha256 is the
	// folder's name); "" when neither says.
	ProjectRoot string `json:"projectRoot,omitempty"`
	// Slug is the project folder's name under tmp/.
	Slug string `json:"slug,omitempty"`
	// ParentSession is the session id of the folder a sub-agent's file is
	// in (chats/<parent session id>/<agent session id>.jsonl).
	ParentSession string `json:"parentSession,omitempty"`
	// EarlierRecording is the path of another file in the same chats
	// folder whose first line starts a recording of the same session
	// earlier (its startTime; the name breaks a tie): this file is then a
	// later recording of that session, which every resume in a later minute
	// leaves (a metadata line and the session context, no conversation;
	// README "Resume"). "" for a session's first file and for sub-agents.
	EarlierRecording string `json:"earlierRecording,omitempty"`
}

// LayoutOf reads the folders around the recording at path (see Layout).
// What it cannot read it leaves empty: a dropped file has no layout.
func LayoutOf(path string) Layout {
	var l Layout
	chats := filepath.Dir(path)
	if filepath.Base(chats) != "chats" {
		if p := filepath.Dir(chats); filepath.Base(p) == "chats" {
			l.ParentSession = filepath.Base(chats)
			chats = p
		} else {
			return l
		}
	}
	slugDir := filepath.Dir(chats)
	l.Slug = filepath.Base(slugDir)
	l.ProjectRoot = projectRoot(slugDir, l.Slug)
	if l.ParentSession == "" {
		l.EarlierRecording = earlierRecording(path, chats)
	}
	return l
}

// projectRoot is the root of the project whose folder is slugDir:
// .project_root, else projects.json two levels up (~/.gemini).
func projectRoot(slugDir, slug string) string {
	if b, err := readSmall(filepath.Join(slugDir, ".project_root")); err == nil {
		if root := strings.TrimSpace(string(b)); root != "" {
			return root
		}
	}
	b, err := readSmall(filepath.Join(filepath.Dir(filepath.Dir(slugDir)), "projects.json"))
	if err != nil {
		return ""
	}
	var pj struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &pj) != nil {
		return ""
	}
	best := ""
	for root, s := range pj.Projects {
		h := sha256.Sum256([]byte(root))
		if (s == slug || hex.EncodeToString(h[:]) == slug) && (best == "" || root < best) {
			best = root
		}
	}
	return best
}

// readSmall reads a regular file of at most 1 MiB (a pipe is never opened).
func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(path)
}

// recordingStart is what a recording's first line says: its session and
// when the recording started.
type recordingStart struct {
	SessionID string `json:"sessionId"`
	StartTime string `json:"startTime"`
}

// firstRecord reads the first line of the file at path (up to 64 KiB).
func firstRecord(path string) (recordingStart, bool) {
	var rs recordingStart
	f, err := os.Open(path)
	if err != nil {
		return rs, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return rs, false
	}
	line, err := bufio.NewReaderSize(io.LimitReader(f, 64<<10), 64<<10).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return rs, false
	}
	if json.Unmarshal(bytes.TrimSpace(line), &rs) != nil || rs.SessionID == "" {
		return rs, false
	}
	return rs, true
}

// earlierRecording finds, among the session-*-<id8>.jsonl files of chats,
// the earliest that starts a recording of path's session before path does.
func earlierRecording(path, chats string) string {
	me, ok := firstRecord(path)
	if !ok || len(me.SessionID) < 8 {
		return ""
	}
	names, err := filepath.Glob(filepath.Join(chats, "session-*-"+me.SessionID[:8]+".jsonl"))
	if err != nil {
		return ""
	}
	self := filepath.Base(path)
	best, bestStart := "", ""
	for _, p := range names {
		name := filepath.Base(p)
		if name == self {
			continue
		}
		rs, ok := firstRecord(p)
		if !ok || rs.SessionID != me.SessionID || !earlier(rs.StartTime, name, me.StartTime, self) {
			continue
		}
		if best == "" || earlier(rs.StartTime, name, bestStart, filepath.Base(best)) {
			best, bestStart = p, rs.StartTime
		}
	}
	return best
}

// earlier orders recordings by start time (ISO 8601, UTC: text order),
// then by file name.
func earlier(start, name, thanStart, thanName string) bool {
	if start != thanStart {
		return start < thanStart
	}
	return name < thanName
}
