package codex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"rhizome/backend/session"
)

// IndexEntry is a thread's name in $CODEX_HOME/session_index.jsonl
// ({"id", "thread_name", "updated_at"} lines, the last one for an id wins).
type IndexEntry struct {
	ID        string `json:"id"`
	Name      string `json:"thread_name"`
	UpdatedAt string `json:"updated_at"`
}

// ReadIndex reads session_index.jsonl: each thread's latest name, and the
// lines it could not use (file, line, offset, reason). A read error is
// returned with what was read before it.
func ReadIndex(r io.Reader, file string) (map[string]IndexEntry, []session.Problem, error) {
	out := map[string]IndexEntry{}
	var problems []session.Problem
	br := bufio.NewReader(r)
	var off int64
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			t := strings.TrimSpace(string(b))
			if t != "" {
				var e IndexEntry
				if jerr := json.Unmarshal([]byte(t), &e); jerr != nil || e.ID == "" {
					reason := `no "id" string`
					if jerr != nil {
						reason = "not a JSON index line: " + jerr.Error()
					}
					if err == io.EOF {
						reason += " (last line, perhaps still being written)"
					}
					problems = append(problems, session.Problem{File: file, Line: line, Offset: off, Reason: reason})
				} else {
					out[e.ID] = e
				}
			}
			off += int64(len(b))
		}
		if err == io.EOF {
			return out, problems, nil
		}
		if err != nil {
			return out, problems, fmt.Errorf("codex: %s: line %d: read: %w", file, line, err)
		}
	}
}

var rolloutName = regexp.MustCompile(`^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-fA-F-]{36})(?:_([0-9a-fA-F-]{36}))?\.jsonl$`)

// FileName is what a rollout's path says (§2.1): the local time in its name,
// the thread id, the history window id of a 0.169 window file, and whether
// it is under archived_sessions/.
type FileName struct {
	LocalTime string // "2026-11-24T10-42-27": local time, not UTC
	ThreadID  string
	WindowID  string // "" for the thread's first file
	Archived  bool
}

// ParseFileName reads a rollout path; ok is false for another name.
func ParseFileName(path string) (FileName, bool) {
	m := rolloutName.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return FileName{}, false
	}
	dir := filepath.ToSlash(filepath.Dir(path))
	archived := strings.HasSuffix(dir, "archived_sessions") || strings.Contains(dir, "/archived_sessions/")
	return FileName{LocalTime: m[1], ThreadID: m[2], WindowID: m[3], Archived: archived}, true
}

// historyIDFromName returns the window id of a history window file name.
func historyIDFromName(file string) string {
	fn, ok := ParseFileName(file)
	if !ok {
		return ""
	}
	return fn.WindowID
}

// Superseded reports whether an entry of the thread's rollout is not part
// of the history any more because a later history window's session_meta
// (Codex 0.169 thread/revert, Metadata.HistoryBase of that window file)
// keeps only the bytes before base.EndByteOffset: the 0.169 form of
// thread_rolled_back. entryThread is the thread id of the entry's file.
func Superseded(base *HistoryBase, entryThread string, e *session.Entry) bool {
	return base != nil && base.ThreadID == entryThread && base.EndByteOffset > 0 && e.Offset >= base.EndByteOffset
}
