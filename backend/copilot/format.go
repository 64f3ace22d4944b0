package copilot

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

// Format is the name of the format in Header.Format, and the name
// sessionformat.Detect should give it (see Looks): GitHub Copilot CLI's
// events.jsonl ("copilot-cli", not VS Code's Copilot Chat, whose sessions
// are another format).
const Format = "copilot-cli"

// Entry types and names the reader gives Copilot CLI events that are not
// pi entry types: "copilot:" + the event's type.
const (
	TypePrefix            = "copilot:"
	TypeSessionStart      = "copilot:session.start"
	TypeSessionResume     = "copilot:session.resume"
	TypeSessionShutdown   = "copilot:session.shutdown"
	TypeUsageRecord       = "copilot:session.usage_record"
	TypeCompactionStart   = "copilot:session.compaction_start"
	TypeCompactionOutcome = "copilot:session.compaction_complete" // a compaction not applied (Subtype = outcome)
	TypeBinaryAsset       = "copilot:session.binary_asset"
	TypeToolStart         = "copilot:tool.execution_start"
	TypeTurnStart         = "copilot:assistant.turn_start"
	TypeTurnEnd           = "copilot:assistant.turn_end"

	// CustomSystem is the Message.CustomType of system.message (the system
	// prompt Copilot CLI sent).
	CustomSystem = "copilot:system"
	// BlockAttachment is the block type of a user message attachment that
	// is not an image (a file, a directory, a selection, a GitHub
	// reference): Text is its path, URL or name; the entry's Raw has it whole.
	BlockAttachment = "copilot:attachment"

	recentIDs  = 32
	callSlots  = 64
	agentSlots = 8
	usageSlots = 4
	assetSlots = 8
)

// The events whose entries belong to a turn: they take the interactionId of
// the user message being answered when they carry none.
var turnScoped = map[string]bool{"user.message": true, "system.message": true, "assistant.message": true,
	"assistant.turn_start": true, "assistant.turn_end": true, "session.usage_record": true, "session.error": true,
	"tool.execution_start": true, "tool.execution_complete": true, "abort": true, "skill.invoked": true,
	"subagent.started": true, "subagent.completed": true, "subagent.failed": true}

// mapped are the event types whose data the reader reads (see Decode).
var mapped = map[string]bool{"session.start": true, "session.resume": true, "session.shutdown": true, "session.model_change": true,
	"session.title_changed": true, "session.usage_record": true, "session.compaction_start": true, "session.compaction_complete": true,
	"session.error": true, "session.binary_asset": true, "user.message": true, "system.message": true, "assistant.message": true,
	"tool.execution_start": true, "tool.execution_complete": true, "subagent.started": true, "subagent.completed": true,
	"subagent.failed": true}

type call struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// agent is a sub-agent met in the file: the task call it runs under and
// the interaction it is answering.
type agent struct {
	ID   string `json:"id,omitempty"`
	Call string `json:"call,omitempty"`
	Turn string `json:"turn,omitempty"`
}

// pendingUsage is a model call's usage record waiting for the call's
// assistant message.
type pendingUsage struct {
	Active    bool     `json:"active,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	APICallID string   `json:"apiCallId,omitempty"`
	Model     string   `json:"model,omitempty"`
	Provider  string   `json:"provider,omitempty"`
	API       string   `json:"api,omitempty"`
	Finish    string   `json:"finish,omitempty"`
	Val       usageVal `json:"val"`
}

// heldAsset is a session.binary_asset entry held back for the line after
// it.
type heldAsset struct {
	ID  string `json:"id,omitempty"`
	Seq int    `json:"seq"`
}

// parseState is what the reader carries from line to line; a plain value
// (fixed arrays, append-only slices) so that copies are independent.
type parseState struct {
	Seen bool `json:"seen,omitempty"` // the first object was checked

	// Header: session.start's.
	SessionID   string `json:"sessionId,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	Timestamp   string `json:"timestamp,omitempty"`
	Version     string `json:"version,omitempty"`
	HeaderModel string `json:"headerModel,omitempty"`

	Model string `json:"model,omitempty"` // the main agent's current model

	ObjLine int `json:"objLine,omitempty"` // line of the last object, and its index there
	ObjIdx  int `json:"objIdx,omitempty"`

	PrevID   string            `json:"prevId,omitempty"` // the last event's id
	Recent   [recentIDs]string `json:"recent"`           // ring of the last event ids
	RecentAt int               `json:"recentAt,omitempty"`

	Turn     string                   `json:"turn,omitempty"` // the main agent's interaction
	Agents   [agentSlots]agent        `json:"agents"`
	AgentsAt int                      `json:"agentsAt,omitempty"`
	Calls    [callSlots]call          `json:"calls"` // ring of tool calls (id -> name)
	CallsAt  int                      `json:"callsAt,omitempty"`
	Usage    [usageSlots]pendingUsage `json:"usage"`
	UsageAt  int                      `json:"usageAt,omitempty"`
	Assets   [assetSlots]heldAsset    `json:"assets"` // binary assets held for the next line
	NAssets  int                      `json:"nAssets,omitempty"`
	Meta     Metadata                 `json:"meta"`
}

// format implements sessionlog.Format for Copilot CLI session logs.
type format struct {
	file string
	ev   *wireEvent // scratch for the line being decoded (once per Reader, not per line)
}

func newFormat(file string) format { return format{file: file, ev: new(wireEvent)} }

func (format) HeaderReady(st *parseState) bool { return st.SessionID != "" }

func (format) Header(st *parseState, file string) (*session.Header, error) {
	if st.SessionID == "" {
		if !st.Seen {
			return nil, sessionlog.ErrNotFormat("copilot", fmt.Sprintf("%s: not a Copilot CLI session: no JSON object in the first %d lines", file, sessionlog.HeaderScanLines))
		}
		return nil, sessionlog.ErrNotFormat("copilot", fmt.Sprintf("%s: not a Copilot CLI session: no session.start event with a sessionId in the first %d lines", file, sessionlog.HeaderScanLines))
	}
	return &session.Header{Type: "session", ID: st.SessionID, Timestamp: st.Timestamp, Cwd: st.Cwd, Format: Format,
		AgentVersion: st.Version, ModelID: st.HeaderModel}, nil
}

func (format) Finish(st *parseState, em *sessionlog.Emitter) {
	if st.NAssets > 0 || em.Holding() {
		st.Assets, st.NAssets = [assetSlots]heldAsset{}, 0
		em.Release()
	}
}

// Decode maps one event (see the package comment for the table).
func (f format) Decode(st *parseState, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) bool {
	ev := f.ev
	if ev == nil {
		ev = new(wireEvent)
	}
	*ev = wireEvent{}
	if err := json.Unmarshal(obj, ev); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return false
		}
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || mapped[ev.Type] || !strings.HasPrefix(te.Field, "data.") {
			// A data field of an event type the reader does not map is
			// not read: its shape is that type's business.
			em.Warn(at, fieldWarning(err))
		}
	}
	if !st.Seen {
		st.Seen = true
		if err := notCopilot(obj, f.file); err != nil {
			em.NotThisFormat(err)
			return true
		}
	}
	if ev.Type == "" {
		em.Malformed(at, `JSON object has no "type" string; not a Copilot CLI event`)
		return true
	}
	d := ev.Data
	if d == nil {
		d = new(wireData)
	}
	e := &session.Entry{Line: at.Line, Offset: at.Offset, Type: TypePrefix + ev.Type, Raw: append(json.RawMessage(nil), obj...)}
	if at.Line == st.ObjLine {
		st.ObjIdx++
	} else {
		st.ObjLine, st.ObjIdx = at.Line, 1
	}
	switch {
	case ev.ID != "":
		e.ID = ev.ID
	case st.ObjIdx == 1:
		e.ID = "L" + strconv.Itoa(at.Line)
	default:
		e.ID = "L" + strconv.Itoa(at.Line) + "." + strconv.Itoa(st.ObjIdx)
	}
	if ev.ParentID != nil {
		e.ParentID = *ev.ParentID
	}
	if ev.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, ev.Timestamp); err == nil {
			e.Timestamp = t
			if st.Meta.FirstTimestamp == "" {
				st.Meta.FirstTimestamp = ev.Timestamp
			}
			st.Meta.LastTimestamp = ev.Timestamp
		} else {
			em.Warn(at, fmt.Sprintf("field \"timestamp\": %q is not an ISO 8601 time; left zero", ev.Timestamp))
		}
	}

	// Sub-agents: every event with an agentId but the parent's records of
	// the spawn.
	agentID := ev.AgentID
	spawn := ev.Type == "subagent.started" || ev.Type == "subagent.completed" || ev.Type == "subagent.failed"
	if agentID != "" && !spawn {
		e.Sidechain = true
		e.TargetID = d.ParentToolCall
		if e.TargetID == "" {
			e.TargetID = st.agent(agentID).Call
		}
	}

	switch ev.Type {
	case "session.start":
		f.start(st, d, ev, e)
	case "session.resume":
		st.Meta.Resumes++
		e.ModelID = d.SelectedModel
		if d.SelectedModel != "" {
			st.Model = d.SelectedModel
		}
		st.noteContext(d.Context)
	case "session.shutdown":
		st.Meta.Shutdowns++
		e.Subtype = d.ShutdownType
	case "session.model_change":
		e.Type, e.ModelID, e.ThinkingLevel, e.Subtype = session.TypeModelChange, d.NewModel, d.ReasoningEffort, d.Source
		if agentID == "" && d.NewModel != "" {
			st.Model = d.NewModel
		}
	case "session.title_changed":
		e.Type, e.Name = session.TypeSessionInfo, d.Title
		st.Meta.Title = d.Title
	case "session.usage_record":
		f.usageRecord(st, d, e, agentID, at, em)
	case "session.compaction_start":
		e.Subtype = d.Trigger
	case "session.compaction_complete":
		f.compaction(st, d, e)
	case "session.error":
		f.sessionError(st, d, e, at, em)
	case "session.binary_asset":
		e.Subtype = d.Kind
	case "user.message":
		f.user(st, d, e, agentID, at, em)
	case "system.message":
		e.Type = session.TypeMessage
		e.Message = &session.Message{Role: session.RoleCustom, CustomType: CustomSystem, Timestamp: session.UnixMilli(e.Timestamp)}
		if s := str(d.Content, at, em, "data.content"); s != "" {
			e.Message.Content = []session.Block{{Type: session.BlockText, Text: s}}
			e.Message.ContentIsString = true
		}
	case "assistant.message":
		f.assistant(st, d, e, agentID, at, em)
	case "tool.execution_start":
		e.Subtype = d.ToolName
		st.addCall(d.ToolCallID, d.ToolName)
	case "tool.execution_complete":
		f.toolResult(st, d, e, at, em)
	case "subagent.started":
		st.Meta.Subagents++
		st.addAgent(agentID, d.ToolCallID)
		e.SubagentID, e.Subtype, e.TargetID = agentID, d.AgentName, d.ToolCallID
	case "subagent.completed", "subagent.failed":
		e.SubagentID, e.Subtype, e.TargetID = agentID, d.AgentName, d.ToolCallID
	default:
		if strings.HasPrefix(ev.Type, "subagent.") {
			e.SubagentID, e.Subtype = agentID, d.AgentName
		}
	}

	if d.InteractionID != "" {
		e.TurnID = d.InteractionID
	} else if turnScoped[ev.Type] || e.Sidechain {
		e.TurnID = st.turnOf(agentID, spawn)
	}
	st.chain(e, ev.Type == "user.message" && agentID == "")

	em.Emit(e)
	if ev.Type == "session.binary_asset" {
		// Held until the next line, the user message (or tool result)
		// that refers to it: its bytes go on that message's image.
		if st.NAssets < assetSlots {
			st.Assets[st.NAssets] = heldAsset{ID: d.AssetID, Seq: e.Seq}
			st.NAssets++
		}
		em.Hold()
	} else if st.NAssets > 0 || em.Holding() {
		st.Assets, st.NAssets = [assetSlots]heldAsset{}, 0
		em.Release()
	}
	return true
}

// start records the header from session.start (the first one).
func (format) start(st *parseState, d *wireData, ev *wireEvent, e *session.Entry) {
	e.ModelID = d.SelectedModel
	st.noteContext(d.Context)
	if st.SessionID != "" || d.SessionID == "" {
		return
	}
	st.SessionID, st.Version, st.HeaderModel = d.SessionID, d.CopilotVersion, d.SelectedModel
	st.Timestamp = d.StartTime
	if st.Timestamp == "" {
		st.Timestamp = ev.Timestamp
	}
	if d.Context != nil {
		st.Cwd = d.Context.Cwd
	}
	if d.SelectedModel != "" {
		st.Model = d.SelectedModel
	}
	st.Meta.Producer = d.Producer
}

func (st *parseState) noteContext(c *wireContext) {
	if c == nil {
		return
	}
	st.Meta.GitRoot, st.Meta.Branch, st.Meta.HeadCommit = c.GitRoot, c.Branch, c.HeadCommit
}

// chain tracks the single chain of events: a prompt of the main agent
// written under an earlier event than the last one is a rewind.
func (st *parseState) chain(e *session.Entry, prompt bool) {
	if prompt && e.ParentID != "" && st.PrevID != "" && e.ParentID != st.PrevID {
		for _, id := range st.Recent {
			if id == e.ParentID {
				e.Rewind = true
				st.Meta.Rewinds++
				break
			}
		}
	}
	st.PrevID = e.ID
	st.Recent[st.RecentAt] = e.ID
	st.RecentAt = (st.RecentAt + 1) % recentIDs
}

// user maps a user.message: the prompt's text and its attachments.
func (f format) user(st *parseState, d *wireData, e *session.Entry, agentID string, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type, e.Subtype = session.TypeMessage, d.Source
	m := &session.Message{Role: session.RoleUser, Timestamp: session.UnixMilli(e.Timestamp)}
	e.Message = m
	if s := str(d.Content, at, em, "data.content"); s != "" || len(d.Attachments) == 0 {
		m.Content = []session.Block{{Type: session.BlockText, Text: s}}
		m.ContentIsString = len(d.Attachments) == 0
	}
	for i := range d.Attachments {
		m.Content = append(m.Content, st.attachment(&d.Attachments[i], em))
	}
	if d.InteractionID != "" {
		if agentID == "" {
			st.Turn = d.InteractionID
		} else {
			st.agentSlot(agentID).Turn = d.InteractionID
		}
	}
}

// attachment maps one attachment: an image (a file or blob with an image
// MIME type) as an image block whose bytes are the held binary asset's or
// the blob's; any other as a BlockAttachment.
func (st *parseState) attachment(a *wireAttachment, em *sessionlog.Emitter) session.Block {
	if strings.HasPrefix(a.MimeType, "image/") {
		b := session.Block{Type: session.BlockImage, MimeType: a.MimeType, Data: a.Data}
		if b.Data == "" && a.AssetID != "" {
			b.Data = st.assetData(a.AssetID, em)
		}
		return b
	}
	name := a.Path
	for _, s := range []string{a.URL, a.DisplayName} {
		if name == "" {
			name = s
		}
	}
	return session.Block{Type: BlockAttachment, Text: name}
}

// assetData returns the base64 bytes of the binary asset id among those
// held ("" when it is not: written earlier in the file, or in a part read
// before a resume).
func (st *parseState) assetData(id string, em *sessionlog.Emitter) string {
	for _, a := range st.Assets[:st.NAssets] {
		if a.ID != id {
			continue
		}
		for _, h := range em.Held() {
			if h.Seq != a.Seq {
				continue
			}
			var ev struct {
				Data struct {
					Bytes string `json:"data"`
				} `json:"data"`
			}
			if json.Unmarshal(h.Raw, &ev) == nil {
				return ev.Data.Bytes
			}
		}
	}
	return ""
}

// assistant maps an assistant.message: reasoning, text and tool calls of
// one model response, with the usage its usage record gave.
func (f format) assistant(st *parseState, d *wireData, e *session.Entry, agentID string, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = session.TypeMessage
	m := &session.Message{Role: session.RoleAssistant, Timestamp: session.UnixMilli(e.Timestamp), Model: d.Model, Content: []session.Block{}}
	e.Message = m
	switch {
	case d.ReasoningText != "":
		m.Content = append(m.Content, session.Block{Type: session.BlockThinking, Thinking: d.ReasoningText})
	case d.ReasoningOpaque != "":
		m.Content = append(m.Content, session.Block{Type: session.BlockThinking, Redacted: true})
	}
	if s := str(d.Content, at, em, "data.content"); s != "" {
		m.Content = append(m.Content, session.Block{Type: session.BlockText, Text: s})
	}
	for i := range d.ToolRequests {
		c := &d.ToolRequests[i]
		m.Content = append(m.Content, session.Block{Type: session.BlockToolCall, ID: c.ToolCallID, Name: c.Name, Arguments: arguments(c.Arguments)})
		st.addCall(c.ToolCallID, c.Name)
	}
	if p := st.takeUsage(d.APICallID, agentID); p != nil {
		m.Usage, m.Provider, m.API, m.StopReason = p.Val.Usage(), p.Provider, p.API, stopReason(p.Finish)
		if m.Model == "" {
			m.Model = p.Model
		}
	}
	if m.Model == "" && agentID == "" {
		m.Model = st.Model
	}
	st.Meta.addModel(d.Model)
}

// usageRecord keeps a model call's usage for its assistant message (the
// next line in the files seen) and counts it; a usage record of the same
// agent still waiting is left unattached.
func (format) usageRecord(st *parseState, d *wireData, e *session.Entry, agentID string, at sessionlog.Pos, em *sessionlog.Emitter) {
	u := d.Usage
	if u == nil {
		em.Warn(at, `field "data.usage": missing on a session.usage_record; nothing counted`)
		return
	}
	e.Subtype = u.Initiator
	val := toUsageVal(u)
	st.Meta.Usage.add(val.Usage(), 1)
	st.Meta.addModel(u.Model)
	for i := range st.Usage {
		if p := &st.Usage[i]; p.Active && p.Agent == agentID {
			st.Meta.UnattachedUsage.add(p.Val.Usage(), 1)
			*p = pendingUsage{}
		}
	}
	if p := &st.Usage[st.UsageAt]; p.Active {
		st.Meta.UnattachedUsage.add(p.Val.Usage(), 1)
	}
	st.Usage[st.UsageAt] = pendingUsage{Active: true, Agent: agentID, APICallID: u.APICallID, Model: u.Model,
		Provider: provider(u), API: api(u.APIEndpoint), Finish: u.FinishReason, Val: val}
	st.UsageAt = (st.UsageAt + 1) % usageSlots
}

// takeUsage returns (and forgets) the waiting usage of the call apiCallID,
// or, for a message naming no call, the agent's; nil when none waits.
func (st *parseState) takeUsage(apiCallID, agentID string) *pendingUsage {
	for i := range st.Usage {
		p := &st.Usage[i]
		if p.Active && (apiCallID != "" && p.APICallID == apiCallID || apiCallID == "" && p.Agent == agentID) {
			out := *p
			*p = pendingUsage{}
			return &out
		}
	}
	return nil
}

// toolDetails is a tool result's Details: what Copilot CLI keeps beside
// the text the model got.
type toolDetails struct {
	DetailedContent string          `json:"detailedContent,omitempty"` // a diff for edit and create
	FileEdits       json.RawMessage `json:"fileEdits,omitempty"`
	ExitCode        *int            `json:"exitCode,omitempty"`
	Error           json.RawMessage `json:"error,omitempty"`
}

// toolResult maps a tool.execution_complete to the result of its call.
func (f format) toolResult(st *parseState, d *wireData, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = session.TypeMessage
	m := &session.Message{Role: session.RoleToolResult, Timestamp: session.UnixMilli(e.Timestamp), ToolCallID: d.ToolCallID,
		ToolName: d.ToolName, Content: []session.Block{}}
	e.Message = m
	if m.ToolName == "" {
		m.ToolName = st.callName(d.ToolCallID)
	}
	var det toolDetails
	if len(d.Result) > 0 && d.Result[0] == '{' {
		var r wireResult
		if err := json.Unmarshal(d.Result, &r); err != nil {
			em.Warn(at, "data.result: "+fieldWarning(err))
		}
		if r.Content != "" {
			m.Content = append(m.Content, session.Block{Type: session.BlockText, Text: r.Content})
		}
		for _, bs := range [][]wireBinary{r.Contents, r.Binary} {
			for _, b := range bs {
				if b.Type == "image" || b.Type == "" && strings.HasPrefix(b.MimeType, "image/") {
					img := session.Block{Type: session.BlockImage, MimeType: b.MimeType, Data: b.Data}
					if img.Data == "" && b.AssetID != "" {
						img.Data = st.assetData(b.AssetID, em)
					}
					m.Content = append(m.Content, img)
				}
			}
		}
		det.DetailedContent = r.DetailedContent
	} else if len(d.Result) > 0 && !isNull(d.Result) {
		em.Warn(at, fmt.Sprintf(`field "data.result": %s where an object is expected; left empty`, sessionlog.Kind(d.Result[0])))
	}
	failed := d.Success != nil && !*d.Success || d.Success == nil && len(d.Error) > 0 && !isNull(d.Error)
	if len(d.Error) > 0 && !isNull(d.Error) {
		det.Error = d.Error
		msg := ""
		switch d.Error[0] {
		case '{':
			var we wireError
			if err := json.Unmarshal(d.Error, &we); err != nil {
				em.Warn(at, "data.error: "+fieldWarning(err))
			}
			msg = we.Message
		case '"':
			_ = json.Unmarshal(d.Error, &msg)
		}
		if msg != "" && len(m.Content) == 0 {
			m.Content = append(m.Content, session.Block{Type: session.BlockText, Text: msg})
		}
	}
	if se := d.ShellExecution; se != nil && se.ExitCode != nil {
		det.ExitCode = se.ExitCode
		failed = failed || *se.ExitCode != 0
	}
	if len(d.FileEdits) > 0 && !isNull(d.FileEdits) {
		det.FileEdits = d.FileEdits
	}
	m.IsError = failed
	if failed {
		st.Meta.ToolErrors++
	}
	if det.DetailedContent != "" || det.FileEdits != nil || det.ExitCode != nil || det.Error != nil {
		if b, err := json.Marshal(det); err == nil {
			m.Details = b
		}
	}
	if a := st.agentByCall(d.ToolCallID); a != "" {
		e.SubagentID = a // the task call's result: the sub-agent's answer
	}
}

// compaction maps a session.compaction_complete: applied, a compaction
// entry; else (cancelled, failed) kept with its outcome. Its call's usage
// is counted apart.
func (format) compaction(st *parseState, d *wireData, e *session.Entry) {
	applied := d.Outcome == "applied" || d.Outcome == "" && d.Success != nil && *d.Success
	if applied {
		e.Type, e.Summary, e.TokensBefore, e.Subtype = session.TypeCompaction, d.SummaryContent, d.PreCompactionTokens, d.Trigger
		st.Meta.Compactions++
	} else {
		e.Subtype = d.Outcome
		if e.Subtype == "" {
			e.Subtype = "failed"
		}
		st.Meta.FailedCompactions++
	}
	if c := d.CompactionTokensUsed; c != nil {
		v := usageVal{In: c.InputTokens, Out: c.OutputTokens, Read: c.CacheReadTokens, Write: c.CacheWriteTokens}
		st.Meta.CompactionUsage.add(v.Usage(), c.RequestCount)
		st.Meta.addModel(c.Model)
	}
}

// sessionError maps a session.error to an assistant message stopped by the
// error: the only record of a failed model call.
func (format) sessionError(st *parseState, d *wireData, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	st.Meta.Errors++
	e.Type, e.Subtype = session.TypeMessage, d.ErrorType
	e.Message = &session.Message{Role: session.RoleAssistant, Timestamp: session.UnixMilli(e.Timestamp), StopReason: "error",
		ErrorMessage: str(d.Message, at, em, "data.message"), Model: st.Model}
}

// str decodes a string field kept raw; another JSON type is a warning
// naming the field, and "".
func str(raw json.RawMessage, at sessionlog.Pos, em *sessionlog.Emitter, field string) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	if raw[0] != '"' {
		em.Warn(at, fmt.Sprintf("field %q: %s where a string is expected; left empty", field, sessionlog.Kind(raw[0])))
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		em.Warn(at, fmt.Sprintf("field %q: %v", field, err))
	}
	return s
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }

// fieldWarning words a decoding error for a warning: a type mismatch as
// 'field "data.x": JSON string where int64 is expected; left empty' (data
// itself: 'field "data": JSON string where an object is expected').
func fieldWarning(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "data" {
		return fmt.Sprintf("field %q: JSON %s where an object is expected; left empty", te.Field, te.Value)
	}
	return sessionlog.FieldWarning(err)
}

// arguments returns a tool call's arguments as JSON: an object as written;
// a string holding a JSON object or array (a custom tool's input) that
// JSON; none "{}".
func arguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || isNull(raw) {
		return json.RawMessage("{}")
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			t := strings.TrimSpace(s)
			if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
		}
	}
	return raw
}

func (st *parseState) addCall(id, name string) {
	if id == "" || name == "" {
		return
	}
	for i := range st.Calls {
		if st.Calls[i].ID == id {
			st.Calls[i].Name = name
			return
		}
	}
	st.Calls[st.CallsAt] = call{ID: id, Name: name}
	st.CallsAt = (st.CallsAt + 1) % callSlots
}

func (st *parseState) callName(id string) string {
	for _, c := range st.Calls {
		if c.ID == id && id != "" {
			return c.Name
		}
	}
	return ""
}

// agent returns the sub-agent id as met, or a zero agent.
func (st *parseState) agent(id string) agent {
	for _, a := range st.Agents {
		if a.ID == id && id != "" {
			return a
		}
	}
	return agent{}
}

// agentSlot returns the sub-agent's slot, taking one for an agent not met
// yet (a read resumed after its start).
func (st *parseState) agentSlot(id string) *agent {
	for i := range st.Agents {
		if st.Agents[i].ID == id {
			return &st.Agents[i]
		}
	}
	st.addAgent(id, "")
	return &st.Agents[(st.AgentsAt+agentSlots-1)%agentSlots]
}

func (st *parseState) addAgent(id, call string) {
	if id == "" {
		return
	}
	for i := range st.Agents {
		if st.Agents[i].ID == id {
			if call != "" {
				st.Agents[i].Call = call
			}
			return
		}
	}
	st.Agents[st.AgentsAt] = agent{ID: id, Call: call}
	st.AgentsAt = (st.AgentsAt + 1) % agentSlots
}

// agentByCall returns the sub-agent the task call id spawned, or "".
func (st *parseState) agentByCall(call string) string {
	for _, a := range st.Agents {
		if a.Call == call && call != "" {
			return a.ID
		}
	}
	return ""
}

// turnOf returns the interaction an event of the agent belongs to: the
// sub-agent's (not for the parent's records of a spawn), else the main
// agent's.
func (st *parseState) turnOf(agentID string, spawn bool) string {
	if agentID != "" && !spawn {
		if t := st.agent(agentID).Turn; t != "" {
			return t
		}
	}
	return st.Turn
}

// notCopilot checks the first object: nil when it is a Copilot CLI event
// (Looks), else an error matching session.ErrNoHeader that says what the
// file is.
func notCopilot(obj []byte, file string) error {
	if Looks(obj) {
		return nil
	}
	f, why := sessionformat.Detect(append(append([]byte{}, obj...), '\n'))
	if f != "" {
		return sessionlog.ErrNotFormat("copilot", fmt.Sprintf("%s: line 1: not a Copilot CLI session: %s (a %s file)", file, why, f))
	}
	return sessionlog.ErrNotFormat("copilot", fmt.Sprintf("%s: line 1: not a Copilot CLI session: %s", file, why))
}
