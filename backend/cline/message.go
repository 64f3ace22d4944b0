package cline

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
)

// decoder maps a document's messages to entries, in order: it carries the
// entry before (ParentID), the prompt being answered (TurnID), the tool
// calls made (a result's spawn_agent task) and the models seen.
type decoder struct {
	file    string
	sub     bool   // a sub-agent's conversation: Sidechain
	agentID string // the sub-agent's id
	rootID  string // its root session's id
	prev    string
	turn    string
	firstTS int64
	calls   map[string]call
	subs    []Subagent
	used    map[string]bool // sub-agents linked to a call
	models  []string
	walk    *walker // known's, made on its first use and reused
	scan    scanned // known's, reused
}

// call is a tool call made by an assistant message.
type call struct {
	name string
	task string // spawn_agent's task
}

func newDecoder(file string, e env, side Side) *decoder {
	d := &decoder{file: file, calls: map[string]call{}, subs: side.Subagents, used: map[string]bool{}}
	if e.Agent == "subagent" || e.Origin.Mode == "subagent" || e.Origin.Subagent != "" {
		d.sub = true
		root, agent, ok := splitAgentSession(e.SessionID)
		d.agentID, d.rootID = e.Origin.Subagent, e.Origin.ParentThreadID
		if d.agentID == "" && ok {
			d.agentID = agent
		}
		if d.rootID == "" && ok {
			d.rootID = root
		}
	}
	return d
}

// message maps the message raw (the index-th of the document, at byte off
// on line line) to an item; reason says why it is left out instead.
func (d *decoder) message(raw []byte, index int, off int64, line int) (sessiondoc.Item, string) {
	var m wireMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return sessiondoc.Item{}, fieldReason("", err)
	}
	if m.Role == "" {
		return sessiondoc.Item{}, `no "role"`
	}
	blocks, isString, reason := decodeContent(m.Content)
	if reason != "" {
		return sessiondoc.Item{}, reason
	}
	key := sessiondoc.Key(m.ID, index, raw)
	id := entryID(m.ID, key)
	e := &session.Entry{Line: line, Offset: off, Type: session.TypeMessage, ID: id, ParentID: d.prev,
		Raw: append(json.RawMessage(nil), raw...), Sidechain: d.sub}
	var ts int64
	if m.TS != nil {
		ts = *m.TS
		e.Timestamp = time.UnixMilli(ts).UTC()
		d.noteTime(ts)
	}
	if md := m.Metadata; md != nil && (md.Kind == "compaction_summary" || md.Kind == "compaction") {
		d.compactionMessage(e, &m, blocks)
	} else {
		msg := &session.Message{Role: m.Role, Timestamp: ts, ContentIsString: isString}
		e.Message = msg
		switch m.Role {
		case "user":
			d.user(e, msg, blocks)
		case "assistant":
			d.assistant(msg, &m, blocks)
		default:
			msg.Role, msg.CustomType, msg.Display = session.RoleCustom, CustomPrefix+m.Role, true
			msg.Content = blockList(blocks)
		}
		if e.TurnID == "" {
			e.TurnID = d.turn
		}
	}
	d.prev = e.ID
	return sessiondoc.Item{Key: key, Entry: e}, ""
}

// entryID is the entry id of a message with the id id and the key key:
// its id, else "m-<hash>" (the hash of its key).
func entryID(id, key string) string {
	if id != "" {
		return id
	}
	return "m-" + key[strings.LastIndexByte(key, '#')+1:]
}

// unwrapInput takes off the wrapper Cline puts around a typed prompt
// (<user_input mode="act">…</user_input>, with the mode it ran in; the
// model got the bare text); ok false when s has none.
func unwrapInput(s string) (string, bool) {
	const open, end = `<user_input mode="`, "</user_input>"
	if !strings.HasPrefix(s, open) || !strings.HasSuffix(s, end) {
		return s, false
	}
	i := strings.Index(s[len(open):], `">`)
	if i < 0 || strings.ContainsRune(s[len(open):len(open)+i], '"') || len(open)+i+2 > len(s)-len(end) {
		return s, false
	}
	return s[len(open)+i+2 : len(s)-len(end)], true
}

// user maps a user message: a prompt (its wrapper taken off), or tool
// results.
func (d *decoder) user(e *session.Entry, msg *session.Message, blocks []wireBlock) {
	var results []wireBlock
	for _, b := range blocks {
		if b.Type == "tool_result" {
			results = append(results, b)
		}
	}
	if len(results) == 0 {
		msg.Content = blockList(blocks)
		for i := range msg.Content {
			if msg.Content[i].Type == session.BlockText {
				msg.Content[i].Text, _ = unwrapInput(msg.Content[i].Text)
			}
		}
		d.turn = e.ID
		e.TurnID = e.ID
		return
	}
	first := results[0]
	msg.Role, msg.ToolCallID, msg.ToolName = session.RoleToolResult, first.ToolUseID, first.Name
	if msg.ToolName == "" {
		msg.ToolName = d.calls[first.ToolUseID].name
	}
	msg.Details = first.Content
	if len(results) > 1 || len(results) != len(blocks) {
		// Not written by 3.0.65 (one result a message): every block's text,
		// the whole content as Details.
		all, _ := json.Marshal(blocks)
		msg.Details = all
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			msg.Content = append(msg.Content, blockList([]wireBlock{b})...)
			continue
		}
		text, failed := resultText(b.Content)
		msg.IsError = msg.IsError || b.IsError || failed
		if text != "" {
			msg.Content = append(msg.Content, session.Block{Type: session.BlockText, Text: text})
		}
	}
	e.SubagentID = d.linkSubagent(first.ToolUseID)
}

// noteTime notes a message's time (Unix milliseconds): the first one
// dates a session that has no other start time.
func (d *decoder) noteTime(ts int64) {
	if d.firstTS == 0 {
		d.firstTS = ts
	}
}

// linkSubagent is the sub-agent a result of the call toolUseID answers:
// for a spawn_agent call, the first sub-agent beside the session (d.subs)
// not linked yet whose task is the call's (then linked); "" for another
// call, or none.
func (d *decoder) linkSubagent(toolUseID string) string {
	c, ok := d.calls[toolUseID]
	if !ok || c.name != "spawn_agent" {
		return ""
	}
	for _, s := range d.subs {
		if !d.used[s.AgentID] && s.Task != "" && s.Task == c.task {
			d.used[s.AgentID] = true
			return s.AgentID
		}
	}
	return ""
}

// noteCall notes the tool call id (its tool name, its input) an assistant
// message made, for the results that answer it: a spawn_agent call's task
// names the sub-agent it started.
func (d *decoder) noteCall(id, name string, input json.RawMessage) {
	c := call{name: name}
	if name == "spawn_agent" {
		var in struct {
			Task string `json:"task"`
		}
		_ = json.Unmarshal(input, &in) // a task that is no string names no sub-agent
		c.task = in.Task
	}
	d.calls[id] = c
}

// assistant maps a model response (or an error shown in its place).
func (d *decoder) assistant(msg *session.Message, m *wireMessage, blocks []wireBlock) {
	msg.Content = blockList(blocks)
	msg.StopReason = "stop"
	for _, b := range blocks {
		if b.Type == "tool_use" {
			msg.StopReason = "toolUse"
			d.noteCall(b.ID, b.Name, b.Input)
		}
	}
	if mi := m.ModelInfo; mi != nil {
		msg.Model, msg.Provider = mi.ID, mi.Provider
		d.addModel(mi.ID)
	}
	if md := m.Metadata; md != nil && md.DisplayRole == "error" || strings.HasPrefix(m.ID, "error_") {
		msg.StopReason = "error"
		var texts []string
		for _, b := range msg.Content {
			if b.Type == session.BlockText {
				texts = append(texts, b.Text)
			}
		}
		msg.ErrorMessage = strings.Join(texts, "\n")
	}
	if mt := m.Metrics; mt != nil {
		msg.Usage = usage(mt)
	}
}

// usage is a response's usage: Cline's inputTokens counts the cached prompt
// tokens too; Rhizome's Input does not.
func usage(mt *wireMetrics) *session.Usage {
	u := &session.Usage{Output: mt.OutputTokens, CacheRead: mt.CacheReadTokens, CacheWrite: mt.CacheWriteTokens}
	u.Input = max(0, mt.InputTokens-mt.CacheReadTokens)
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	switch {
	case mt.Cost != nil:
		u.Cost.Total = *mt.Cost
	case mt.TotalCost != nil:
		u.Cost.Total = *mt.TotalCost
	}
	return u
}

// compactionMessage maps a message that stands for a compaction (a summary
// or the notice an overflow recovery adds).
func (d *decoder) compactionMessage(e *session.Entry, m *wireMessage, blocks []wireBlock) {
	md := m.Metadata
	e.Type, e.Message = session.TypeCompaction, nil
	e.Summary = md.Summary
	if e.Summary == "" {
		var texts []string
		for _, b := range blocks {
			if _, wrapped := unwrapInput(b.Text); b.Type == "text" && !wrapped {
				texts = append(texts, b.Text)
			}
		}
		e.Summary = strings.TrimPrefix(strings.Join(texts, "\n"), "Context summary:\n\n")
	}
	e.TokensBefore = md.TokensBefore
	if e.TokensBefore == 0 && md.UsageBefore != nil {
		e.TokensBefore = md.UsageBefore.InputTokens
	}
	e.Details = md.Details
	e.TurnID = d.turn
}

// compaction is the entry of the compacted view <id>.compaction.json
// (comp, named name), read against the document's messages msgs.
func (d *decoder) compaction(comp *wireCompaction, msgs []sessiondoc.Span, doc []byte, name string) sessiondoc.Item {
	e := &session.Entry{Type: session.TypeCompaction, ParentID: d.prev, TurnID: d.turn, Sidechain: d.sub,
		Raw: append(json.RawMessage(nil), comp.Raw...)}
	if t, err := time.Parse(time.RFC3339Nano, comp.UpdatedAt); err == nil {
		e.Timestamp = t.UTC()
	}
	if len(comp.Messages) > 0 {
		first := comp.Messages[0]
		blocks, _, _ := decodeContent(first.Content)
		tmp := &session.Entry{}
		if first.Metadata == nil {
			first.Metadata = &wireMessageMeta{}
		}
		d.compactionMessage(tmp, &first, blocks)
		e.Summary, e.TokensBefore, e.Details = tmp.Summary, tmp.TokensBefore, tmp.Details
		for _, m := range comp.Messages[1:] {
			if m.ID != "" {
				e.FirstKeptEntryID = m.ID
				break
			}
		}
		if e.FirstKeptEntryID == "" {
			e.FirstKeptEntryID = first.ID
		}
	}
	if e.FirstKeptEntryID == "" && comp.SourceMessageCount < len(msgs) {
		var m struct {
			ID string `json:"id"`
		}
		sp := msgs[comp.SourceMessageCount]
		if json.Unmarshal(doc[sp.Start:sp.End], &m) == nil {
			e.FirstKeptEntryID = m.ID
		}
	}
	e.ID = "compaction-" + strconv.Itoa(comp.SourceMessageCount) + "-" + sessiondoc.ContentHash(comp.Raw)
	d.prev = e.ID
	_ = name
	return sessiondoc.Item{Key: "compaction:" + strconv.Itoa(comp.SourceMessageCount) + "#" + sessiondoc.ContentHash(comp.Raw), Entry: e}
}

// decodeContent decodes a message's content: a list of blocks, or a string
// (one text block: isString); reason says what is wrong with it.
func decodeContent(raw json.RawMessage) (blocks []wireBlock, isString bool, reason string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, ""
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, fieldReason("content", err)
		}
		return []wireBlock{{Type: "text", Text: s}}, true, ""
	case '[':
		if json.Unmarshal(raw, &blocks) == nil {
			return blocks, false, ""
		}
		// Which block is wrong: decoded one by one.
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, false, fieldReason("content", err)
		}
		blocks = make([]wireBlock, len(list))
		for i, b := range list {
			if err := json.Unmarshal(b, &blocks[i]); err != nil {
				return nil, false, fieldReason("content["+strconv.Itoa(i)+"]", err)
			}
		}
		return blocks, false, ""
	}
	return nil, false, fmt.Sprintf(`field "content": %s where a list of blocks or a string is expected`, sessiondoc.Kind(raw[0]))
}

// blockList maps content blocks to the model's: text, thinking (redacted
// too), toolCall, image; a tool result's text (a tool_result block in a
// message of other blocks); another type keeps its type, empty (Raw has
// it).
func blockList(blocks []wireBlock) []session.Block {
	out := make([]session.Block, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, session.Block{Type: session.BlockText, Text: b.Text})
		case "thinking":
			out = append(out, session.Block{Type: session.BlockThinking, Thinking: b.Thinking})
		case "redacted_thinking":
			out = append(out, session.Block{Type: session.BlockThinking, Redacted: true, Thinking: b.Data})
		case "tool_use":
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out = append(out, session.Block{Type: session.BlockToolCall, ID: b.ID, Name: b.Name, Arguments: args})
		case "image":
			img := session.Block{Type: session.BlockImage, Data: b.Data, MimeType: b.MediaType}
			if img.MimeType == "" {
				img.MimeType = b.MimeType
			}
			if s := b.Source; s != nil {
				img.Data, img.MimeType = s.Data, s.MediaType
			}
			out = append(out, img)
		case "tool_result":
			text, _ := resultText(b.Content)
			out = append(out, session.Block{Type: session.BlockText, Text: text})
		default:
			out = append(out, session.Block{Type: b.Type})
		}
	}
	return out
}

// resultText is a tool result's content as text, and whether it failed:
// a list of {query, result, success, error} items (a command and its
// output, a path and its numbered lines), a JSON string of one such object
// (editor) or of {text} (spawn_agent), text blocks, or a plain string.
func resultText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		var it wireItem
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &it) == nil {
			return it.text(false)
		}
		return s, false
	case '[':
		var items []wireItem
		if json.Unmarshal(raw, &items) != nil {
			return string(raw), false
		}
		var parts []string
		failed := false
		for _, it := range items {
			t, f := it.text(len(items) > 1 || it.Query != "")
			failed = failed || f
			if t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n"), failed
	case '{':
		var it wireItem
		if json.Unmarshal(raw, &it) == nil {
			return it.text(false)
		}
	}
	return string(raw), false
}

// text is an item's text: its query on a line of its own when withQuery,
// its result (or text), its error; failed when it did not succeed.
func (it wireItem) text(withQuery bool) (string, bool) {
	var parts []string
	if withQuery && it.Query != "" {
		parts = append(parts, it.Query)
	}
	if len(it.Result) > 0 && string(it.Result) != "null" {
		var s string
		if json.Unmarshal(it.Result, &s) == nil {
			if s != "" {
				parts = append(parts, s)
			}
		} else {
			parts = append(parts, string(it.Result))
		}
	}
	if it.Text != "" {
		parts = append(parts, it.Text)
	}
	if it.Error != "" {
		parts = append(parts, it.Error)
	}
	return strings.Join(parts, "\n"), it.Success != nil && !*it.Success || it.Error != ""
}

// fieldReason words a decoding error of a message for a problem: a type
// mismatch as `field "content[2].text": JSON number where string is
// expected`.
func fieldReason(prefix string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		switch {
		case prefix != "" && f != "":
			f = prefix + "." + f
		case prefix != "":
			f = prefix
		}
		if f == "" {
			return fmt.Sprintf("JSON %s where %s is expected", te.Value, te.Type)
		}
		return fmt.Sprintf("field %q: JSON %s where %s is expected", f, te.Value, te.Type)
	}
	if prefix != "" {
		return fmt.Sprintf("field %q: %v", prefix, err)
	}
	return err.Error()
}
