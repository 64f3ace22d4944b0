package codex

import "encoding/json"

// The JSON shapes of a Codex rollout line, as far as the reader uses them
// (claude-code-codex-formats.md §2.2, §2.3); everything else stays in the
// entry's Raw.

// wireLine is an enveloped line {timestamp, type, payload, ordinal?} or,
// in the bare era, a session header {id, timestamp, instructions, git}, a
// bare response item {type, role, content, ...} or {"record_type":"state"}.
type wireLine struct {
	Timestamp  string          `json:"timestamp"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	ID         string          `json:"id"`
	RecordType string          `json:"record_type"`
}

// wirePayload holds the fields of every payload the reader maps.
type wirePayload struct {
	Type string `json:"type"`

	// session_meta
	ID            string          `json:"id"`
	SessionID     string          `json:"session_id"`
	Timestamp     string          `json:"timestamp"`
	Cwd           string          `json:"cwd"`
	Originator    string          `json:"originator"`
	CLIVersion    string          `json:"cli_version"`
	Source        json.RawMessage `json:"source"`
	ThreadSource  string          `json:"thread_source"`
	ForkedFromID  string          `json:"forked_from_id"`
	ParentThread  string          `json:"parent_thread_id"`
	ModelProvider string          `json:"model_provider"`
	AgentNickname string          `json:"agent_nickname"`
	AgentRole     string          `json:"agent_role"`
	HistoryMode   string          `json:"history_mode"`
	HistoryBase   *HistoryBase    `json:"history_base"`
	ContextWindow *struct {
		WindowID string `json:"window_id"`
	} `json:"context_window"`

	// turn_context, events
	TurnID string `json:"turn_id"`
	Model  string `json:"model"`

	// response_item
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string (older files: an object)
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	Passthru  *struct {
		TurnID string `json:"turn_id"`
	} `json:"internal_chat_message_metadata_passthrough"`

	// event_msg
	Message       json.RawMessage `json:"message"` // user_message, agent_message: a string; compacted: a string
	Text          string          `json:"text"`    // agent_reasoning
	Info          *tokenInfo      `json:"info"`    // token_count
	NumTurns      int             `json:"num_turns"`
	Item          *turnItem       `json:"item"`          // item_completed
	NewThreadID   string          `json:"new_thread_id"` // collab_agent_spawn_end
	ReceiverID    string          `json:"receiver_thread_id"`
	LastAgentText string          `json:"last_agent_message"`
	// thread_settings_applied
	ThreadSettings *struct {
		Model string `json:"model"`
	} `json:"thread_settings"`

	// token_usage_record
	ResponseID string      `json:"response_id"`
	Usage      *tokenUsage `json:"usage"`

	// compacted
	ReplacementHistory json.RawMessage `json:"replacement_history"`
}

// HistoryBase is where a paginated thread's history starts in another file
// (Codex 0.169 forks): the first EndOrdinalExclusive lines, EndByteOffset
// bytes, of the rollout of thread ThreadID.
type HistoryBase struct {
	ThreadID            string `json:"thread_id"`
	EndOrdinalExclusive int64  `json:"end_ordinal_exclusive"`
	EndByteOffset       int64  `json:"end_byte_offset"`
}

type tokenInfo struct {
	Total *tokenUsage `json:"total_token_usage"`
	Last  *tokenUsage `json:"last_token_usage"`
}

// tokenUsage is one Codex token count (§2.5): input includes cached (and
// cache_write) input, output includes reasoning.
type tokenUsage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Reasoning  int64 `json:"reasoning_output_tokens"`
	Total      int64 `json:"total_tokens"`
}

// turnItem is the item of a 0.169 item_completed event (TurnItem).
type turnItem struct {
	Type        string          `json:"type"`
	ID          string          `json:"id"`
	Content     json.RawMessage `json:"content"`
	SummaryText []string        `json:"summary_text"`
	Text        string          `json:"text"`
}

// contentItem is a message content item: input_text, output_text,
// input_image {image_url}; item_completed content: text / Text.
type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// sourceSubagent is session_meta.source for a sub-agent thread.
type sourceSubagent struct {
	Subagent *struct {
		ThreadSpawn *struct {
			ParentThreadID string `json:"parent_thread_id"`
			Depth          int    `json:"depth"`
			AgentNickname  string `json:"agent_nickname"`
			AgentRole      string `json:"agent_role"`
		} `json:"thread_spawn"`
	} `json:"subagent"`
}
