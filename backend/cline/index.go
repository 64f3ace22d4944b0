package cline

// Reading Cline's session index, db/sessions.db: opened read-only, never
// locking it against the Cline process that writes it.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// IndexRow is a session's row in db/sessions.db (README "db/sessions.db"):
// one per root session and per sub-agent. Times are ISO 8601 strings in
// UTC; Metadata is the manifest's "metadata" as JSON.
type IndexRow struct {
	SessionID       string          `json:"sessionId"`
	Source          string          `json:"source,omitempty"`
	StartedAt       string          `json:"startedAt,omitempty"`
	EndedAt         string          `json:"endedAt,omitempty"`
	Status          string          `json:"status,omitempty"`
	Provider        string          `json:"provider,omitempty"`
	Model           string          `json:"model,omitempty"`
	Cwd             string          `json:"cwd,omitempty"`
	ParentSessionID string          `json:"parentSessionId,omitempty"`
	ParentAgentID   string          `json:"parentAgentId,omitempty"`
	AgentID         string          `json:"agentId,omitempty"`
	IsSubagent      bool            `json:"isSubagent,omitempty"`
	Prompt          string          `json:"prompt,omitempty"`
	MessagesPath    string          `json:"messagesPath,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
}

// Title is the row's metadata title ("" for none).
func (r *IndexRow) Title() string {
	var md wireSessionMeta
	if len(r.Metadata) == 0 || json.Unmarshal(r.Metadata, &md) != nil {
		return ""
	}
	return md.Title
}

// IndexBusyTimeout is how long, in milliseconds, a read of the index waits
// for a lock Cline holds before it fails.
const IndexBusyTimeout = 2000

// IndexPathOf is the index of the data folder holding the conversation
// document at path (<data>/sessions/<id>/<name>.messages.json gives
// <data>/db/sessions.db); "" when path is not in such a layout.
func IndexPathOf(path string) string {
	sessions := filepath.Dir(filepath.Dir(path))
	if filepath.Base(sessions) != "sessions" {
		return ""
	}
	return filepath.Join(filepath.Dir(sessions), "db", "sessions.db")
}

// ReadIndex reads every row of the session index at path, by session id.
// SQLite opens the file read-only (mode=ro) and the connection runs with
// query_only, so no statement can change it and no checkpoint is run; a
// read waits IndexBusyTimeout for a commit. It is not opened immutable:
// Cline writes the file in WAL mode, and an immutable open would read
// stale pages. The error wraps fs.ErrNotExist when there is no index; other
// errors name the path.
func ReadIndex(ctx context.Context, path string) (map[string]IndexRow, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cline: the session index %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("cline: the session index %s: not a file: %w", path, fs.ErrNotExist)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", IndexBusyTimeout))
	db, err := sql.Open("sqlite", "file:"+dsnPath(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("cline: unable to open the session index %s: %w", path, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT session_id, source, started_at, coalesce(ended_at, ''), status,
		provider, model, cwd, coalesce(parent_session_id, ''), coalesce(parent_agent_id, ''), coalesce(agent_id, ''),
		is_subagent, coalesce(prompt, ''), coalesce(messages_path, ''), coalesce(metadata_json, '')
		FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("cline: unable to read the session index %s: %w", path, err)
	}
	defer rows.Close()
	out := map[string]IndexRow{}
	for rows.Next() {
		var r IndexRow
		var md string
		if err := rows.Scan(&r.SessionID, &r.Source, &r.StartedAt, &r.EndedAt, &r.Status, &r.Provider, &r.Model, &r.Cwd,
			&r.ParentSessionID, &r.ParentAgentID, &r.AgentID, &r.IsSubagent, &r.Prompt, &r.MessagesPath, &md); err != nil {
			return nil, fmt.Errorf("cline: unable to read a row of the session index %s: %w", path, err)
		}
		if md != "" && json.Valid([]byte(md)) {
			r.Metadata = json.RawMessage(md)
		}
		out[r.SessionID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cline: unable to read the session index %s: %w", path, err)
	}
	return out, nil
}

// dsnPath escapes the characters a file: URI gives a meaning to.
func dsnPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}
