package opencode

// The rows of a document mapped to entries (see the package comment,
// "Entries").

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/session"
)

// Entry types and names the reader gives OpenCode rows that are not pi
// entry types.
const (
	TypePrefix = "opencode:"
	// TypeCompactionRequest is a user message holding a compaction part:
	// OpenCode asked for a compaction (Subtype "auto", "overflow" or
	// "manual"); the compaction entry, its summary, follows.
	TypeCompactionRequest = "opencode:compaction"
	// TypeTodos is the session's todo list (its todo rows).
	TypeTodos = "opencode:todos"

	// Message.CustomType of the user messages OpenCode writes itself.
	CustomContinue  = "opencode:continue"
	CustomSynthetic = "opencode:synthetic"

	// Block types of the parts that are no pi block.
	BlockFile    = "opencode:file"
	BlockPatch   = "opencode:patch"
	BlockRetry   = "opencode:retry"
	BlockAgent   = "opencode:agent"
	BlockSubtask = "opencode:subtask"

	// ToolTask is OpenCode's sub-agent tool; ToolInvalid the tool OpenCode
	// answers a call of an unknown tool with.
	ToolTask    = "task"
	ToolInvalid = "invalid"

	// TodosID is the id of the todo list's entry.
	TodosID = "todos"
)

// Metadata is what a session document says about the session as a whole,
// with counts of what the entries hold. Times are Unix milliseconds; costs
// USD.
type Metadata struct {
	// Title is OpenCode's title of the session (its generated title, or
	// the one given with --title); "" while it is still the placeholder
	// "New session - <ISO time>" ("Child session - …" for a sub-agent).
	Title     string `json:"title,omitempty"`
	Slug      string `json:"slug,omitempty"`
	ProjectID string `json:"projectId,omitempty"`
	Worktree  string `json:"worktree,omitempty"`  // the project's root
	Directory string `json:"directory,omitempty"` // where the session ran (Header.Cwd)
	Agent     string `json:"agent,omitempty"`     // the session's agent ("build"; a sub-agent's name)
	Version   string `json:"version,omitempty"`   // the OpenCode version that created it
	Created   int64  `json:"created,omitempty"`
	Updated   int64  `json:"updated,omitempty"`

	// Models and Providers list those of the responses counted, in order
	// of first use (compactions' included).
	Models    []string `json:"models,omitempty"`
	Providers []string `json:"providers,omitempty"`

	Prompts     int `json:"prompts,omitempty"`     // user messages a person wrote (not copies, not replayed)
	Responses   int `json:"responses,omitempty"`   // assistant messages counted (not compactions, not replayed)
	ToolCalls   int `json:"toolCalls,omitempty"`   // tool parts of the responses counted
	ToolErrors  int `json:"toolErrors,omitempty"`  // tool results counted that are errors
	Errors      int `json:"errors,omitempty"`      // responses that ended in an error
	Compactions int `json:"compactions,omitempty"` // compaction entries
	Subagents   int `json:"subagents,omitempty"`   // task calls that name a child session
	Synthetic   int `json:"synthetic,omitempty"`   // user messages OpenCode wrote (custom entries)
	Copies      int `json:"copies,omitempty"`      // prompts sent again after an overflow (DuplicateOf)
	Replayed    int `json:"replayed,omitempty"`    // entries copied from the session forked
	Todos       int `json:"todos,omitempty"`       // rows of the todo list
	// UnknownParts lists the part types this reader does not know, in
	// order of first sight (kept in the entries' Raw).
	UnknownParts []string `json:"unknownParts,omitempty"`

	// Cost sums the cost of the responses and compactions counted;
	// SessionCost is the session row's own running total (which, in a
	// fork, includes the copied messages).
	Cost        float64 `json:"cost,omitempty"`
	SessionCost float64 `json:"sessionCost,omitempty"`
	// Usage sums the responses counted; CompactionUsage the compactions'.
	Usage           Totals `json:"usage"`
	CompactionUsage Totals `json:"compactionUsage"`
}

func addUnique(list []string, s string) []string {
	if s != "" && !slices.Contains(list, s) {
		list = append(list, s)
	}
	return list
}

// placeholderTitle is the title OpenCode gives a session until it names it.
var placeholderTitle = regexp.MustCompile(`^(New|Child) session - \d{4}-\d\d-\d\dT`)

// taskID is the child session id in a task tool's output.
var taskID = regexp.MustCompile(`<task id="(ses_[A-Za-z0-9]+)"|task_id: (ses_[A-Za-z0-9]+)`)

// mapper maps a document's rows to entries, in document order.
type mapper struct {
	w *walker
	d *document
	p *Parsed

	sub      bool              // a sub-agent's session: every entry Sidechain
	alone    bool              // a stored row decoded alone (DecodeStored): its message's files are not at hand
	replayed map[string]string // a fork's copied message id -> its original
	prev     string            // the last entry's id

	lastTotal  int64  // the last response's total tokens (a compaction's TokensBefore)
	trigger    string // the compaction asked for, until its summary
	lastPrompt string // the last prompt's entry id and text
	promptText string
	replayOf   string // after an overflow compaction: the prompt OpenCode sends again
}

func newMapper(w *walker, d *document) *mapper {
	return &mapper{w: w, d: d, p: &Parsed{}}
}

// run maps the whole document.
func (m *mapper) run() *Parsed {
	d, p, s := m.d, m.p, m.d.session
	h := &session.Header{Type: "session", ID: s.ID, Format: Format, AgentVersion: s.Version, Cwd: s.Directory,
		Raw: m.raw(d.sessionAt)}
	if s.TimeCreated > 0 {
		h.Timestamp = time.UnixMilli(s.TimeCreated).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	meta := &p.Meta
	if d.project != nil {
		meta.Worktree = d.project.Worktree
		if h.Cwd == "" {
			h.Cwd = d.project.Worktree
		}
	}
	var model wireModelRef
	if len(s.Model) > 0 && s.Model[0] == '{' && json.Unmarshal(s.Model, &model) == nil {
		h.ModelID, h.Provider = model.ID, model.ProviderID
	}
	if s.ParentID != nil && *s.ParentID != "" {
		m.sub = true
		h.ParentSession, h.AgentID = *s.ParentID, s.ID
	} else if f := d.fork; f != nil && len(f.Messages) > 0 {
		h.ParentSession = f.Session
		m.replayed = make(map[string]string, len(f.Messages))
		for _, pair := range f.Messages {
			m.replayed[pair[0]] = pair[1]
		}
		p.Fork = &Fork{Parent: f.Session, Point: f.Messages[len(f.Messages)-1][1], Copied: len(f.Messages)}
	}
	p.Header = h
	if !placeholderTitle.MatchString(s.Title) {
		meta.Title = s.Title
	}
	meta.Slug, meta.ProjectID, meta.Directory, meta.Version = s.Slug, s.ProjectID, h.Cwd, s.Version
	if s.Agent != nil {
		meta.Agent = *s.Agent
	}
	meta.Created, meta.Updated, meta.SessionCost = s.TimeCreated, s.TimeUpdated, s.Cost

	n := len(d.messages) + 1
	for i := range d.messages {
		n += len(d.messages[i].parts) / 3 // tool results: about a third of the parts
	}
	p.Entries = make([]session.Entry, 0, n)
	for i := range d.messages {
		m.message(&d.messages[i])
	}
	if len(d.todos) > 0 {
		e := m.entry(d.todosAt, TypeTodos, TodosID)
		e.Data = e.Raw
		var last int64
		for _, t := range d.todos {
			last = max(last, t.TimeUpdated)
		}
		e.Timestamp = when(last)
		meta.Todos = len(d.todos)
		m.emit(e)
	}
	p.Problems, p.ProblemCount = m.w.problems, m.w.nProbs
	return p
}

// raw is the document's bytes at sp (a slice of the document).
func (m *mapper) raw(sp span) json.RawMessage {
	if sp.start < 0 || sp.end > int64(len(m.w.doc)) || sp.start >= sp.end {
		return nil
	}
	return json.RawMessage(m.w.doc[sp.start:sp.end:sp.end])
}

// entry is a new entry of type typ and id at sp.
func (m *mapper) entry(sp span, typ, id string) *session.Entry {
	return &session.Entry{Offset: sp.start, Line: m.w.line(sp.start), Type: typ, ID: id, Raw: m.raw(sp), Sidechain: m.sub}
}

// emit appends e, chained to the entry before.
func (m *mapper) emit(e *session.Entry) {
	e.Seq = len(m.p.Entries)
	e.ParentID, m.prev = m.prev, e.ID
	if e.Replayed {
		m.p.Meta.Replayed++
	}
	m.p.Entries = append(m.p.Entries, *e)
}

// when is a time in Unix milliseconds, zero for 0.
func when(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// message maps one message row: its entry, then its tool results.
func (m *mapper) message(dm *docMessage) {
	w := m.w
	if dm.bad != "" {
		id := dm.id
		if id == "" {
			id = "(no id)"
		}
		w.problem(dm.at.start, fmt.Sprintf("message %s: %s; message left out", id, dm.bad))
		return
	}
	parts := make([]*docPart, 0, len(dm.parts))
	for i := range dm.parts {
		dp := &dm.parts[i]
		bad := dp.bad
		switch {
		case bad != "":
		case dp.row.ID == "":
			bad = `field "id": missing`
		case dp.row.Data.Type == "":
			bad = `field "data.type": missing`
		}
		if bad != "" {
			id := dp.row.ID
			if id == "" {
				id = fmt.Sprintf("parts[%d]", i)
			}
			w.problem(dp.at.start, fmt.Sprintf("message %s, part %s: %s; part left out", dm.id, id, bad))
			continue
		}
		parts = append(parts, dp)
	}
	ts := dm.created
	if ts <= 0 {
		ts = dm.data.Time.Created
	}
	switch dm.data.Role {
	case "user":
		m.user(dm, parts, ts)
	case "assistant":
		m.assistant(dm, parts, ts)
	default:
		e := m.entry(dm.at, session.TypeMessage, dm.id)
		e.Timestamp = when(ts)
		e.Message = &session.Message{Role: session.RoleCustom, CustomType: TypePrefix + dm.data.Role, Display: true,
			Content: m.blocks(parts), Timestamp: ts}
		if dm.data.Role == "" {
			e.Message.CustomType = TypePrefix + "message"
		}
		m.mark(e, dm)
		m.emit(e)
	}
}

// mark sets what the message's place says: Replayed for a fork's copy.
func (m *mapper) mark(e *session.Entry, dm *docMessage) {
	if _, ok := m.replayed[dm.id]; ok {
		e.Replayed = true
	}
}

// blocks maps parts other than text, reasoning and tool to blocks:
// files, patches, retries, agents, subtasks; unknown types as empty
// "opencode:<type>" blocks. step-start, step-finish, snapshot and
// compaction parts give none.
func (m *mapper) blocks(parts []*docPart) []session.Block {
	out := []session.Block{}
	for _, dp := range parts {
		if b, ok := m.block(&dp.row.Data); ok {
			out = append(out, b)
		}
	}
	return out
}

// block maps one part (see blocks).
func (m *mapper) block(p *wirePart) (session.Block, bool) {
	switch p.Type {
	case "text":
		return session.Block{Type: session.BlockText, Text: p.Text}, true
	case "reasoning":
		if p.Text == "" && len(p.Metadata) == 0 {
			return session.Block{}, false
		}
		return session.Block{Type: session.BlockThinking, Thinking: p.Text, Redacted: p.Text == ""}, true
	case "tool":
		var args json.RawMessage
		if p.State != nil {
			args = p.State.Input
		}
		return session.Block{Type: session.BlockToolCall, ID: p.CallID, Name: p.Tool, Arguments: arguments(args)}, true
	case "file":
		return fileBlock(p), true
	case "patch":
		return session.Block{Type: BlockPatch, Text: strings.Join(p.Files, "\n")}, true
	case "retry":
		return session.Block{Type: BlockRetry, Text: errorText(p.Error)}, true
	case "agent":
		return session.Block{Type: BlockAgent, Name: p.Name}, true
	case "subtask":
		return session.Block{Type: BlockSubtask, Name: p.Agent, Text: p.Prompt}, true
	case "step-start", "step-finish", "snapshot", "compaction":
		return session.Block{}, false
	}
	m.p.Meta.UnknownParts = addUnique(m.p.Meta.UnknownParts, p.Type)
	return session.Block{Type: TypePrefix + p.Type}, true
}

// fileBlock maps a file part: an image given as a data: URL is an image
// block with its bytes; any other file an "opencode:file" block (Name the
// file name, Text its URL unless it is a data: URL, MimeType).
func fileBlock(p *wirePart) session.Block {
	if rest, ok := strings.CutPrefix(p.URL, "data:"); ok {
		meta, data, found := strings.Cut(rest, ",")
		if found && strings.HasPrefix(p.Mime, "image/") && strings.HasSuffix(meta, ";base64") {
			return session.Block{Type: session.BlockImage, Data: data, MimeType: p.Mime}
		}
		return session.Block{Type: BlockFile, Name: p.Filename, MimeType: p.Mime}
	}
	return session.Block{Type: BlockFile, Name: p.Filename, MimeType: p.Mime, Text: p.URL}
}

// arguments is a tool call's input as JSON, "{}" when there is none.
func arguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}")
	}
	return raw
}

// errorText is the message of an OpenCode error object ({"name", "data":
// {"message"}}): data.message, else the name, else the JSON.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message any `json:"message"`
		} `json:"data"`
		Message any `json:"message"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return string(raw)
	}
	for _, v := range []any{e.Data.Message, e.Message} {
		if s, ok := v.(string); ok && s != "" {
			if e.Name != "" && e.Name != "UnknownError" {
				return e.Name + ": " + s
			}
			return s
		}
	}
	if e.Name != "" {
		return e.Name
	}
	return string(raw)
}

// errorName is an error object's name.
func errorName(raw json.RawMessage) string {
	var e struct {
		Name string `json:"name"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &e) == nil {
		return e.Name
	}
	return ""
}

// isError reports whether a JSON value is set (not absent, not null).
func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// user maps a user message: a prompt, a message OpenCode wrote (synthetic
// text only), or a compaction request.
func (m *mapper) user(dm *docMessage, parts []*docPart, ts int64) {
	var compaction *docPart
	var rest []*docPart
	anyText, allSynthetic, cont := false, true, false
	for _, dp := range parts {
		p := &dp.row.Data
		switch p.Type {
		case "compaction":
			if compaction == nil {
				compaction = dp
			}
			continue
		case "text":
			anyText = true
			allSynthetic = allSynthetic && p.Synthetic
			cont = cont || bytes.Contains(p.Metadata, []byte(`"compaction_continue":true`))
		case "step-start", "step-finish", "snapshot":
		default:
			allSynthetic = false
		}
		rest = append(rest, dp)
	}
	if compaction != nil {
		e := m.entry(dm.at, TypeCompactionRequest, dm.id)
		e.Timestamp, e.TurnID = when(ts), dm.id
		c := &compaction.row.Data
		switch {
		case c.Overflow:
			e.Subtype = "overflow"
			m.replayOf = m.lastPrompt
		case c.Auto:
			e.Subtype = "auto"
		default:
			e.Subtype = "manual"
		}
		e.Data = m.raw(compaction.at)
		m.trigger = e.Subtype
		m.mark(e, dm)
		m.emit(e)
		return
	}
	e := m.entry(dm.at, session.TypeMessage, dm.id)
	e.Timestamp, e.TurnID = when(ts), dm.id
	msg := &session.Message{Role: session.RoleUser, Content: m.blocks(rest), Timestamp: ts}
	e.Message = msg
	m.mark(e, dm)
	if anyText && allSynthetic {
		msg.Role, msg.CustomType, msg.Display = session.RoleCustom, CustomSynthetic, true
		if cont {
			msg.CustomType = CustomContinue
		}
		m.p.Meta.Synthetic++
		m.emit(e)
		return
	}
	text := session.JoinText(msg.Content)
	switch {
	case m.replayOf != "" && text == m.promptText:
		e.DuplicateOf = m.replayOf
		m.p.Meta.Copies++
	case !e.Replayed:
		m.p.Meta.Prompts++
	}
	m.replayOf = ""
	m.lastPrompt, m.promptText = dm.id, text
	m.emit(e)
}

// assistant maps an assistant message: a response (then its tool
// results), or a compaction's summary.
func (m *mapper) assistant(dm *docMessage, parts []*docPart, ts int64) {
	data := &dm.data
	meta := &m.p.Meta
	var steps wireTokens
	var stepCost float64
	hasSteps := false
	var tools []*docPart
	var blocks []session.Block
	for _, dp := range parts {
		p := &dp.row.Data
		switch p.Type {
		case "step-finish":
			if p.Tokens != nil {
				hasSteps = true
				steps.add(p.Tokens)
			}
			stepCost += p.Cost
		case "tool":
			tools = append(tools, dp)
		}
		if b, ok := m.block(p); ok {
			blocks = append(blocks, b)
		}
	}
	tokens, cost := data.Tokens, data.Cost
	if tokens == nil && hasSteps {
		tokens = &steps
		if cost == 0 {
			cost = stepCost
		}
	}
	var usage *session.Usage
	if tokens != nil {
		usage = tokens.usage(cost)
	}
	e := m.entry(dm.at, session.TypeMessage, dm.id)
	e.Timestamp, e.TurnID = when(ts), data.ParentID
	m.mark(e, dm)
	counted := !e.Replayed
	if counted {
		meta.Cost += cost
		meta.Models = addUnique(meta.Models, data.ModelID)
		meta.Providers = addUnique(meta.Providers, data.ProviderID)
	}
	if bytes.Equal(bytes.TrimSpace(data.Summary), []byte("true")) {
		e.Type = session.TypeCompaction
		e.Summary = session.JoinText(blocks)
		e.TokensBefore = m.lastTotal
		e.Subtype, m.trigger = m.trigger, ""
		meta.Compactions++
		if counted && usage != nil {
			meta.CompactionUsage.add(usage)
		}
		m.emit(e)
		m.results(dm, tools, ts)
		return
	}
	if blocks == nil {
		blocks = []session.Block{}
	}
	msg := &session.Message{Role: session.RoleAssistant, Content: blocks, Timestamp: ts, Model: data.ModelID,
		Provider: data.ProviderID, Usage: usage}
	e.Message = msg
	switch {
	case isSet(data.Error):
		msg.StopReason, msg.ErrorMessage = "error", errorText(data.Error)
		if errorName(data.Error) == "MessageAbortedError" {
			msg.StopReason = "aborted"
		}
		if counted {
			meta.Errors++
		}
	case data.Finish == "tool-calls":
		msg.StopReason = "toolUse"
	default:
		msg.StopReason = data.Finish // stop, length, content-filter, ... ("" before the step ends)
	}
	if data.Time.Completed == 0 && !isSet(data.Error) {
		m.p.Pending = append(m.p.Pending, dm.id)
	}
	if counted {
		meta.Responses++
		meta.ToolCalls += len(tools)
		if usage != nil {
			meta.Usage.add(usage)
		}
	}
	if usage != nil && usage.TotalTokens > 0 {
		m.lastTotal = usage.TotalTokens
	}
	m.emit(e)
	m.results(dm, tools, ts)
}

// toolMeta is what the reader takes from a tool's own metadata (free-form:
// a field of another type is ignored).
type toolMeta struct {
	Exit       *int64
	Truncated  bool
	OutputPath string
	SessionID  string
}

func readToolMeta(raw json.RawMessage) toolMeta {
	var tm toolMeta
	var v map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &v) != nil {
		return tm
	}
	var n float64
	if json.Unmarshal(v["exit"], &n) == nil {
		x := int64(n)
		tm.Exit = &x
	}
	_ = json.Unmarshal(v["truncated"], &tm.Truncated)
	_ = json.Unmarshal(v["outputPath"], &tm.OutputPath)
	_ = json.Unmarshal(v["sessionId"], &tm.SessionID)
	return tm
}

// resultDetails is a tool result's Details: what OpenCode kept of the call
// beside the output the model got.
type resultDetails struct {
	Status            string          `json:"status,omitempty"`
	Title             string          `json:"title,omitempty"`
	Metadata          json.RawMessage `json:"metadata,omitempty"` // the tool's own: diff, filediff, exit, todos, ...
	Time              json.RawMessage `json:"time,omitempty"`
	FullOutput        string          `json:"fullOutput,omitempty"`      // the file holding a truncated output whole
	FullOutputBytes   int64           `json:"fullOutputBytes,omitempty"` // its size
	FullOutputMissing bool            `json:"fullOutputMissing,omitempty"`
}

// json writes d as a JSON object, as json.Marshal would but for the raw
// metadata and time, written as they are (json.Marshal would compact a
// copy of them: a tool's metadata can repeat its whole output).
func (d *resultDetails) json() json.RawMessage {
	var b []byte
	field := func(name string, v []byte) {
		if len(b) == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = append(b, v...)
	}
	str := func(s string) []byte {
		q, _ := json.Marshal(s) // a string always encodes
		return q
	}
	if d.Status != "" {
		field("status", str(d.Status))
	}
	if d.Title != "" {
		field("title", str(d.Title))
	}
	if isSet(d.Metadata) {
		field("metadata", bytes.TrimSpace(d.Metadata))
	}
	if isSet(d.Time) {
		field("time", bytes.TrimSpace(d.Time))
	}
	if d.FullOutput != "" {
		field("fullOutput", str(d.FullOutput))
	}
	if d.FullOutputBytes != 0 {
		field("fullOutputBytes", strconv.AppendInt(nil, d.FullOutputBytes, 10))
	}
	if d.FullOutputMissing {
		field("fullOutputMissing", []byte("true"))
	}
	if len(b) == 0 {
		return nil
	}
	return append(b, '}')
}

// results maps the tool parts of a message that have a result (completed
// or error) to tool result entries, after the message's entry.
func (m *mapper) results(dm *docMessage, tools []*docPart, ts int64) {
	meta := &m.p.Meta
	pending := false
	for _, dp := range tools {
		p := &dp.row.Data
		st := p.State
		if st == nil {
			continue
		}
		switch st.Status {
		case "pending", "running":
			pending = true
			continue
		case "completed", "error":
		case "":
			// Older rows: a call with its input only is still running.
			if st.Output == "" && st.Error == "" && !isSet(st.Metadata) {
				continue
			}
		default:
			if st.Output == "" && st.Error == "" {
				continue
			}
		}
		e := m.entry(dp.at, session.TypeMessage, dp.row.ID)
		e.TurnID = dm.data.ParentID
		m.mark(e, dm)
		var tt struct {
			End int64 `json:"end"`
		}
		if len(st.Time) > 0 && st.Time[0] == '{' {
			_ = json.Unmarshal(st.Time, &tt)
		}
		rts := ts
		if tt.End > 0 {
			rts = tt.End
		}
		e.Timestamp = when(rts)
		msg := &session.Message{Role: session.RoleToolResult, ToolCallID: p.CallID, ToolName: p.Tool, Timestamp: rts,
			Content: []session.Block{}}
		e.Message = msg
		text := st.Output
		if st.Status == "error" || st.Output == "" && st.Error != "" {
			text = st.Error
		}
		if text != "" {
			msg.Content = append(msg.Content, session.Block{Type: session.BlockText, Text: text})
		}
		for i := range st.Attachments {
			msg.Content = append(msg.Content, fileBlock(&st.Attachments[i]))
		}
		tm := readToolMeta(st.Metadata)
		msg.IsError = st.Status == "error" || p.Tool == ToolInvalid || tm.Exit != nil && *tm.Exit != 0
		det := resultDetails{Status: st.Status, Title: st.Title, Metadata: st.Metadata, Time: st.Time}
		m.fullOutput(dm, dp, tm, st.Output, &det)
		msg.Details = det.json()
		if p.Tool == ToolTask {
			child := tm.SessionID
			if child == "" {
				if x := taskID.FindStringSubmatch(st.Output); x != nil {
					child = x[1] + x[2]
				}
			}
			if child != "" {
				e.SubagentID = child
				var in struct {
					Type any `json:"subagent_type"`
				}
				_ = json.Unmarshal(st.Input, &in)
				agent, _ := in.Type.(string)
				m.p.Subagents = append(m.p.Subagents, Subagent{EntryID: e.ID, CallID: p.CallID, Session: child, Agent: agent})
				meta.Subagents++
			}
		}
		if msg.IsError && !e.Replayed {
			meta.ToolErrors++
		}
		m.emit(e)
	}
	if pending && !slices.Contains(m.p.Pending, dm.id) {
		m.p.Pending = append(m.p.Pending, dm.id)
	}
}

// fullOutput looks up the file holding a truncated output whole (the
// tool's metadata.outputPath, or "Full output saved to: <path>" in its
// output) among the message's files: named in det, a problem when it is
// missing.
func (m *mapper) fullOutput(dm *docMessage, dp *docPart, tm toolMeta, output string, det *resultDetails) {
	path := tm.OutputPath
	if path == "" {
		if x := savedTo.FindStringSubmatch(output); x != nil {
			path = x[1]
		}
	}
	if path == "" {
		return
	}
	for i := range dm.files {
		f := &dm.files[i].file
		if f.Part != dp.row.ID {
			continue
		}
		switch {
		case f.Missing:
			det.FullOutput, det.FullOutputMissing = f.Name, true
			why := f.Error
			if why == "" {
				why = "not found"
			}
			m.w.problem(dm.files[i].at, fmt.Sprintf("message %s, part %s: referenced file %s (the full output of a truncated tool call) is missing: %s",
				dm.id, dp.row.ID, f.Name, why))
		default:
			det.FullOutput, det.FullOutputBytes = f.Name, f.Size
		}
		return
	}
	if m.alone {
		// A tool part decoded alone: the file was read with its message.
		det.FullOutput = "tool-output/" + filepath.Base(path)
		return
	}
	det.FullOutputMissing = true
	m.w.problem(dp.at.start, fmt.Sprintf("message %s, part %s: referenced file %s (the full output of a truncated tool call) is not in the document",
		dm.id, dp.row.ID, path))
}
