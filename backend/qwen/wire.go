package qwen

import "encoding/json"

// The JSON shapes of a Qwen Code record, as far as the reader uses them
// (testdata/generate/README.md, "Records"); everything else stays in the
// entry's Raw.

// wireRecord is one line of a session file: the envelope every record has
// and the fields of the record types the reader maps.
type wireRecord struct {
	UUID        string  `json:"uuid"`
	ParentUUID  *string `json:"parentUuid"`
	SessionID   string  `json:"sessionId"`
	Timestamp   string  `json:"timestamp"`
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	Provenance  string  `json:"provenance"`
	Cwd         string  `json:"cwd"`
	Version     string  `json:"version"`
	GitBranch   string  `json:"gitBranch"`
	PromptID    string  `json:"promptId"` // newer versions than 0.24.4
	AgentID     string  `json:"agentId"`
	IsSidechain bool    `json:"isSidechain"`

	Model          string          `json:"model"`
	Message        *wireContent    `json:"message"`
	UsageMetadata  *wireUsage      `json:"usageMetadata"`
	ToolCallResult json.RawMessage `json:"toolCallResult"`
	SystemPayload  json.RawMessage `json:"systemPayload"`
	ForkedFrom     *struct {
		SessionID   string `json:"sessionId"`
		MessageUUID string `json:"messageUuid"`
	} `json:"forkedFrom"`

	// pi and Codex, to say what a file is when it is not Qwen Code's.
	Payload json.RawMessage `json:"payload"`
}

// wireContent is a Gemini API Content: {role: "user"|"model", parts}.
type wireContent struct {
	Role  string     `json:"role"`
	Parts []wirePart `json:"parts"`
}

// wirePart is a Gemini API Part: one of text (thought: reasoning),
// functionCall, functionResponse, inlineData, fileData, executableCode,
// codeExecutionResult.
type wirePart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *wireFunctionResponse `json:"functionResponse"`
	InlineData       *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData            json.RawMessage `json:"fileData"`
	ExecutableCode      json.RawMessage `json:"executableCode"`
	CodeExecutionResult json.RawMessage `json:"codeExecutionResult"`
}

// wireFunctionResponse is what a tool call gave the model: response is
// {output} or, on failure, {error}; other shapes are kept as JSON text.
type wireFunctionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// wireUsage is Gemini's usageMetadata, into which Qwen Code maps the OpenAI
// usage: promptTokenCount = prompt_tokens (cached included),
// candidatesTokenCount = completion_tokens (reasoning included),
// thoughtsTokenCount = reasoning_tokens, cachedContentTokenCount =
// cached_tokens.
type wireUsage struct {
	Prompt     int64 `json:"promptTokenCount"`
	Candidates int64 `json:"candidatesTokenCount"`
	Thoughts   int64 `json:"thoughtsTokenCount"`
	Total      int64 `json:"totalTokenCount"`
	Cached     int64 `json:"cachedContentTokenCount"`
}

// wireToolCallResult is the UI's view of a tool result (toolCallResult):
// its status ("success" | "error") and what the UI showed.
type wireToolCallResult struct {
	CallID        string          `json:"callId"`
	Status        string          `json:"status"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	ErrorType     string          `json:"errorType"`
}

// wireTaskDisplay is the resultDisplay of an agent call
// ({type: "task_execution", subagentName, ...}).
type wireTaskDisplay struct {
	Type         string `json:"type"`
	SubagentName string `json:"subagentName"`
}

// wireSystemPayload holds the systemPayload fields of the system records
// the reader maps: ui_telemetry's uiEvent, chat_compression's info and
// compressedHistory, custom_title's customTitle.
type wireSystemPayload struct {
	UIEvent *struct {
		Name         string `json:"event.name"`
		Model        string `json:"model"`
		ErrorMessage string `json:"error_message"`
		StatusCode   int    `json:"status_code"`
	} `json:"uiEvent"`
	Info *struct {
		OriginalTokenCount int64  `json:"originalTokenCount"`
		NewTokenCount      int64  `json:"newTokenCount"`
		TriggerReason      string `json:"triggerReason"`
	} `json:"info"`
	CompressedHistory []wireContent `json:"compressedHistory"`
	CustomTitle       string        `json:"customTitle"`
}
