package copilot

import "encoding/json"

// The JSON shapes of a Copilot CLI event, as far as the reader uses them
// (testdata/generate/README.md, "events.jsonl"; the official shapes are
// Copilot CLI's schemas/session-events.schema.json). Everything else stays
// in the entry's Raw.
//
// One struct holds the data fields of every event type the reader maps,
// decoded in one pass with the envelope. Fields whose JSON type differs
// between event types are kept raw: "message" (a string in session.error,
// an object in model.message), "error" (an object in
// tool.execution_complete, a string in a cancelled compaction), "content"
// (a string in messages; kept raw so that another type is a warning, not a
// lost line).

// wireEvent is one line: {type, data, id, timestamp, parentId, agentId?}.
type wireEvent struct {
	Type      string    `json:"type"`
	Data      *wireData `json:"data"`
	ID        string    `json:"id"`
	Timestamp string    `json:"timestamp"`
	ParentID  *string   `json:"parentId"`
	AgentID   string    `json:"agentId"`
}

// wireData holds the data fields of the event types the reader maps.
type wireData struct {
	// session.start, session.resume
	SessionID      string       `json:"sessionId"`
	CopilotVersion string       `json:"copilotVersion"`
	Producer       string       `json:"producer"`
	StartTime      string       `json:"startTime"`
	SelectedModel  string       `json:"selectedModel"`
	Context        *wireContext `json:"context"`

	// user.message, assistant.message, system.message, assistant.turn_*, tool.*
	Content         json.RawMessage  `json:"content"`
	Source          string           `json:"source"`
	Attachments     []wireAttachment `json:"attachments"`
	InteractionID   string           `json:"interactionId"`
	Model           string           `json:"model"`
	ToolRequests    []wireToolCall   `json:"toolRequests"`
	ReasoningText   string           `json:"reasoningText"`
	ReasoningOpaque string           `json:"reasoningOpaque"`
	APICallID       string           `json:"apiCallId"`
	ParentToolCall  string           `json:"parentToolCallId"`

	// tool.execution_start, tool.execution_complete, subagent.*
	ToolCallID     string          `json:"toolCallId"`
	ToolName       string          `json:"toolName"`
	Success        *bool           `json:"success"`
	Result         json.RawMessage `json:"result"`
	Error          json.RawMessage `json:"error"`
	FileEdits      json.RawMessage `json:"fileEdits"`
	ShellExecution *struct {
		ExitCode *int `json:"exitCode"`
	} `json:"shellExecution"`
	AgentName string `json:"agentName"`

	// session.usage_record
	Usage *wireUsage `json:"usage"`

	// session.model_change
	NewModel        string `json:"newModel"`
	ReasoningEffort string `json:"reasoningEffort"`

	// session.compaction_start, session.compaction_complete
	Trigger              string           `json:"trigger"`
	Outcome              string           `json:"outcome"`
	SummaryContent       string           `json:"summaryContent"`
	PreCompactionTokens  int64            `json:"preCompactionTokens"`
	CompactionTokensUsed *wireTokenCounts `json:"compactionTokensUsed"`

	// session.error
	ErrorType  string          `json:"errorType"`
	Message    json.RawMessage `json:"message"`
	StatusCode int             `json:"statusCode"`

	// session.shutdown
	ShutdownType string `json:"shutdownType"`

	// session.binary_asset (its "type" is the asset's kind: "image"; its
	// bytes, "data", are read only when a message refers to them)
	AssetID string `json:"assetId"`
	Kind    string `json:"type"`

	// session.title_changed
	Title string `json:"title"`
}

// wireContext is the working directory context of session.start and
// session.resume.
type wireContext struct {
	Cwd        string `json:"cwd"`
	GitRoot    string `json:"gitRoot"`
	Branch     string `json:"branch"`
	HeadCommit string `json:"headCommit"`
}

// wireAttachment is a user message attachment: {type: "file", path,
// displayName, assetId?, mimeType?, byteLength?} and the other kinds
// (directory, selection, GitHub references, blob), of which the reader
// keeps the kind and a name.
type wireAttachment struct {
	Type        string `json:"type"`
	Path        string `json:"path"`
	DisplayName string `json:"displayName"`
	URL         string `json:"url"`
	AssetID     string `json:"assetId"`
	MimeType    string `json:"mimeType"`
	Data        string `json:"data"` // a blob attachment's base64 bytes
}

// wireToolCall is one of an assistant message's toolRequests.
type wireToolCall struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
}

// wireUsage is a session.usage_record's usage: one model call. inputTokens
// includes the cached input; outputTokens includes reasoning.
type wireUsage struct {
	Model            string  `json:"model"`
	InputTokens      int64   `json:"inputTokens"`
	OutputTokens     int64   `json:"outputTokens"`
	CacheReadTokens  int64   `json:"cacheReadTokens"`
	CacheWriteTokens int64   `json:"cacheWriteTokens"`
	ReasoningTokens  int64   `json:"reasoningTokens"`
	Initiator        string  `json:"initiator"`
	IsBYOK           bool    `json:"isByok"`
	ProviderType     string  `json:"providerType"`
	APICallID        string  `json:"apiCallId"`
	APIEndpoint      string  `json:"apiEndpoint"`
	FinishReason     string  `json:"finishReason"`
	Cost             float64 `json:"cost"`
}

// wireTokenCounts is a compaction's compactionTokensUsed.
type wireTokenCounts struct {
	Model            string `json:"model"`
	RequestCount     int    `json:"requestCount"`
	InputTokens      int64  `json:"inputTokens"`
	OutputTokens     int64  `json:"outputTokens"`
	CacheReadTokens  int64  `json:"cacheReadTokens"`
	CacheWriteTokens int64  `json:"cacheWriteTokens"`
}

// wireResult is a successful tool.execution_complete's result: content
// (the text the model got), detailedContent (for display: a diff for edit
// and create), contents (the tool's own blocks: text, terminal, image, ...)
// and binaryResultsForLlm (images sent to the model, inline or by asset).
type wireResult struct {
	Content         string       `json:"content"`
	DetailedContent string       `json:"detailedContent"`
	Contents        []wireBinary `json:"contents"`
	Binary          []wireBinary `json:"binaryResultsForLlm"`
}

// wireBinary is an image (or other binary) block of a tool result: inline
// {type: "image", data, mimeType} or a reference {assetId, mimeType}.
type wireBinary struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	AssetID  string `json:"assetId"`
}

// wireError is a failed tool.execution_complete's error.
type wireError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
}
