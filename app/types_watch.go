package app

// The shapes of app/watch.go: the watched folders: the Watch area's part of
// the contract with the frontend (types.go says how it is kept).

// WatchedFolder is a folder the watcher follows: a default one (an agent's
// session folder; Agent names it) or one added, with its switch and whether
// it exists on this machine.
type WatchedFolder struct {
	Path    string `json:"path"`
	Agent   string `json:"agent,omitempty" ts_type:"'pi' | 'claude-code' | 'codex' | 'qwen-code' | 'copilot-cli' | 'gemini-cli' | 'cline' | 'opencode' | ''"`
	Default bool   `json:"default"`
	Enabled bool   `json:"enabled"`
	Exists  bool   `json:"exists"`
}

// WatchStatus is the watcher's state: whether it runs, the folders it
// follows, its last import (ISO 8601) and how many it made, the last error,
// and LiveSeconds (a session imported that recently is live).
type WatchStatus struct {
	Running     bool     `json:"running"`
	Folders     []string `json:"folders"`
	LastImport  string   `json:"lastImport,omitempty"`
	Imports     int      `json:"imports"`
	LastError   string   `json:"lastError,omitempty"`
	LiveSeconds int      `json:"liveSeconds"`
}

// WatchImported is the payload of "watch:imported": the files an import of
// the watcher imported, appended to or failed on, when (ISO 8601) and how
// long it took (milliseconds). Initial: the watcher's first pass over the
// folders (what they held when it started), whose sessions are not being
// written for all it knows; a later import's sessions are live.
type WatchImported struct {
	At      string       `json:"at"`
	Millis  int64        `json:"millis"`
	Initial bool         `json:"initial,omitempty"`
	Files   []FileReport `json:"files"`
	Totals  ImportTotals `json:"totals"`
}
