package opencode

import "encoding/json"

// The JSON shapes of a document (see the package comment), as far as the
// reader uses them (testdata/generate/README.md, "On-disk format"); every
// other column and field stays in the entries' Raw.

// wireSession is the session row: its columns as Export writes them.
type wireSession struct {
	ID          string          `json:"id"`
	ProjectID   string          `json:"project_id"`
	ParentID    *string         `json:"parent_id"`
	Slug        string          `json:"slug"`
	Directory   string          `json:"directory"`
	Title       string          `json:"title"`
	Version     string          `json:"version"`
	Agent       *string         `json:"agent"`
	Model       json.RawMessage `json:"model"` // {"id", "providerID", "variant"}
	Cost        float64         `json:"cost"`  // USD, OpenCode's running total of the session's own messages
	TimeCreated int64           `json:"time_created"`
	TimeUpdated int64           `json:"time_updated"`
}

// wireProject is the project row.
type wireProject struct {
	ID       string  `json:"id"`
	Worktree string  `json:"worktree"`
	Name     *string `json:"name"`
}

// wireModelRef is the session's model column and a user message's model.
type wireModelRef struct {
	ID         string `json:"id"`      // session.model
	ModelID    string `json:"modelID"` // a user message's model
	ProviderID string `json:"providerID"`
}

// wireMessage is a message row's data: a user or an assistant message
// (OpenCode's MessageV2.Info without id and sessionID, which are columns).
type wireMessage struct {
	Role     string `json:"role"`
	ParentID string `json:"parentID"` // an assistant message: the user message it answers
	Mode     string `json:"mode"`
	Agent    string `json:"agent"`
	Time     struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	Model      *wireModelRef   `json:"model"` // a user message's
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Cost       float64         `json:"cost"` // USD
	Tokens     *wireTokens     `json:"tokens"`
	Finish     string          `json:"finish"`
	Error      json.RawMessage `json:"error"`   // {"name", "data": {"message", ...}}
	Summary    json.RawMessage `json:"summary"` // true on a compaction's summary; {"diffs": [...]} on a user message
}

// wireTokens is an assistant message's or step-finish part's tokens: input
// is the uncached prompt, cache.read the cached part, output excludes
// reasoning; total = input + cache + output + reasoning.
type wireTokens struct {
	Total     *int64 `json:"total"`
	Input     int64  `json:"input"`
	Output    int64  `json:"output"`
	Reasoning int64  `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// wirePartRow is a part row: its columns, data decoded.
type wirePartRow struct {
	ID          string   `json:"id"`
	MessageID   string   `json:"message_id"`
	TimeCreated int64    `json:"time_created"`
	Data        wirePart `json:"data"`
}

// wirePart is a part row's data (OpenCode's MessageV2.Part without id,
// messageID and sessionID): the fields of every part type this reader
// maps, told apart by type.
type wirePart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"` // text, reasoning
	Synthetic bool            `json:"synthetic"`
	Ignored   bool            `json:"ignored"`
	Metadata  json.RawMessage `json:"metadata"` // text: {"compaction_continue": true}; reasoning: provider data

	// tool
	Tool   string         `json:"tool"`
	CallID string         `json:"callID"`
	State  *wireToolState `json:"state"`

	// file
	Mime     string `json:"mime"`
	Filename string `json:"filename"`
	URL      string `json:"url"`

	// step-finish
	Reason string      `json:"reason"`
	Tokens *wireTokens `json:"tokens"`
	Cost   float64     `json:"cost"`

	// patch
	Files []string `json:"files"`

	// compaction
	Auto     bool `json:"auto"`
	Overflow bool `json:"overflow"`

	// agent, subtask
	Name        string `json:"name"`
	Prompt      string `json:"prompt"`
	Description string `json:"description"`
	Agent       string `json:"agent"`

	// retry
	Attempt int             `json:"attempt"`
	Error   json.RawMessage `json:"error"`
}

// wireToolState is a tool part's state: pending, running, completed or
// error (only the last state is kept in the row).
type wireToolState struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Output      string          `json:"output"`
	Error       string          `json:"error"`
	Title       string          `json:"title"`
	Metadata    json.RawMessage `json:"metadata"` // the tool's own: exit, truncated, outputPath, diff, sessionId, ...
	Time        json.RawMessage `json:"time"`     // {"start", "end", "compacted"?}
	Attachments []wirePart      `json:"attachments"`
}

// wireTodo is a todo row.
type wireTodo struct {
	Content     string `json:"content"`
	Status      string `json:"status"`
	Priority    string `json:"priority"`
	Position    int64  `json:"position"`
	TimeUpdated int64  `json:"time_updated"`
}

// wireFile is a referenced file as Export writes it, without its content
// ("text" or "base64"), which the reader leaves in the message's Raw.
type wireFile struct {
	Part    string `json:"part"`
	Name    string `json:"name"`
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	Missing bool   `json:"missing"`
	Error   string `json:"error"`
	Omitted string `json:"omitted"`
}
