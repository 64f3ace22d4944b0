package eval

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// TurnRef is where a turn went in the written sessions: the pi session's
// id and the entry's id in it, which the library's URI for the entry
// names (rhizome:entry/<session>/<entry>).
type TurnRef struct {
	Session string
	Entry   string
}

// Written are the files WritePiSessions wrote and how to map a search hit
// back to the benchmark: the turn of each entry, the conversation and
// session of each pi session.
type Written struct {
	Files []string
	// Turn is the benchmark's turn id of each entry.
	Turn map[TurnRef]string
	// Session is the benchmark's session id of each pi session id.
	Session map[string]string
	// Project is each conversation's project (its sessions' working
	// directory), by index into Benchmark.Conversations: a search filtered
	// by it searches that conversation alone.
	Project []string
}

// turnSpacing is the time between two turns of a session, which the
// benchmarks do not give (they date sessions, not turns).
const turnSpacing = 30 * time.Second

// WritePiSessions writes every session of b as a pi session file (format
// version 3, one message entry per turn, the speaker's name before the
// text: "Caroline: ...") under dir, one folder per conversation, and
// returns what it wrote. A conversation's sessions share one working
// directory, /eval/<benchmark>/<conversation id>, its project. A session
// without a date gets 2000-01-01 plus its index in days. Errors are the
// file system's.
func WritePiSessions(b *Benchmark, dir string) (*Written, error) {
	w := &Written{Turn: map[TurnRef]string{}, Session: map[string]string{}}
	for ci, c := range b.Conversations {
		project := fmt.Sprintf("/eval/%s/%s", b.Name, c.ID)
		w.Project = append(w.Project, project)
		sub := filepath.Join(dir, fmt.Sprintf("c%04d", ci))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		for si, s := range c.Sessions {
			id := sessionUUID(b.Name, c.ID, s.ID)
			w.Session[id] = s.ID
			start := s.Time
			if start.IsZero() {
				start = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, si)
			}
			path := filepath.Join(sub, fmt.Sprintf("s%04d_%s.jsonl", si, id))
			if err := writePiSession(path, id, project, start, c, s, w); err != nil {
				return nil, err
			}
			w.Files = append(w.Files, path)
		}
	}
	return w, nil
}

// writePiSession writes one session as a pi v3 file.
func writePiSession(path, id, project string, start time.Time, c Conversation, s Session, w *Written) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	stamp := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	enc.Encode(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": stamp(start), "cwd": project})
	parent := any(nil)
	for ti, t := range s.Turns {
		at := start.Add(time.Duration(ti) * turnSpacing)
		entry := fmt.Sprintf("t%05d", ti)
		w.Turn[TurnRef{Session: id, Entry: entry}] = t.ID
		text := t.Text
		if t.Speaker != "" && t.Speaker != t.Role {
			text = t.Speaker + ": " + text
		}
		msg := map[string]any{"role": t.Role, "content": []map[string]string{{"type": "text", "text": text}}, "timestamp": at.UnixMilli()}
		if t.Role == "assistant" {
			msg["provider"], msg["model"], msg["api"] = "eval", c.SpeakerB, "eval"
			msg["stopReason"] = "stop"
		}
		enc.Encode(map[string]any{"type": "message", "id": entry, "parentId": parent, "timestamp": stamp(at), "message": msg})
		parent = entry
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("eval: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// sessionUUID is a stable UUID-shaped id for a benchmark's session.
func sessionUUID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
