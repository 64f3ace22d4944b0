package cline

import "encoding/json"

// The JSON shapes Cline CLI 3.0.65 writes (testdata/generate/README.md, "On-disk
// format"). Fields Rhizome does not use are not decoded: they stay in the
// entries' Raw.

// wireOrigin is a messages document's "origin".
type wireOrigin struct {
	Source         string `json:"source"`
	Mode           string `json:"mode"`
	SessionID      string `json:"sessionId"`
	ParentThreadID string `json:"parentThreadId"`
	Subagent       string `json:"subagent"`
	Version        string `json:"version"`
}

// wireMessage is one element of "messages" (Anthropic-style blocks).
type wireMessage struct {
	ID        string           `json:"id"`
	Role      string           `json:"role"`
	Content   json.RawMessage  `json:"content"`
	TS        *int64           `json:"ts"` // Unix milliseconds
	ModelInfo *wireModelInfo   `json:"modelInfo"`
	Metrics   *wireMetrics     `json:"metrics"`
	Metadata  *wireMessageMeta `json:"metadata"`
}

type wireModelInfo struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
}

// wireMetrics is one model call's reported usage: inputTokens counts the
// cached prompt tokens too (cacheReadTokens); cost in USD when the provider
// or the model's catalogue price gives one.
type wireMetrics struct {
	InputTokens      int64    `json:"inputTokens"`
	OutputTokens     int64    `json:"outputTokens"`
	CacheReadTokens  int64    `json:"cacheReadTokens"`
	CacheWriteTokens int64    `json:"cacheWriteTokens"`
	Cost             *float64 `json:"cost"`
	TotalCost        *float64 `json:"totalCost"`
}

// wireMessageMeta is a message's "metadata": an error shown to the person
// (displayRole "error"), a compaction summary (kind "compaction_summary",
// automatic) or notice (kind "compaction", overflow recovery).
type wireMessageMeta struct {
	Kind            string          `json:"kind"`
	Reason          string          `json:"reason"`
	DisplayRole     string          `json:"displayRole"`
	DisplayOnly     bool            `json:"displayOnly"`
	Summary         string          `json:"summary"`
	TokensBefore    int64           `json:"tokensBefore"`
	MessagesRemoved int             `json:"messagesRemoved"`
	UsageBefore     *wireMetrics    `json:"usageBefore"`
	Details         json.RawMessage `json:"details"`
}

// wireBlock is one content block: text, thinking (redacted_thinking),
// tool_use {id, name, input}, tool_result {tool_use_id, name, content,
// is_error}, image {data, mediaType} or {source: {data, media_type}}.
type wireBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text"`
	Thinking  string           `json:"thinking"`
	Data      string           `json:"data"`
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Input     json.RawMessage  `json:"input"`
	ToolUseID string           `json:"tool_use_id"`
	Content   json.RawMessage  `json:"content"`
	IsError   bool             `json:"is_error"`
	MediaType string           `json:"mediaType"`
	MimeType  string           `json:"mimeType"`
	Source    *wireImageSource `json:"source"`
}

type wireImageSource struct {
	Data      string `json:"data"`
	MediaType string `json:"media_type"`
}

// wireItem is one item of a tool result's list content (run_commands,
// read_files, search_codebase), or the object a string content holds
// (editor, spawn_agent).
type wireItem struct {
	Query   string          `json:"query"`
	Result  json.RawMessage `json:"result"`
	Success *bool           `json:"success"`
	Error   string          `json:"error"`
	Text    string          `json:"text"`
	Type    string          `json:"type"`
}

// wireManifest is a root session's <id>.json.
type wireManifest struct {
	SessionID     string          `json:"session_id"`
	Source        string          `json:"source"`
	StartedAt     string          `json:"started_at"`
	EndedAt       string          `json:"ended_at"`
	Status        string          `json:"status"`
	Interactive   bool            `json:"interactive"`
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	Cwd           string          `json:"cwd"`
	WorkspaceRoot string          `json:"workspace_root"`
	Prompt        string          `json:"prompt"`
	Metadata      json.RawMessage `json:"metadata"`
}

// wireSessionMeta is the manifest's (and the index row's) "metadata".
type wireSessionMeta struct {
	Title string `json:"title"`
}

// wireCompaction is <id>.compaction.json: the compacted view of the first
// source_message_count messages.
type wireCompaction struct {
	UpdatedAt            string          `json:"updated_at"`
	ConversationID       string          `json:"conversation_id"`
	SourceMessageCount   int             `json:"source_message_count"`
	SourceLastMessageKey string          `json:"source_last_message_key"`
	Messages             []wireMessage   `json:"messages"`
	Raw                  json.RawMessage `json:"-"`
}
