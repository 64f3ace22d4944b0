package gemini

// One message object (a line, or an element of a rewrite's list) mapped to
// its entries: parts to blocks, a tool-result message to one entry per
// result.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// msgInfo is one message object mapped to its entries (one; a tool-result
// message: one per result), with what the classification needs.
type msgInfo struct {
	id, typ      string
	entries      []*session.Entry
	sum          uint64 // fingerprint of the content a copy repeats (see fingerprint)
	empty        bool   // no text and no tool call: matching by content says nothing
	prompt       bool   // a user message the person wrote
	context      bool   // <session_context> or <hook_context>
	snapshot     bool   // a compression's <state_snapshot>
	userText     bool   // a user message with text (a prompt, or a summary)
	results      bool   // a user message made of functionResponse parts only
	aside        bool   // info, warning, error, another type: shown, not sent
	tokens       *wireTokens
	importedFrom string // an info message's "Imported session from <path>"
}

// message maps one message object (a line, or an element of a $set's
// list) to its entries, unclassified: no parent, turn or copy mark. held,
// when not nil, lets tool results take their Details from the held gemini
// message that ran them.
func (f format) message(st *parseState, rec *wireRecord, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter, field string, held *sessionlog.Emitter, noID string) msgInfo {
	mi := msgInfo{id: rec.ID, typ: rec.Type}
	if mi.id == "" {
		em.Warn(at, fmt.Sprintf("field %q: missing on a message; the entry is %s", join(field, "id"), noID))
		mi.id = noID
	}
	ts := when(rec.Timestamp, at, em, join(field, "timestamp"))
	var parts []wirePart
	var text string
	isString := false
	switch c := rec.Content; {
	case len(c) == 0 || bytes.Equal(c, []byte("null")):
	case c[0] == '"':
		isString = true
		_ = json.Unmarshal(c, &text)
	case c[0] == '[':
		if err := json.Unmarshal(c, &parts); err != nil {
			em.Warn(at, fieldWarning(join(field, "content"), err))
		}
	default:
		em.Warn(at, fmt.Sprintf("field %q: %s where a string or a list of parts is expected; left empty", join(field, "content"), sessionlog.Kind(c[0])))
	}

	// A user message of tool results: one entry per result, at its part.
	if rec.Type == "user" && len(parts) > 0 && allResponses(parts) {
		if spans, ok := contentSpans(obj); ok && len(spans) == len(parts) {
			mi.results = true
			ids := make([]string, 0, len(parts))
			for k, sp := range spans {
				pos := sessionlog.Pos{Line: at.Line, Offset: at.Offset + int64(sp.Start)}
				mi.entries = append(mi.entries, f.result(st, parts[k].FunctionResponse, k, mi.id, obj[sp.Start:sp.End], pos, ts, held))
				ids = append(ids, parts[k].FunctionResponse.ID)
			}
			slices.Sort(ids)
			mi.sum = fingerprint("r", "", slices.Compact(ids))
			return mi
		}
	}

	e := st.newEntry(at, obj, session.TypeMessage)
	e.ID, e.Timestamp = mi.id, ts
	mi.entries = []*session.Entry{e}
	m := &session.Message{Timestamp: session.UnixMilli(ts)}
	e.Message = m
	var blocks []session.Block
	if isString {
		if text != "" || rec.Type != "gemini" {
			blocks = []session.Block{{Type: session.BlockText, Text: text}}
		}
		m.ContentIsString = rec.Type != "gemini"
	} else {
		blocks = partBlocks(parts)
	}
	switch rec.Type {
	case "user":
		m.Role, m.Content = session.RoleUser, blocks
		t := session.JoinText(blocks)
		mi.userText = strings.TrimSpace(t) != ""
		switch {
		case strings.HasPrefix(t, prefixSessionContext):
			m.Role, m.CustomType, mi.context = session.RoleCustom, CustomSessionContext, true
		case strings.HasPrefix(t, prefixHookContext):
			m.Role, m.CustomType, mi.context = session.RoleCustom, CustomHookContext, true
		case strings.HasPrefix(t, prefixStateSnapshot):
			mi.snapshot = true
		default:
			mi.prompt = true
		}
		mi.sum = fingerprint("u", t, nil)
		mi.empty = !mi.userText
	case "gemini":
		f.response(st, rec, m, blocks, &mi)
	case "error":
		m.Role, m.StopReason, m.ErrorMessage, m.Model = session.RoleAssistant, "error", session.JoinText(blocks), st.Model
		mi.sum, mi.aside = fingerprint("e", m.ErrorMessage, nil), true
	default:
		m.Role, m.Content, m.Display = session.RoleCustom, blocks, true
		mi.aside = true
		m.CustomType = TypePrefix + rec.Type
		switch rec.Type {
		case "info":
			m.CustomType = CustomInfo
			if t := session.JoinText(blocks); strings.HasPrefix(t, prefixImported) {
				mi.importedFrom = strings.TrimSpace(strings.TrimPrefix(t, prefixImported))
			}
		case "warning":
			m.CustomType = CustomWarning
		}
		mi.sum = fingerprint(rec.Type, session.JoinText(blocks), nil)
	}
	return mi
}

// response maps a gemini message: its thoughts (the thought parts of a
// rewritten one, else thoughts[]: "**subject**\n\ndescription"), text and
// tool calls (functionCall parts, else toolCalls[]), model and usage.
func (format) response(st *parseState, rec *wireRecord, m *session.Message, blocks []session.Block, mi *msgInfo) {
	m.Role, m.Model = session.RoleAssistant, rec.Model
	hasThinking, hasCalls := false, false
	for _, b := range blocks {
		hasThinking = hasThinking || b.Type == session.BlockThinking
		hasCalls = hasCalls || b.Type == session.BlockToolCall
	}
	var out []session.Block
	if !hasThinking {
		for _, t := range rec.Thoughts {
			s := t.Description
			if t.Subject != "" {
				s = "**" + t.Subject + "**\n\n" + t.Description
			}
			out = append(out, session.Block{Type: session.BlockThinking, Thinking: s})
		}
	}
	out = append(out, blocks...)
	if !hasCalls {
		for _, c := range rec.ToolCalls {
			out = append(out, session.Block{Type: session.BlockToolCall, ID: c.ID, Name: c.Name, Arguments: arguments(c.Args)})
		}
	}
	m.Content = out
	var text []string
	var ids []string
	for _, b := range out {
		switch b.Type {
		case session.BlockText:
			text = append(text, b.Text)
		case session.BlockToolCall:
			ids = append(ids, b.ID)
			st.addCall(call{ID: b.ID, Name: b.Name, Msg: rec.ID})
			m.StopReason = "toolUse"
		}
	}
	if m.StopReason == "" && len(out) > 0 {
		m.StopReason = "stop"
	}
	for _, c := range rec.ToolCalls {
		st.addCall(call{ID: c.ID, Name: c.Name, Msg: rec.ID, Status: c.Status, Agent: c.AgentID})
	}
	if rec.Tokens != nil {
		m.Usage = rec.Tokens.Usage()
		t := *rec.Tokens
		mi.tokens = &t
	}
	joined := strings.Join(text, "\n")
	mi.sum = fingerprint("g", joined, ids)
	mi.empty = strings.TrimSpace(joined) == "" && len(ids) == 0
}

// partBlocks maps Gemini API parts (see part) to blocks.
func partBlocks(ps []wirePart) []session.Block {
	out := []session.Block{}
	for i := range ps {
		p := &ps[i]
		if p.Text != nil {
			if p.Thought {
				out = append(out, session.Block{Type: session.BlockThinking, Thinking: *p.Text})
			} else {
				out = append(out, session.Block{Type: session.BlockText, Text: *p.Text})
			}
		}
		if fc := p.FunctionCall; fc != nil {
			out = append(out, session.Block{Type: session.BlockToolCall, ID: fc.ID, Name: fc.Name, Arguments: arguments(fc.Args)})
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
	}
	return out
}

func allResponses(ps []wirePart) bool {
	for i := range ps {
		p := &ps[i]
		if p.FunctionResponse == nil || p.Text != nil || p.FunctionCall != nil || p.InlineData != nil {
			return false
		}
	}
	return true
}

// contentSpans returns the spans of the parts of a message object's
// content list, within obj.
func contentSpans(obj []byte) ([]span, bool) {
	ms, ok := members(obj)
	if !ok {
		return nil, false
	}
	c, ok := memberVal(ms, "content")
	if !ok {
		return nil, false
	}
	es, ok := elements(obj[c.Start:c.End])
	if !ok {
		return nil, false
	}
	for i := range es {
		es[i].Start += c.Start
		es[i].End += c.Start
	}
	return es, true
}

var exitCode = regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)

// toolDetails is a tool result's Details: what Gemini CLI kept of the call
// beside the response the model got.
type toolDetails struct {
	Status        string          `json:"status,omitempty"`
	ExitCode      *int            `json:"exitCode,omitempty"`
	ResultDisplay json.RawMessage `json:"resultDisplay,omitempty"`
}

// result maps one functionResponse part to a tool result entry whose Raw
// is the part: ToolCallID and ToolName the response's, content its output
// or error, IsError when it is an error, the call's status says so, or a
// shell command's exit code is not 0; SubagentID the sub-agent an
// invoke_agent call ran. Details (status, exit code, resultDisplay: a diff,
// a sub-agent's progress) come from the gemini message that made the call
// when held is given and holds it. id is the message's, k the part's index
// (the entry id when the response has no id).
func (format) result(st *parseState, fr *wireFunctionResponse, k int, id string, raw []byte, at sessionlog.Pos, ts time.Time, held *sessionlog.Emitter) *session.Entry {
	e := st.newEntry(at, raw, session.TypeMessage)
	e.Timestamp = ts
	m := &session.Message{Role: session.RoleToolResult, Timestamp: session.UnixMilli(ts), ToolCallID: fr.ID, ToolName: fr.Name, Content: []session.Block{}}
	e.Message = m
	e.ID = fr.ID
	if e.ID == "" {
		e.ID = id + "#" + strconv.Itoa(k+1)
	}
	text, failed := responseText(fr.Response)
	if text != "" {
		m.Content = append(m.Content, session.Block{Type: session.BlockText, Text: text})
	}
	var det toolDetails
	if fr.Name == ToolShell {
		if x := exitCode.FindAllStringSubmatch(text, -1); len(x) > 0 {
			if n, err := strconv.Atoi(x[len(x)-1][1]); err == nil {
				det.ExitCode = &n
				failed = failed || n != 0
			}
		}
	}
	c := st.call(fr.ID)
	if m.ToolName == "" {
		m.ToolName = c.Name
	}
	det.Status = c.Status
	failed = failed || c.Status == "error"
	e.SubagentID = c.Agent
	if held != nil && fr.ID != "" {
		det.ResultDisplay = heldDisplay(held, fr.ID)
	}
	m.IsError = failed
	if det.Status != "" || det.ExitCode != nil || det.ResultDisplay != nil {
		if b, err := json.Marshal(det); err == nil {
			m.Details = b
		}
	}
	return e
}

// heldDisplay returns the resultDisplay of the call id from the held gemini
// message that made it, nil when none is held.
func heldDisplay(em *sessionlog.Emitter, id string) json.RawMessage {
	for _, h := range slices.Backward(em.Held()) {
		if h.Message == nil || h.Message.Role != session.RoleAssistant || !bytes.Contains(h.Raw, []byte(`"toolCalls"`)) {
			continue
		}
		var v struct {
			ToolCalls []struct {
				ID            string          `json:"id"`
				ResultDisplay json.RawMessage `json:"resultDisplay"`
			} `json:"toolCalls"`
		}
		if json.Unmarshal(h.Raw, &v) != nil {
			continue
		}
		for _, c := range v.ToolCalls {
			if c.ID == id && len(c.ResultDisplay) > 0 && !bytes.Equal(c.ResultDisplay, []byte("null")) {
				return c.ResultDisplay
			}
		}
	}
	return nil
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

// arguments returns a tool call's arguments as JSON, "{}" when there are
// none.
func arguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}")
	}
	return raw
}
