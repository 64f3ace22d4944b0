package claudecode

import "encoding/json"

// The JSON shapes of a Claude Code session line, as far as the reader uses
// them (claude-code-codex-formats.md §1.2, §1.3); everything else stays in
// the entry's Raw.

// wireLine is one line of a session file: the envelope of chain lines and
// the fields of every line type the reader maps.
type wireLine struct {
	Type              string  `json:"type"`
	Subtype           string  `json:"subtype"`
	UUID              string  `json:"uuid"`
	ParentUUID        *string `json:"parentUuid"`
	LogicalParentUUID string  `json:"logicalParentUuid"`
	IsSidechain       bool    `json:"isSidechain"`
	SessionID         string  `json:"sessionId"`
	Timestamp         string  `json:"timestamp"`
	Cwd               string  `json:"cwd"`
	GitBranch         string  `json:"gitBranch"`
	Version           string  `json:"version"`
	AgentID           string  `json:"agentId"`
	PromptID          string  `json:"promptId"`
	IsMeta            bool    `json:"isMeta"`
	// Origin says who wrote a user line that no person typed (2.1.332:
	// {"kind": "task-notification"} for a background sub-agent's result).
	Origin *struct {
		Kind string `json:"kind"`
	} `json:"origin"`
	IsCompactSummary  bool   `json:"isCompactSummary"`
	IsAPIErrorMessage bool   `json:"isApiErrorMessage"`
	RequestID         string `json:"requestId"`

	Message       *wireMessage    `json:"message"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`

	// system
	Content         json.RawMessage  `json:"content"`
	CompactMetadata *compactMetadata `json:"compactMetadata"`

	// attachment
	Attachment *wireAttachment `json:"attachment"`

	// progress
	Data            *wireProgress `json:"data"`
	ParentToolUseID string        `json:"parentToolUseID"`

	// metadata lines
	Summary        string `json:"summary"`
	LeafUUID       string `json:"leafUuid"`
	AITitle        string `json:"aiTitle"`
	CustomTitle    string `json:"customTitle"`
	LastPrompt     string `json:"lastPrompt"`
	AgentName      string `json:"agentName"`
	PermissionMode string `json:"permissionMode"`
	Mode           string `json:"mode"`
	Operation      string `json:"operation"`
	MessageID      string `json:"messageId"`

	// codex and pi, to say what a file is when it is not Claude Code's
	Payload json.RawMessage `json:"payload"`
}

type wireMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason *string         `json:"stop_reason"`
	Usage      *wireUsage      `json:"usage"`
}

// wireUsage is an Anthropic usage object (§1.5).
type wireUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreation            *struct {
		Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	ServerToolUse *struct {
		WebSearchRequests int64 `json:"web_search_requests"`
	} `json:"server_tool_use"`
}

// wireBlock is a content block (§1.3).
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Data      string          `json:"data"` // redacted_thinking
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: string or blocks
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

type compactMetadata struct {
	Trigger          string `json:"trigger"`
	PreTokens        int64  `json:"preTokens"`
	PostTokens       int64  `json:"postTokens"`
	PreservedSegment *struct {
		HeadUUID string `json:"headUuid"`
	} `json:"preservedSegment"`
}

type wireAttachment struct {
	Type   string          `json:"type"`
	Prompt json.RawMessage `json:"prompt"` // queued_command: a string or a block list
}

type wireProgress struct {
	Type    string `json:"type"`
	AgentID string `json:"agentId"`
}

// toolUseResult fields the reader reads: the sub-agent a Task/Agent call
// spawned and where a large output was saved.
type wireToolUseResult struct {
	AgentID             string `json:"agentId"`
	PersistedOutputPath string `json:"persistedOutputPath"`
	PersistedOutputSize int64  `json:"persistedOutputSize"`
}
