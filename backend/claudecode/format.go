package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/backend/sessionlog"
)

// Entry types the reader gives Claude Code lines that are not pi entry
// types: "claude:" + the line's type (claude-code-codex-formats.md §1.2).
const (
	TypeSystem        = "claude:system"     // system lines other than compact_boundary; Subtype = subtype
	TypeAttachment    = "claude:attachment" // Subtype = attachment.type
	TypeProgress      = "claude:progress"   // Subtype = data.type; SubagentID = data.agentId
	TypeSummary       = "claude:summary"    // legacy title; Summary, TargetID = leafUuid
	TypeAITitle       = "claude:ai-title"   // Name = aiTitle
	TypeLastPrompt    = "claude:last-prompt"
	TypeQueue         = "claude:queue-operation" // Subtype = operation
	TypeFileSnapshot  = "claude:file-history-snapshot"
	TypePrefix        = "claude:"
	CustomMeta        = "claude:meta"              // Message.CustomType of isMeta user lines
	CustomCommand     = "claude:command"           // ... of "<command-name>" lines (a slash command typed)
	CustomCommandOut  = "claude:command-output"    // ... of "<local-command-stdout>" lines
	CustomTaskNotice  = "claude:task-notification" // ... of "<task-notification>" lines (a background sub-agent's result, sent by Claude Code)
	SubtypeQueued     = "queued_command"           // a prompt typed while the agent worked (a user message)
	compactBoundary   = "compact_boundary"
	recentUUIDs       = 64
	openCallSlots     = 32
	countedGroupSlots = 16
)

// claudeTypes are the line types Claude Code writes (§1.2), to recognise a
// file by its first line.
var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true, "summary": true,
	"file-history-snapshot": true, "queue-operation": true, "progress": true, "permission-mode": true, "ai-title": true,
	"custom-title": true, "last-prompt": true, "agent-setting": true, "agent-name": true, "pr-link": true, "mode": true}

// groupKey identifies one API response: (message.id, requestId) (§1.5).
type groupKey struct {
	Msg string `json:"msg,omitempty"`
	Req string `json:"req,omitempty"`
}

// openGroup is a response whose lines carry no stop_reason yet (older
// files write partial usage on the lines before the last): its usage is
// settled by its last line, the entries held meanwhile.
type openGroup struct {
	Active  bool     `json:"active,omitempty"`
	Key     groupKey `json:"key"`
	Best    usageVal `json:"best"`
	Final   bool     `json:"final,omitempty"` // Best came from a line with a stop_reason
	Model   string   `json:"model,omitempty"`
	LastSeq int      `json:"lastSeq"` // Seq of the group's latest entry
}

type call struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// parseState is what the reader carries from line to line; a plain value
// (fixed arrays, append-only slices) so that copies are independent.
type parseState struct {
	Seen      bool   `json:"seen,omitempty"` // the first object was checked
	SessionID string `json:"sessionId,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
	Version   string `json:"version,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
	Model     string `json:"model,omitempty"`

	ObjLine int `json:"objLine,omitempty"` // line of the last object, and its index there
	ObjIdx  int `json:"objIdx,omitempty"`

	Tip       string                      `json:"tip,omitempty"`  // last chain line
	Leaf      string                      `json:"leaf,omitempty"` // last user or assistant line
	SinceLeaf [8]string                   `json:"sinceLeaf"`      // chain lines after Leaf
	NSince    int                         `json:"nSince,omitempty"`
	Recent    [recentUUIDs]string         `json:"recent"` // ring of the last chain uuids
	RecentAt  int                         `json:"recentAt,omitempty"`
	Calls     [openCallSlots]call         `json:"calls"` // ring of tool calls (id -> name)
	CallsAt   int                         `json:"callsAt,omitempty"`
	TurnID    string                      `json:"turnId,omitempty"`
	Open      openGroup                   `json:"open"`
	Counted   [countedGroupSlots]groupKey `json:"counted"`
	CountedAt int                         `json:"countedAt,omitempty"`
	PreTokens int64                       `json:"preTokens,omitempty"` // of the last compaction, for its summary line

	Meta Metadata `json:"meta"`
}

// format implements sessionlog.Format for Claude Code files.
type format struct {
	file string
	ln   *wireLine // scratch for the line being decoded (a value given to json.Unmarshal is allocated: once per Reader, not per line)
}

func (format) HeaderReady(st *parseState) bool {
	return st.SessionID != "" && st.Cwd != "" && st.Model != ""
}

func (f format) Header(st *parseState, file string) (*session.Header, error) {
	id := st.SessionID
	if id == "" {
		if !st.Seen {
			return nil, sessionlog.ErrNotFormat("claudecode", fmt.Sprintf("%s: not a Claude Code session: no JSON object in the first %d lines", file, sessionlog.HeaderScanLines))
		}
		return nil, sessionlog.ErrNotFormat("claudecode", fmt.Sprintf("%s: not a Claude Code session: no line with a sessionId in the first %d lines", file, sessionlog.HeaderScanLines))
	}
	h := &session.Header{Type: "session", ID: id, Timestamp: st.Timestamp, Cwd: st.Cwd, Format: sessionformat.ClaudeCode,
		AgentVersion: st.Version, ModelID: st.Model}
	if st.Model != "" {
		h.Provider = "anthropic"
	}
	if st.AgentID != "" {
		// A sub-agent transcript carries its parent's sessionId.
		h.ID, h.AgentID, h.ParentSession = "agent-"+st.AgentID, st.AgentID, id
	}
	return h, nil
}

func (format) Finish(st *parseState, em *sessionlog.Emitter) {
	closeGroup(st, em, nil)
}

// Decode maps one line (see the package comment for the table).
func (f format) Decode(st *parseState, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) bool {
	ln := f.ln
	if ln == nil {
		ln = new(wireLine)
	}
	*ln = wireLine{}
	if err := json.Unmarshal(obj, ln); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return false
		}
		em.Warn(at, sessionlog.FieldWarning(err))
	}
	if !st.Seen {
		st.Seen = true
		if err := notClaude(ln, obj, f.file); err != nil {
			em.NotThisFormat(err)
			return true
		}
	}
	if ln.Type == "" {
		em.Malformed(at, `JSON object has no "type" string; not a Claude Code line`)
		return true
	}
	e := &session.Entry{Line: at.Line, Offset: at.Offset, Type: TypePrefix + ln.Type,
		Raw: append(json.RawMessage(nil), obj...), Sidechain: ln.IsSidechain}
	if at.Line == st.ObjLine {
		st.ObjIdx++
	} else {
		st.ObjLine, st.ObjIdx = at.Line, 1
	}
	if ln.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, ln.Timestamp); err == nil {
			e.Timestamp = t
			if st.Meta.FirstTimestamp == "" {
				st.Meta.FirstTimestamp = ln.Timestamp
			}
			st.Meta.LastTimestamp = ln.Timestamp
		} else {
			em.Warn(at, fmt.Sprintf("field \"timestamp\": %q is not an ISO 8601 time; left zero", ln.Timestamp))
		}
	}
	f.noteHeader(st, ln)
	if ln.SessionID != "" && st.SessionID != "" && ln.SessionID != st.SessionID {
		st.Meta.ForeignLines++
	}

	chained := ln.UUID != ""
	if chained {
		e.ID = ln.UUID
		switch {
		case ln.ParentUUID != nil && *ln.ParentUUID != "":
			e.ParentID = *ln.ParentUUID
		case ln.LogicalParentUUID != "":
			// A compaction root: joined to what came before (§1.4).
			e.ParentID = ln.LogicalParentUUID
		}
	} else {
		if st.ObjIdx == 1 {
			e.ID = "L" + strconv.Itoa(at.Line)
		} else {
			e.ID = "L" + strconv.Itoa(at.Line) + "." + strconv.Itoa(st.ObjIdx)
		}
		// A line off the chain with an agentId (a sub-agent transcript's
		// api-request lines, from 2.1.332) is the sub-agent's; it has no
		// isSidechain of its own.
		if ln.AgentID != "" {
			e.Sidechain = true
		}
	}
	if ln.PromptID != "" {
		e.TurnID = ln.PromptID
	} else if ln.Type == "assistant" || ln.Type == "user" {
		e.TurnID = st.TurnID
	}

	switch ln.Type {
	case "user":
		f.user(st, ln, e, at, em)
	case "assistant":
		f.assistant(st, ln, e, at, em)
	case "system":
		if ln.Subtype == compactBoundary {
			closeGroup(st, em, nil)
			e.Type = session.TypeCompaction
			if cm := ln.CompactMetadata; cm != nil {
				e.TokensBefore = cm.PreTokens
				st.PreTokens = cm.PreTokens
				if cm.PreservedSegment != nil {
					e.FirstKeptEntryID = cm.PreservedSegment.HeadUUID
				}
				e.Subtype = cm.Trigger
			}
			e.Details = rawField(obj, "compactMetadata")
			st.Meta.Compactions++
		} else {
			e.Type, e.Subtype = TypeSystem, ln.Subtype
		}
	case "attachment":
		e.Type = TypeAttachment
		if a := ln.Attachment; a != nil {
			e.Subtype = a.Type
			if a.Type == SubtypeQueued && len(a.Prompt) > 0 {
				// A prompt typed while the agent worked: a user message.
				e.Type = session.TypeMessage
				m := &session.Message{Role: session.RoleUser, Timestamp: session.UnixMilli(e.Timestamp)}
				m.Content, m.ContentIsString = f.content(a.Prompt, at, em, "attachment.prompt")
				e.Message = m
			}
		}
	case "progress":
		e.Type = TypeProgress
		if d := ln.Data; d != nil {
			e.Subtype, e.SubagentID = d.Type, d.AgentID
		}
	case "summary":
		e.Type, e.Summary, e.TargetID = TypeSummary, ln.Summary, ln.LeafUUID
		st.Meta.Summary, st.Meta.LeafUUID = ln.Summary, ln.LeafUUID
	case "custom-title":
		e.Type, e.Name = session.TypeSessionInfo, ln.CustomTitle
		st.Meta.CustomTitle = ln.CustomTitle
	case "ai-title":
		e.Type, e.Name = TypeAITitle, ln.AITitle
		st.Meta.AITitle = ln.AITitle
	case "agent-name":
		e.Name = ln.AgentName
		st.Meta.AgentName = ln.AgentName
	case "last-prompt":
		e.Type, e.TargetID = TypeLastPrompt, ln.LeafUUID
		if ln.LastPrompt != "" {
			st.Meta.LastPrompt = ln.LastPrompt
		}
		st.Meta.LeafUUID = ln.LeafUUID
	case "permission-mode":
		st.Meta.PermissionMode = ln.PermissionMode
	case "mode":
		st.Meta.Mode = ln.Mode
	case "queue-operation":
		e.Subtype = ln.Operation
	case "file-history-snapshot":
		e.TargetID = ln.MessageID
	}
	st.Meta.setTitle()

	if chained {
		f.chain(st, ln, e)
	}
	em.Emit(e)
	if st.Open.Active && e.Seq == st.Open.LastSeq {
		em.Hold()
	}
	return true
}

// noteHeader fills the header fields from the first lines that have them.
func (format) noteHeader(st *parseState, ln *wireLine) {
	if st.SessionID == "" && ln.SessionID != "" {
		st.SessionID = ln.SessionID
	}
	if st.Cwd == "" && ln.Cwd != "" {
		st.Cwd = ln.Cwd
	}
	if st.Timestamp == "" && ln.Timestamp != "" {
		st.Timestamp = ln.Timestamp
	}
	if st.Version == "" && ln.Version != "" {
		st.Version = ln.Version
	}
	if st.AgentID == "" && ln.AgentID != "" && ln.IsSidechain {
		st.AgentID = ln.AgentID
	}
	if ln.Type == "assistant" && ln.Message != nil && ln.Message.Model != "" && ln.Message.Model != Synthetic {
		if st.Model == "" {
			st.Model = ln.Message.Model
		}
		st.Meta.addModel(ln.Message.Model)
	}
	if ln.GitBranch != "" {
		st.Meta.GitBranch = ln.GitBranch
	}
}

// chain tracks the conversation tree: duplicates, rewinds, the tip and the
// leaf (§1.4).
func (format) chain(st *parseState, ln *wireLine, e *session.Entry) {
	for _, u := range st.Recent {
		if u == ln.UUID {
			e.DuplicateOf = ln.UUID
			st.Meta.Duplicates++
			break
		}
	}
	if e.DuplicateOf == "" && isPrompt(e) && e.ParentID != "" && st.Tip != "" && !st.continues(e.ParentID) {
		e.Rewind = true
		st.Meta.Rewinds++
	}
	st.Recent[st.RecentAt] = ln.UUID
	st.RecentAt = (st.RecentAt + 1) % recentUUIDs
	st.Tip = ln.UUID
	if ln.Type == "user" || ln.Type == "assistant" {
		st.Leaf, st.NSince = ln.UUID, 0
		st.SinceLeaf = [8]string{}
	} else if st.NSince < len(st.SinceLeaf) {
		st.SinceLeaf[st.NSince] = ln.UUID
		st.NSince++
	}
}

// continues reports whether a new prompt under parent continues the
// conversation where it was: under the last user or assistant line, or under
// a line recorded after it (attachments, system and progress lines), or
// under the last line.
func (st *parseState) continues(parent string) bool {
	if parent == st.Leaf || parent == st.Tip {
		return true
	}
	for _, u := range st.SinceLeaf[:st.NSince] {
		if u == parent {
			return true
		}
	}
	return false
}

// isPrompt reports whether e is a prompt the person typed.
func isPrompt(e *session.Entry) bool {
	return e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleUser && e.Subtype == ""
}

// user maps a user line: a prompt, tool results, a compaction summary, or a
// message the harness wrote (isMeta, slash commands and their output).
func (f format) user(st *parseState, ln *wireLine, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = session.TypeMessage
	m := &session.Message{Role: session.RoleUser, Timestamp: session.UnixMilli(e.Timestamp)}
	e.Message = m
	if ln.Message == nil {
		em.Warn(at, `field "message": missing on a user line; entry kept without content`)
		return
	}
	raw := ln.Message.Content
	if len(raw) > 0 && raw[0] == '[' {
		var blocks []wireBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			em.Warn(at, "field \"message.content\": "+sessionlog.FieldWarning(err))
		}
		if hasToolResult(blocks) {
			f.toolResults(st, ln, e, m, blocks, at, em)
			return
		}
	}
	m.Content, m.ContentIsString = f.content(raw, at, em, "message.content")
	text := firstText(m.Content)
	switch {
	case ln.IsCompactSummary:
		m.Role, m.Summary, m.TokensBefore = session.RoleCompactionSummary, session.JoinText(m.Content), st.PreTokens
		m.Content, m.ContentIsString = nil, false
	case ln.IsMeta:
		m.Role, m.CustomType = session.RoleCustom, CustomMeta
	case strings.HasPrefix(text, "<command-name>") || strings.HasPrefix(text, "<command-message>"):
		m.Role, m.CustomType, m.Display = session.RoleCustom, CustomCommand, true
	case strings.HasPrefix(text, "<local-command-stdout>") || strings.HasPrefix(text, "<local-command-stderr>"):
		m.Role, m.CustomType, m.Display = session.RoleCustom, CustomCommandOut, true
	case ln.Origin != nil && ln.Origin.Kind == "task-notification" || strings.HasPrefix(text, "<task-notification>"):
		// Claude Code's own message to the model when a background
		// sub-agent finished: shown, not a prompt the person typed. The
		// response to it is a turn of its own.
		m.Role, m.CustomType, m.Display = session.RoleCustom, CustomTaskNotice, true
		closeGroup(st, em, nil)
		if ln.PromptID != "" {
			st.TurnID = ln.PromptID
			e.TurnID = ln.PromptID
		}
	default:
		closeGroup(st, em, nil)
		if ln.PromptID != "" {
			st.TurnID = ln.PromptID
			e.TurnID = ln.PromptID
		}
	}
}

func hasToolResult(blocks []wireBlock) bool {
	for i := range blocks {
		if blocks[i].Type == "tool_result" {
			return true
		}
	}
	return false
}

// toolResults maps a line of tool_result blocks to one toolResult message:
// the first result's call names it; the content of every result, and any
// other block, in order. Claude Code 2.x writes one result per line.
func (f format) toolResults(st *parseState, ln *wireLine, e *session.Entry, m *session.Message, blocks []wireBlock, at sessionlog.Pos, em *sessionlog.Emitter) {
	m.Role = session.RoleToolResult
	m.Content = []session.Block{}
	for i := range blocks {
		b := &blocks[i]
		if b.Type != "tool_result" {
			m.Content = append(m.Content, f.block(b)...)
			continue
		}
		if m.ToolCallID == "" {
			m.ToolCallID = b.ToolUseID
			m.ToolName = st.callName(b.ToolUseID)
		}
		if b.IsError {
			m.IsError = true
		}
		c, _ := f.content(b.Content, at, em, "message.content[].content")
		m.Content = append(m.Content, c...)
	}
	if len(ln.ToolUseResult) > 0 && !bytes.Equal(ln.ToolUseResult, []byte("null")) {
		m.Details = ln.ToolUseResult
		if ln.ToolUseResult[0] == '{' {
			var r wireToolUseResult
			if json.Unmarshal(ln.ToolUseResult, &r) == nil && r.AgentID != "" {
				// The Task/Agent call spawned a sub-agent (§1.4).
				e.SubagentID = r.AgentID
				st.Meta.Subagents++
			}
		}
	}
}

// assistant maps an assistant line: one content block per line in Claude
// Code 2.x, usage counted once per response (§1.5, §1.6.1-2).
func (f format) assistant(st *parseState, ln *wireLine, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = session.TypeMessage
	m := &session.Message{Role: session.RoleAssistant, Timestamp: session.UnixMilli(e.Timestamp),
		API: "anthropic-messages", Provider: "anthropic"}
	e.Message = m
	wm := ln.Message
	if wm == nil {
		em.Warn(at, `field "message": missing on an assistant line; entry kept without content`)
		return
	}
	m.Model = wm.Model
	if len(wm.Content) > 0 && wm.Content[0] == '[' {
		var blocks []wireBlock
		if err := json.Unmarshal(wm.Content, &blocks); err != nil {
			em.Warn(at, "field \"message.content\": "+sessionlog.FieldWarning(err))
		}
		m.Content = []session.Block{}
		for i := range blocks {
			m.Content = append(m.Content, f.block(&blocks[i])...)
			if blocks[i].Type == "tool_use" || blocks[i].Type == "server_tool_use" {
				st.addCall(blocks[i].ID, blocks[i].Name)
			}
		}
	} else {
		m.Content, m.ContentIsString = f.content(wm.Content, at, em, "message.content")
	}
	if wm.StopReason != nil {
		m.StopReason = stopReason(*wm.StopReason)
	}
	if ln.IsAPIErrorMessage {
		m.StopReason, m.ErrorMessage = "error", session.JoinText(m.Content)
	}
	if wm.Model == Synthetic || wm.Usage == nil {
		return // written by Claude Code itself: never billed (§1.5)
	}
	f.usage(st, ln, e, em)
}

// usage counts a response's usage once, on its last line (§1.5): a line
// with a stop_reason settles it at once; lines without one (older files,
// partial usage) open the response, and its entries are held until a line
// with a stop_reason, another response or a prompt settles it.
func (f format) usage(st *parseState, ln *wireLine, e *session.Entry, em *sessionlog.Emitter) {
	wm := ln.Message
	key := groupKey{Msg: wm.ID, Req: ln.RequestID}
	if key.Msg == "" {
		key.Msg = ln.UUID // no message id: each line its own response
	}
	val := toUsageVal(wm.Usage)
	final := wm.StopReason != nil && *wm.StopReason != ""
	if st.Open.Active && st.Open.Key != key {
		closeGroup(st, em, nil)
	}
	if st.counted(key) {
		return
	}
	if st.Open.Active { // another line of the open response
		if final || !st.Open.Final && val.Out >= st.Open.Best.Out {
			st.Open.Best, st.Open.Final = val, final
		}
		st.Open.LastSeq = em.NextSeq()
		if final {
			closeGroup(st, em, e)
		}
		return
	}
	if final {
		e.Message.Usage = val.Usage(wm.Model)
		st.markCounted(key)
		return
	}
	st.Open = openGroup{Active: true, Key: key, Best: val, Model: wm.Model, LastSeq: em.NextSeq()}
}

// closeGroup settles the open response: its usage goes on its latest
// entry (last, when it is that entry and not yet emitted), and what was
// held is released.
func closeGroup(st *parseState, em *sessionlog.Emitter, last *session.Entry) {
	if !st.Open.Active {
		return
	}
	o := st.Open
	st.Open = openGroup{}
	st.markCounted(o.Key)
	u := o.Best.Usage(o.Model)
	if last != nil {
		last.Message.Usage = u
	} else {
		for _, h := range em.Held() {
			if h.Seq == o.LastSeq && h.Message != nil {
				h.Message.Usage = u
				break
			}
		}
	}
	em.Release()
}

func (st *parseState) counted(k groupKey) bool {
	for _, c := range st.Counted {
		if c == k {
			return true
		}
	}
	return false
}

func (st *parseState) markCounted(k groupKey) {
	st.Counted[st.CountedAt] = k
	st.CountedAt = (st.CountedAt + 1) % countedGroupSlots
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

// content maps message content: a string (one text block, isString) or an
// array of blocks.
func (f format) content(raw json.RawMessage, at sessionlog.Pos, em *sessionlog.Emitter, field string) ([]session.Block, bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			em.Warn(at, fmt.Sprintf("field %q: %v", field, err))
		}
		return []session.Block{{Type: session.BlockText, Text: s}}, true
	case '[':
		var blocks []wireBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			em.Warn(at, fmt.Sprintf("field %q: %s", field, sessionlog.FieldWarning(err)))
		}
		out := []session.Block{}
		for i := range blocks {
			out = append(out, f.block(&blocks[i])...)
		}
		return out, false
	}
	em.Warn(at, fmt.Sprintf("field %q: %s where a string or an array of blocks is expected; left empty", field, sessionlog.Kind(raw[0])))
	return nil, false
}

// block maps a content block (§1.3): text, thinking, redacted_thinking,
// tool_use (and server_tool_use) as a tool call, image; any other block
// keeps its type ("claude:" + type) and stays whole in the entry's Raw.
func (format) block(b *wireBlock) []session.Block {
	switch b.Type {
	case "text":
		return []session.Block{{Type: session.BlockText, Text: b.Text}}
	case "thinking":
		return []session.Block{{Type: session.BlockThinking, Thinking: b.Thinking}}
	case "redacted_thinking":
		return []session.Block{{Type: session.BlockThinking, Redacted: true}}
	case "tool_use", "server_tool_use":
		args := b.Input
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return []session.Block{{Type: session.BlockToolCall, ID: b.ID, Name: b.Name, Arguments: args}}
	case "image":
		if b.Source != nil {
			return []session.Block{{Type: session.BlockImage, Data: b.Source.Data, MimeType: b.Source.MediaType}}
		}
		return []session.Block{{Type: session.BlockImage}}
	case "tool_result":
		return nil
	}
	return []session.Block{{Type: TypePrefix + b.Type}}
}

// stopReason maps Anthropic's stop_reason to pi's (stop, length, toolUse,
// error); others are kept as written.
func stopReason(s string) string {
	switch s {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "toolUse"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "refusal":
		return "error"
	}
	return s
}

func firstText(bs []session.Block) string {
	for _, b := range bs {
		if b.Type == session.BlockText {
			return strings.TrimSpace(b.Text)
		}
	}
	return ""
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

// notClaude checks the first object: nil when it can start a Claude Code
// file, else an error matching session.ErrNoHeader that says what the file
// is.
func notClaude(ln *wireLine, obj []byte, file string) error {
	if claudeTypes[ln.Type] && len(ln.Payload) == 0 || ln.SessionID != "" && ln.Type != "session" && len(ln.Payload) == 0 {
		return nil
	}
	f, why := sessionformat.Detect(append(append([]byte{}, obj...), '\n'))
	if f != "" {
		return sessionlog.ErrNotFormat("claudecode", fmt.Sprintf("%s: line 1: not a Claude Code session: %s (a %s file)", file, why, f))
	}
	return sessionlog.ErrNotFormat("claudecode", fmt.Sprintf("%s: line 1: not a Claude Code session: %s", file, why))
}
