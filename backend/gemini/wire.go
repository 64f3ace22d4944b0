package gemini

import (
	"bytes"
	"encoding/json"
	"rhizome/backend/sessionlog"
)

// The JSON shapes of a Gemini CLI chat recording, as far as the reader uses
// them (testdata/generate/README.md, "Records"); everything else stays in
// the entries' Raw.

// wireRecord is one object of a recording: the fields of its four kinds,
// told apart by their keys as the CLI's own loader tells them
// (loadConversationRecord): "$set", "$rewindTo", "id" (a message), and
// "sessionId" without "id" (metadata). The last field is the reader's own:
// a functionResponse part that a tool result entry holds as its Raw, read
// back alone from the library.
type wireRecord struct {
	// Metadata: merged into the session's metadata.
	SessionID   string   `json:"sessionId"`
	ProjectHash string   `json:"projectHash"`
	StartTime   string   `json:"startTime"`
	LastUpdated string   `json:"lastUpdated"`
	Kind        string   `json:"kind"`
	Directories []string `json:"directories"`
	Summary     string   `json:"summary"`

	// Message.
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"` // a string (gemini, info) or a list of Gemini API parts
	Thoughts  []wireThought   `json:"thoughts"`
	Tokens    *wireTokens     `json:"tokens"`
	Model     string          `json:"model"`
	ToolCalls []wireToolCall  `json:"toolCalls"`

	// {"$set": {...}} and {"$rewindTo": "<message id>"}.
	Set      json.RawMessage `json:"$set"`
	RewindTo json.RawMessage `json:"$rewindTo"`

	// A tool result entry's Raw: {"functionResponse": {...}}.
	FunctionResponse *wireFunctionResponse `json:"functionResponse"`
}

// wireSet is the value of a "$set" record, as far as the reader maps it
// (messages are read by their byte spans, see members).
type wireSet struct {
	SessionID   *string `json:"sessionId"`
	Summary     *string `json:"summary"`
	LastUpdated string  `json:"lastUpdated"`
}

// wireThought is one of a gemini message's thoughts: a thought part
// "**Subject**\n\ndescription" split in two.
type wireThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// wireTokens is a gemini message's tokens, from the response's
// usageMetadata: input = promptTokenCount (cached included), output =
// candidatesTokenCount (thoughts excluded), cached =
// cachedContentTokenCount, thoughts = thoughtsTokenCount, tool =
// toolUsePromptTokenCount, total = totalTokenCount.
type wireTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

// wireToolCall is one of a gemini message's toolCalls, written once the
// tools ran: the call (id, name, args), its result (the functionResponse
// parts sent back), status ("success" | "error"), and for invoke_agent the
// sub-agent's session id. resultDisplay is read only for Details, from the
// Raw (see toolDetails).
type wireToolCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	Status  string          `json:"status"`
	AgentID string          `json:"agentId"`
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

// span is where a JSON value lies in the bytes scanned: b[Start:End].
type span = sessionlog.Span

// member is one key of a JSON object and the span of its value.
type member = sessionlog.Member

// members lists the keys of the JSON object b (valid JSON, as json.Unmarshal
// accepted it), with their values' spans, in order; ok is false when b is
// not an object or does not scan.
func members(b []byte) (out []member, ok bool) {
	out, _, ok = sessionlog.Object(b, 0)
	return out, ok
}

// setPrefix starts a $set record as Gemini CLI writes it.
var setPrefix = []byte(`{"$set":`)

// setValue finds the value of a record that is {"$set": V} and nothing
// else, without a decode: V's span, and its members when it is an object.
// ok is false for any other record (decoded in full instead).
func setValue(obj []byte) (v span, ms []member, ok bool) {
	if !bytes.HasPrefix(obj, setPrefix) {
		return span{}, nil, false
	}
	end := len(obj)
	for end > 0 && (obj[end-1] == ' ' || obj[end-1] == '\t' || obj[end-1] == '\r' || obj[end-1] == '\n') {
		end--
	}
	if end == 0 || obj[end-1] != '}' {
		return span{}, nil, false
	}
	vs := sessionlog.SkipSpace(obj, len(setPrefix))
	if vs >= end-1 || obj[vs] != '{' {
		return span{}, nil, false
	}
	ms, n, ok := sessionlog.Object(obj[vs:end-1], 0)
	if !ok || sessionlog.SkipSpace(obj[vs:end-1], n) != end-1-vs {
		return span{}, nil, false
	}
	return span{Start: vs, End: vs + n}, ms, true
}

// elements lists the spans of the values of the JSON array b (valid JSON);
// ok is false when b is not an array or does not scan.
func elements(b []byte) (out []span, ok bool) { return sessionlog.Elements(b, 0) }

// memberVal returns the span of key's value in the members ms.
func memberVal(ms []member, key string) (span, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Val, true
		}
	}
	return span{}, false
}
