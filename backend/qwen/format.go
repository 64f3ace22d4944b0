package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/backend/sessionlog"
)

// Entry types and names the reader gives Qwen Code records that are not pi
// entry types: "qwen:" + the record's subtype (system records) or type.
const (
	TypePrefix         = "qwen:"
	TypeSystem         = "qwen:system"               // a system record without a subtype
	TypeTelemetry      = "qwen:ui_telemetry"         // Subtype = uiEvent["event.name"]
	TypeAttribution    = "qwen:attribution_snapshot" // which files the model wrote, after each prompt and change
	CustomNotification = "qwen:notification"         // Message.CustomType of a notification user record
	SubtypeAPIError    = "qwen-code.api_error"       // the telemetry event of a failed request
	SubtypeNotify      = "notification"
	subtypeCompression = "chat_compression"
	subtypeTitle       = "custom_title"
	recentUUIDs        = 64
	openCallSlots      = 32
)

type call struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// parseState is what the reader carries from record to record; a plain
// value (fixed arrays, append-only slices) so that copies are independent.
type parseState struct {
	Seen       bool   `json:"seen,omitempty"` // the first object was checked
	SessionID  string `json:"sessionId,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
	Timestamp  string `json:"timestamp,omitempty"`
	Version    string `json:"version,omitempty"`
	AgentID    string `json:"agentId,omitempty"`
	Model      string `json:"model,omitempty"`      // the first model, or the sub-agent's (SetAgentModel)
	ForkedFrom string `json:"forkedFrom,omitempty"` // the source session of a fork

	ObjLine int `json:"objLine,omitempty"` // line of the last object, and its index there
	ObjIdx  int `json:"objIdx,omitempty"`

	Tip      string              `json:"tip,omitempty"` // the last chained record
	Recent   [recentUUIDs]string `json:"recent"`        // ring of the last chained uuids
	RecentAt int                 `json:"recentAt,omitempty"`
	Calls    [openCallSlots]call `json:"calls"` // ring of tool calls (id -> name)
	CallsAt  int                 `json:"callsAt,omitempty"`

	Meta Metadata `json:"meta"`
}

// format implements sessionlog.Format for Qwen Code files.
type format struct {
	file string
	rec  *wireRecord // scratch for the record being decoded (once per Reader, not per line)
}

func (format) HeaderReady(st *parseState) bool {
	return st.SessionID != "" && st.Cwd != "" && st.Model != ""
}

func (format) Header(st *parseState, file string) (*session.Header, error) {
	id := st.SessionID
	if id == "" {
		if !st.Seen {
			return nil, sessionlog.ErrNotFormat("qwen", fmt.Sprintf("%s: not a Qwen Code session: no JSON object in the first %d lines", file, sessionlog.HeaderScanLines))
		}
		return nil, sessionlog.ErrNotFormat("qwen", fmt.Sprintf("%s: not a Qwen Code session: no record with a sessionId in the first %d lines", file, sessionlog.HeaderScanLines))
	}
	h := &session.Header{Type: "session", ID: id, Timestamp: st.Timestamp, Cwd: st.Cwd, Format: sessionformat.QwenCode,
		AgentVersion: st.Version, ModelID: st.Model}
	switch {
	case st.AgentID != "":
		// A sub-agent transcript carries its parent's sessionId.
		h.ID, h.AgentID, h.ParentSession = "agent-"+st.AgentID, st.AgentID, id
	case st.ForkedFrom != "":
		h.ParentSession = st.ForkedFrom
	}
	return h, nil
}

func (format) Finish(*parseState, *sessionlog.Emitter) {}

// Decode maps one record (see the package comment for the table).
func (f format) Decode(st *parseState, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) bool {
	rec := f.rec
	if rec == nil {
		rec = new(wireRecord)
	}
	*rec = wireRecord{}
	if err := json.Unmarshal(obj, rec); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return false
		}
		em.Warn(at, sessionlog.FieldWarning(err))
	}
	if !st.Seen {
		st.Seen = true
		if err := notQwen(obj, f.file); err != nil {
			em.NotThisFormat(err)
			return true
		}
	}
	if rec.Type == "" {
		em.Malformed(at, `JSON object has no "type" string; not a Qwen Code record`)
		return true
	}
	e := &session.Entry{Line: at.Line, Offset: at.Offset, Type: TypePrefix + rec.Type,
		Raw: append(json.RawMessage(nil), obj...), Sidechain: rec.IsSidechain, TurnID: rec.PromptID}
	if at.Line == st.ObjLine {
		st.ObjIdx++
	} else {
		st.ObjLine, st.ObjIdx = at.Line, 1
	}
	if rec.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, rec.Timestamp); err == nil {
			e.Timestamp = t
			if st.Meta.FirstTimestamp == "" {
				st.Meta.FirstTimestamp = rec.Timestamp
			}
			st.Meta.LastTimestamp = rec.Timestamp
		} else {
			em.Warn(at, fmt.Sprintf("field \"timestamp\": %q is not an ISO 8601 time; left zero", rec.Timestamp))
		}
	}
	noteHeader(st, rec)
	if rec.SessionID != "" && st.SessionID != "" && rec.SessionID != st.SessionID {
		st.Meta.ForeignLines++
	}

	chained := rec.UUID != ""
	switch {
	case chained:
		e.ID = rec.UUID
		if rec.ParentUUID != nil {
			e.ParentID = *rec.ParentUUID
		}
		if st.seen(rec.UUID) {
			// Qwen Code keeps the first record of a uuid (reconstructHistory).
			e.DuplicateOf = rec.UUID
			st.Meta.Duplicates++
		}
	case st.ObjIdx == 1:
		e.ID = "L" + strconv.Itoa(at.Line)
	default:
		e.ID = "L" + strconv.Itoa(at.Line) + "." + strconv.Itoa(st.ObjIdx)
	}
	if ff := rec.ForkedFrom; ff != nil && ff.SessionID != "" {
		// A record --fork-session copied from its source session: already
		// there, with the same uuid.
		e.Replayed = true
		st.Meta.ForkedFrom, st.Meta.ForkPoint = ff.SessionID, ff.MessageUUID
	}

	switch rec.Type {
	case "user":
		f.user(st, rec, e, at, em)
	case "assistant":
		f.assistant(st, rec, e, at, em)
	case "tool_result":
		f.toolResult(st, rec, e, at, em)
	case "system":
		f.system(st, rec, e, at, em)
	}

	if chained {
		st.chain(e)
	}
	em.Emit(e)
	return true
}

// noteHeader fills the header fields from the first records that have them.
func noteHeader(st *parseState, rec *wireRecord) {
	if st.SessionID == "" && rec.SessionID != "" {
		st.SessionID = rec.SessionID
	}
	if st.Cwd == "" && rec.Cwd != "" {
		st.Cwd = rec.Cwd
	}
	if st.Timestamp == "" && rec.Timestamp != "" {
		st.Timestamp = rec.Timestamp
	}
	if st.Version == "" && rec.Version != "" {
		st.Version = rec.Version
	}
	if st.AgentID == "" && rec.AgentID != "" && rec.IsSidechain {
		st.AgentID = rec.AgentID
	}
	if st.ForkedFrom == "" && rec.ForkedFrom != nil {
		st.ForkedFrom = rec.ForkedFrom.SessionID
	}
	if rec.Type == "assistant" && rec.Model != "" && st.Model == "" {
		st.Model = rec.Model
	}
	if rec.GitBranch != "" {
		st.Meta.GitBranch = rec.GitBranch
	}
}

// seen reports whether uuid is among the last recentUUIDs chained records.
func (st *parseState) seen(uuid string) bool {
	for _, u := range st.Recent {
		if u == uuid {
			return true
		}
	}
	return false
}

// chain tracks the conversation tree: a record written under an earlier
// record than the last one starts a branch (an interactive rewind
// re-roots the chain there); the chain of 0.24.4's files is linear, each
// record under the one before it.
func (st *parseState) chain(e *session.Entry) {
	if e.DuplicateOf == "" && e.ParentID != "" && st.Tip != "" && e.ParentID != st.Tip {
		e.Rewind = true
		st.Meta.Rewinds++
	}
	st.Recent[st.RecentAt] = e.ID
	st.RecentAt = (st.RecentAt + 1) % recentUUIDs
	st.Tip = e.ID
}

func (st *parseState) addCall(id, name string) {
	if id == "" {
		return
	}
	st.Calls[st.CallsAt] = call{ID: id, Name: name}
	st.CallsAt = (st.CallsAt + 1) % openCallSlots
}

func (st *parseState) callName(id string) string {
	for _, c := range st.Calls {
		if c.ID == id && id != "" {
			return c.Name
		}
	}
	return ""
}

// user maps a user record: a prompt (its parts, the text Qwen Code adds
// included), or a notification Qwen Code sent the model as a user turn (a
// background agent's completion: its <task-id> names the sub-agent).
func (f format) user(st *parseState, rec *wireRecord, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type, e.Subtype = session.TypeMessage, rec.Subtype
	m := &session.Message{Role: session.RoleUser, Timestamp: session.UnixMilli(e.Timestamp)}
	e.Message = m
	if rec.Message == nil {
		em.Warn(at, `field "message": missing on a user record; entry kept without content`)
		return
	}
	m.Content = f.parts(st, rec.Message.Parts, false)
	if rec.Subtype == SubtypeNotify {
		m.Role, m.CustomType, m.Display = session.RoleCustom, CustomNotification, true
		if id := taskID.FindStringSubmatch(session.JoinText(m.Content)); id != nil {
			e.SubagentID = id[1]
		}
	}
}

var taskID = regexp.MustCompile(`<task-id>([^<\s]+)</task-id>`)

// assistant maps an assistant record: one model response, written once,
// its parts (reasoning as thinking, functionCall as tool calls) and its
// usage. A sub-agent writes a response with tool calls as two records, the
// first with no parts and the usage.
func (f format) assistant(st *parseState, rec *wireRecord, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = session.TypeMessage
	m := &session.Message{Role: session.RoleAssistant, Timestamp: session.UnixMilli(e.Timestamp), Model: rec.Model}
	e.Message = m
	if m.Model == "" {
		m.Model = st.Model // a sub-agent's records name no model
	}
	if m.Model != "" {
		st.Meta.addModel(m.Model)
	}
	if rec.Message == nil {
		em.Warn(at, `field "message": missing on an assistant record; entry kept without content`)
	} else {
		m.Content = f.parts(st, rec.Message.Parts, true)
	}
	for _, b := range m.Content {
		if b.Type == session.BlockToolCall {
			m.StopReason = "toolUse"
		}
	}
	if rec.UsageMetadata != nil && e.DuplicateOf == "" {
		m.Usage = rec.UsageMetadata.Usage()
	}
}

// toolResult maps a tool_result record: the functionResponse sent to the
// model (its output, or its error), with toolCallResult, the UI's view
// (status, resultDisplay: a diff, a shell result, an agent launch), as
// Details. A failed call (status "error", or a response with an error) is
// IsError. An agent call names the sub-agent it launched:
// <subagentName>-<call id>, the sub-agent's agentId.
func (f format) toolResult(st *parseState, rec *wireRecord, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = session.TypeMessage
	m := &session.Message{Role: session.RoleToolResult, Timestamp: session.UnixMilli(e.Timestamp), Content: []session.Block{}}
	e.Message = m
	if rec.Message != nil {
		for i := range rec.Message.Parts {
			p := &rec.Message.Parts[i]
			fr := p.FunctionResponse
			if fr == nil {
				m.Content = append(m.Content, f.part(st, p, false)...)
				continue
			}
			if m.ToolCallID == "" {
				m.ToolCallID, m.ToolName = fr.ID, fr.Name
			}
			text, failed := responseText(fr.Response)
			if failed {
				m.IsError = true
			}
			if text != "" {
				m.Content = append(m.Content, session.Block{Type: session.BlockText, Text: text})
			}
		}
	} else {
		em.Warn(at, `field "message": missing on a tool_result record; entry kept without content`)
	}
	if len(rec.ToolCallResult) > 0 && !bytes.Equal(rec.ToolCallResult, []byte("null")) {
		m.Details = rec.ToolCallResult
		var r wireToolCallResult
		if rec.ToolCallResult[0] == '{' {
			if err := json.Unmarshal(rec.ToolCallResult, &r); err != nil {
				em.Warn(at, "field \"toolCallResult\": "+sessionlog.FieldWarning(err))
			}
		}
		if m.ToolCallID == "" {
			m.ToolCallID = r.CallID
		}
		if r.Status == "error" {
			m.IsError = true
		}
		if d := r.ResultDisplay; len(d) > 0 && d[0] == '{' && bytes.Contains(d, []byte(`"task_execution"`)) {
			var td wireTaskDisplay
			if json.Unmarshal(d, &td) == nil && td.Type == "task_execution" && td.SubagentName != "" && m.ToolCallID != "" {
				e.SubagentID = td.SubagentName + "-" + m.ToolCallID
				st.Meta.Subagents++
			}
		}
	}
	if m.ToolName == "" {
		m.ToolName = st.callName(m.ToolCallID)
	}
	if m.IsError {
		st.Meta.ToolErrors++
	}
}

// responseText returns the text of a functionResponse's response: its
// output, or its error (failed true); any other shape as its JSON text.
func responseText(raw json.RawMessage) (text string, failed bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", false
	}
	var r struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &r) != nil || len(r.Output) == 0 && len(r.Error) == 0 {
		return string(raw), false
	}
	failed = len(r.Error) > 0 && !bytes.Equal(r.Error, []byte("null"))
	for _, v := range []json.RawMessage{r.Output, r.Error} {
		if len(v) == 0 || bytes.Equal(v, []byte("null")) {
			continue
		}
		var s string
		if v[0] == '"' && json.Unmarshal(v, &s) == nil {
			text += s
		} else {
			text += string(v)
		}
	}
	return text, failed
}

// system maps a system record by its subtype: chat_compression is a
// compaction (Summary the rewritten history's first message, the state
// snapshot; TokensBefore its originalTokenCount; Subtype its
// triggerReason; Details its info), custom_title the session's name, a
// ui_telemetry api_error the failed request it is the only record of (an
// assistant message stopped by an error); the others are kept as
// "qwen:<subtype>" (ui_telemetry with Subtype the event name).
func (f format) system(st *parseState, rec *wireRecord, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = TypeSystem
	if rec.Subtype != "" {
		e.Type = TypePrefix + rec.Subtype
	}
	var p wireSystemPayload
	if raw := rec.SystemPayload; len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &p); err != nil {
			em.Warn(at, "field \"systemPayload\": "+sessionlog.FieldWarning(err))
		}
	}
	switch rec.Subtype {
	case subtypeCompression:
		e.Type = session.TypeCompaction
		if p.Info != nil {
			e.TokensBefore, e.Subtype = p.Info.OriginalTokenCount, p.Info.TriggerReason
			e.Details = rawField(rec.SystemPayload, "info")
		}
		if len(p.CompressedHistory) > 0 {
			e.Summary = session.JoinText(f.parts(st, p.CompressedHistory[0].Parts, false))
		}
		st.Meta.Compressions++
	case subtypeTitle:
		e.Type, e.Name = session.TypeSessionInfo, p.CustomTitle
		if p.CustomTitle != "" {
			st.Meta.Title = p.CustomTitle
		}
	case "ui_telemetry":
		if ev := p.UIEvent; ev != nil {
			e.Subtype = ev.Name
			if ev.Name == SubtypeAPIError {
				e.Type = session.TypeMessage
				e.Message = &session.Message{Role: session.RoleAssistant, Timestamp: session.UnixMilli(e.Timestamp),
					Model: ev.Model, StopReason: "error", ErrorMessage: ev.ErrorMessage}
				st.Meta.APIErrors++
			}
		}
	}
}

// parts maps message parts to blocks (see part).
func (f format) parts(st *parseState, ps []wirePart, model bool) []session.Block {
	out := []session.Block{}
	for i := range ps {
		out = append(out, f.part(st, &ps[i], model)...)
	}
	return out
}

// part maps one Gemini API part: text (thinking when thought is set),
// functionCall as a tool call (its id, name and args; noted for its result
// when the model wrote it), inlineData as an image; a functionResponse
// outside a tool_result record, fileData, executableCode and
// codeExecutionResult keep their key ("qwen:" + key) and stay whole in the
// entry's Raw.
func (format) part(st *parseState, p *wirePart, model bool) []session.Block {
	var out []session.Block
	if p.Text != nil {
		if p.Thought {
			out = append(out, session.Block{Type: session.BlockThinking, Thinking: *p.Text})
		} else {
			out = append(out, session.Block{Type: session.BlockText, Text: *p.Text})
		}
	}
	if fc := p.FunctionCall; fc != nil {
		args := fc.Args
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = json.RawMessage("{}")
		}
		out = append(out, session.Block{Type: session.BlockToolCall, ID: fc.ID, Name: fc.Name, Arguments: args})
		if model {
			st.addCall(fc.ID, fc.Name)
		}
	}
	if d := p.InlineData; d != nil {
		out = append(out, session.Block{Type: session.BlockImage, Data: d.Data, MimeType: d.MimeType})
	}
	for _, k := range []struct {
		set  bool
		name string
	}{{p.FunctionResponse != nil, "functionResponse"}, {len(p.FileData) > 0, "fileData"},
		{len(p.ExecutableCode) > 0, "executableCode"}, {len(p.CodeExecutionResult) > 0, "codeExecutionResult"}} {
		if k.set {
			out = append(out, session.Block{Type: TypePrefix + k.name})
		}
	}
	return out
}

// rawField returns the raw JSON of a top-level key of obj, or nil.
func rawField(obj []byte, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil
	}
	if v, ok := m[key]; ok && !bytes.Equal(v, []byte("null")) {
		return v
	}
	return nil
}

// notQwen checks the first object: nil when sessionformat.Detect names it a
// Qwen Code record, else an error matching session.ErrNoHeader that says
// what the file is.
func notQwen(obj []byte, file string) error {
	f, why := sessionformat.Detect(append(append([]byte{}, obj...), '\n'))
	switch f {
	case sessionformat.QwenCode:
		return nil
	case sessionformat.Unknown:
		return sessionlog.ErrNotFormat("qwen", fmt.Sprintf("%s: line 1: not a Qwen Code session: %s", file, why))
	}
	return sessionlog.ErrNotFormat("qwen", fmt.Sprintf("%s: line 1: not a Qwen Code session: %s (a %s file)", file, why, f))
}
