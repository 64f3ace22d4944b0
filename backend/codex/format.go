package codex

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/backend/sessionlog"
)

// Entry types the reader gives rollout lines that are not pi entry types:
// "codex:" + the line's type (claude-code-codex-formats.md §2.3); Subtype is
// the payload's type.
const (
	TypeSessionMeta  = "codex:session_meta"
	TypeTurnContext  = "codex:turn_context"
	TypeEvent        = "codex:event_msg"
	TypeResponseItem = "codex:response_item" // items that are not messages or tool calls
	TypeWorldState   = "codex:world_state"
	TypeUsageRecord  = "codex:token_usage_record"
	TypeState        = "codex:state" // bare-era {"record_type":"state"}
	TypePrefix       = "codex:"

	CustomContext   = "codex:context"   // Message.CustomType of harness context sent as user messages
	CustomDeveloper = "codex:developer" // ... of developer messages
	CustomSystem    = "codex:system"    // ... of system messages

	turnSlots  = 32
	echoSlots  = 16
	usageSlots = 16
)

// rolloutTypes are the RolloutItem types of an enveloped line (§2.2).
var rolloutTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "token_usage_record": true, "inter_agent_communication": true,
	"inter_agent_communication_metadata": true}

// bareItems are response item types that stand alone on bare-era lines.
var bareItems = map[string]bool{"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true, "web_search_call": true,
	"image_generation_call": true, "tool_search_call": true, "tool_search_output": true, "compaction": true,
	"compaction_summary": true, "context_compaction": true, "ghost_snapshot": true, "agent_message": true, "additional_tools": true}

// echo is a message the other stream records too (event vs response item),
// waiting for its twin (§2.6.1).
type echo struct {
	Seq    int    `json:"seq"`
	ID     string `json:"id,omitempty"` // entry id
	IDKey  string `json:"idKey,omitempty"`
	TxtKey string `json:"txtKey,omitempty"`
	Event  bool   `json:"event,omitempty"` // the waiting one is the event (held)
}

type call struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// parseState is what the reader carries from line to line; a plain value
// (fixed arrays) so that copies are independent.
type parseState struct {
	Seen bool `json:"seen,omitempty"`
	// Header
	ThreadID    string             `json:"threadId,omitempty"`
	HistoryID   string             `json:"historyId,omitempty"` // from the file name of a history window file
	Timestamp   string             `json:"timestamp,omitempty"`
	Cwd         string             `json:"cwd,omitempty"`
	Version     string             `json:"version,omitempty"`
	Parent      string             `json:"parent,omitempty"`
	Subagent    bool               `json:"subagent,omitempty"`
	Provider    string             `json:"provider,omitempty"`
	HeaderModel string             `json:"headerModel,omitempty"`
	Bare        bool               `json:"bare,omitempty"`
	OwnStartMs  int64              `json:"ownStartMs,omitempty"` // creation time of the thread (UUIDv7)
	Model       string             `json:"model,omitempty"`      // current model (turn_context, thread_settings_applied)
	TurnID      string             `json:"turnId,omitempty"`
	PrevID      string             `json:"prevId,omitempty"`
	ObjLine     int                `json:"objLine,omitempty"`
	ObjIdx      int                `json:"objIdx,omitempty"`
	OwnTurnSeen bool               `json:"ownTurnSeen,omitempty"`
	Replay      bool               `json:"replay,omitempty"`
	ReplayOf    string             `json:"replayOf,omitempty"` // the thread whose history is replayed
	SawRecord   bool               `json:"sawRecord,omitempty"`
	LastTotal   tokenUsage         `json:"lastTotal"`
	LastContext int64              `json:"lastContext,omitempty"`
	Responses   [usageSlots]string `json:"responses"` // ring of counted response ids
	ResponsesAt int                `json:"responsesAt,omitempty"`
	RespActive  bool               `json:"respActive,omitempty"` // a response waits for its usage
	RespSeq     int                `json:"respSeq"`
	Echoes      [echoSlots]echo    `json:"echoes"`
	EchoesAt    int                `json:"echoesAt,omitempty"`
	HeldEchoes  int                `json:"heldEchoes,omitempty"`
	Turns       [turnSlots]string  `json:"turns"` // ring of turns that had a prompt, newest last
	TurnsAt     int                `json:"turnsAt,omitempty"`
	Calls       [32]call           `json:"calls"`
	CallsAt     int                `json:"callsAt,omitempty"`

	Meta Metadata `json:"meta"`
}

// format implements sessionlog.Format for Codex rollouts.
type format struct {
	file   string
	w      *wire        // scratch for the line being decoded (a value given to json.Unmarshal is allocated: once per Reader, not per line)
	parent *parentTurns // the turns of the thread a replay comes from, when the caller knows them (Reader.SetParentTurns)
}

// parentTurns is what a Reader may know of the turns of the thread a
// legacy fork or sub-agent file replays: lookup (nil when none was given)
// asked once per thread.
type parentTurns struct {
	lookup func(threadID string) (turns map[string]bool, ok bool)
	thread string // the thread asked for
	turns  map[string]bool
	ok     bool
}

// of returns the turns of thread, asking lookup the first time.
func (p *parentTurns) of(thread string) (map[string]bool, bool) {
	if p == nil || p.lookup == nil || thread == "" {
		return nil, false
	}
	if p.thread != thread {
		p.thread = thread
		p.turns, p.ok = p.lookup(thread)
	}
	return p.turns, p.ok
}

func (format) HeaderReady(st *parseState) bool { return st.ThreadID != "" && st.HeaderModel != "" }

func (f format) Header(st *parseState, file string) (*session.Header, error) {
	if st.ThreadID == "" {
		if !st.Seen {
			return nil, sessionlog.ErrNotFormat("codex", fmt.Sprintf("%s: not a Codex rollout: no JSON object in the first %d lines", file, sessionlog.HeaderScanLines))
		}
		return nil, sessionlog.ErrNotFormat("codex", fmt.Sprintf("%s: not a Codex rollout: no session_meta in the first %d lines", file, sessionlog.HeaderScanLines))
	}
	h := &session.Header{Type: "session", ID: st.ThreadID, Timestamp: st.Timestamp, Cwd: st.Cwd, Format: sessionformat.Codex,
		AgentVersion: st.Version, ParentSession: st.Parent, ModelID: st.HeaderModel, Provider: st.Provider}
	if st.HistoryID != "" {
		// A later history window of the thread (Codex 0.169 thread/revert).
		h.ID = st.ThreadID + "_" + st.HistoryID
		if h.ParentSession == "" {
			h.ParentSession = st.ThreadID
		}
	}
	if st.Subagent {
		h.AgentID = st.ThreadID
	}
	return h, nil
}

func (format) Finish(st *parseState, em *sessionlog.Emitter) {
	st.RespActive, st.HeldEchoes = false, 0
	em.Release()
}

// Decode maps one line (see the package comment for the table).
func (f format) Decode(st *parseState, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) bool {
	w := f.w
	if w == nil {
		w = new(wire)
	}
	warns, ok := decodeWire(obj, w)
	if !ok {
		return false
	}
	for _, s := range warns {
		em.Warn(at, s)
	}
	ln, p, enveloped := &w.ln, &w.p, w.enveloped
	if !st.Seen {
		st.Seen = true
		if err := notCodex(ln, enveloped, obj, f.file); err != nil {
			em.NotThisFormat(err)
			return true
		}
		st.HistoryID = historyIDFromName(f.file)
	}
	typ := ln.Type
	switch {
	case enveloped:
	case ln.RecordType != "":
		typ = "state"
	case ln.Type == "" && ln.ID != "":
		typ, st.Bare = "session_meta", true
		p.ID, p.Timestamp = ln.ID, ln.Timestamp
	case bareItems[ln.Type]:
		typ, st.Bare = "response_item", true
	case ln.Type == "":
		em.Malformed(at, `JSON object has no "type" string; not a Codex rollout line`)
		return true
	}

	e := &session.Entry{Line: at.Line, Offset: at.Offset, Type: TypePrefix + typ, Subtype: p.Type,
		Raw: append(json.RawMessage(nil), obj...)}
	if at.Line == st.ObjLine {
		st.ObjIdx++
		e.ID = "L" + strconv.Itoa(at.Line) + "." + strconv.Itoa(st.ObjIdx)
	} else {
		st.ObjLine, st.ObjIdx = at.Line, 1
		e.ID = "L" + strconv.Itoa(at.Line)
	}
	e.ParentID, st.PrevID = st.PrevID, e.ID
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
	turn := p.TurnID
	if turn == "" && p.Passthru != nil {
		turn = p.Passthru.TurnID
	}

	switch typ {
	case "session_meta":
		f.sessionMeta(st, p, e)
	case "turn_context":
		e.Type = TypeTurnContext
		e.Subtype = ""
		if turn != "" {
			st.TurnID = turn
			f.ownTurn(st, turn)
		}
		if p.Model != "" {
			st.Model, e.ModelID, e.Provider = p.Model, p.Model, st.Provider
			if st.HeaderModel == "" {
				st.HeaderModel = p.Model
			}
			st.Meta.addModel(p.Model)
		}
	case "response_item":
		f.responseItem(st, p, e, at, em)
	case "event_msg":
		f.event(st, p, e, turn, at, em)
	case "compacted":
		e.Type = session.TypeCompaction
		e.Subtype = ""
		if len(p.Message) > 0 && p.Message[0] == '"' {
			_ = json.Unmarshal(p.Message, &e.Summary)
			e.Summary = compactionSummary(e.Summary)
		}
		e.TokensBefore = st.LastContext
		st.Meta.Compactions++
	case "token_usage_record":
		e.Subtype = ""
		if turn == "" {
			turn = st.TurnID
		}
		if p.Usage != nil && !st.Replay {
			st.SawRecord = true
			if p.ResponseID == "" || !st.countedResponse(p.ResponseID) {
				st.markResponse(p.ResponseID)
				f.attachUsage(st, p.Usage, em)
			}
		}
	case "world_state", "state":
		e.Subtype = ""
	default:
		e.Subtype = p.Type
	}
	if turn != "" {
		e.TurnID = turn
	} else if typ != "session_meta" {
		e.TurnID = st.TurnID
	}
	e.Replayed = st.Replay
	em.Emit(e)
	if st.RespActive || st.HeldEchoes > 0 {
		em.Hold()
	} else if em.Holding() {
		em.Release()
	}
	return true
}

// sessionMeta records the header (the first session_meta) and recognises a
// later one: a resume of this thread, or the parent's, whose history a
// legacy fork or sub-agent file then replays (§2.4).
func (format) sessionMeta(st *parseState, p *wirePayload, e *session.Entry) {
	e.Type, e.Subtype = TypeSessionMeta, ""
	st.Meta.SessionMetas++
	if st.ThreadID == "" {
		st.ThreadID = p.ID
		st.OwnStartMs = uuidv7Millis(p.ID)
		if st.OwnStartMs == 0 {
			if t, err := time.Parse(time.RFC3339Nano, p.Timestamp); err == nil {
				st.OwnStartMs = t.UnixMilli()
			}
		}
		st.Timestamp, st.Cwd, st.Version, st.Provider = p.Timestamp, p.Cwd, p.CLIVersion, p.ModelProvider
		st.Parent = p.ForkedFromID
		st.Meta.ForkedFrom, st.Meta.Originator, st.Meta.HistoryMode = p.ForkedFromID, p.Originator, p.HistoryMode
		st.Meta.HistoryBase = p.HistoryBase
		if p.ContextWindow != nil {
			st.Meta.WindowID = p.ContextWindow.WindowID
		}
		var src sourceSubagent
		if len(p.Source) > 0 && p.Source[0] == '{' && json.Unmarshal(p.Source, &src) == nil && src.Subagent != nil {
			st.Subagent = true
			if ts := src.Subagent.ThreadSpawn; ts != nil {
				st.Parent = ts.ParentThreadID
				st.Meta.AgentNickname, st.Meta.AgentRole, st.Meta.SpawnDepth = ts.AgentNickname, ts.AgentRole, ts.Depth
			}
		}
		if p.ThreadSource == "subagent" {
			st.Subagent = true
		}
		if st.Parent == "" && p.ParentThread != "" && st.Subagent {
			st.Parent = p.ParentThread
		}
		if p.AgentNickname != "" {
			st.Meta.AgentNickname = p.AgentNickname
		}
		if p.AgentRole != "" {
			st.Meta.AgentRole = p.AgentRole
		}
		var s string
		if json.Unmarshal(p.Source, &s) == nil {
			st.Meta.Source = s
		} else if st.Subagent {
			st.Meta.Source = "subagent"
		}
		return
	}
	if p.ID != "" && p.ID != st.ThreadID && !st.OwnTurnSeen {
		// The parent's session_meta before any turn of this thread: the
		// parent's history follows, replayed.
		st.Replay, st.ReplayOf = true, p.ID
		e.Replayed = true
		return
	}
	st.Meta.Resumes++
}

// ownTurn ends a replay at this thread's first turn (§2.4): the first turn
// that is not one of the replayed thread's, when the caller knows that
// thread's turns (SetParentTurns); else the first turn created after this
// thread, turn ids being UUIDv7 and the replayed turns older. A turn id that
// is neither known nor a UUIDv7 leaves the replay going: the parent's usage
// is never counted twice.
func (f format) ownTurn(st *parseState, turn string) {
	if st.Replay {
		if parent, ok := f.parent.of(st.ReplayOf); ok {
			if !parent[turn] {
				st.Replay = false
			}
		} else if ms := uuidv7Millis(turn); ms != 0 && ms >= st.OwnStartMs {
			st.Replay = false
		}
	}
	if !st.Replay {
		st.OwnTurnSeen = true
	}
}

// responseItem maps a model-visible item (§2.3).
func (f format) responseItem(st *parseState, p *wirePayload, e *session.Entry, at sessionlog.Pos, em *sessionlog.Emitter) {
	m := &session.Message{Timestamp: session.UnixMilli(e.Timestamp)}
	assistant := func() {
		m.Role, m.API, m.Provider, m.Model = session.RoleAssistant, "openai-responses", st.Provider, st.Model
	}
	switch p.Type {
	case "message", "agent_message":
		m.Content = f.content(p.Content, at, em)
		switch p.Role {
		case "assistant":
			assistant()
		case "user":
			m.Role = session.RoleUser
			if isContext(m.Content) {
				m.Role, m.CustomType = session.RoleCustom, CustomContext
			} else if !st.Replay {
				st.addTurn(turnOf(p, st))
				if st.RespActive {
					st.RespActive = false // a new prompt: the last response got no usage
				}
			}
		case "developer":
			m.Role, m.CustomType = session.RoleCustom, CustomDeveloper
		case "system":
			m.Role, m.CustomType = session.RoleCustom, CustomSystem
		default:
			m.Role = p.Role
		}
	case "reasoning":
		assistant()
		m.Content = reasoning(p)
	case "function_call":
		assistant()
		name := p.Name
		if p.Namespace != "" {
			name = p.Namespace + "." + p.Name
		}
		m.Content = []session.Block{{Type: session.BlockToolCall, ID: p.CallID, Name: name, Arguments: arguments(p.Arguments)}}
		st.addCall(p.CallID, name)
	case "custom_tool_call":
		assistant()
		m.Content = []session.Block{{Type: session.BlockToolCall, ID: p.CallID, Name: p.Name, Arguments: arguments(p.Input)}}
		st.addCall(p.CallID, p.Name)
	case "local_shell_call":
		assistant()
		m.Content = []session.Block{{Type: session.BlockToolCall, ID: p.CallID, Name: "local_shell", Arguments: rawOrEmpty(p.Action)}}
		st.addCall(p.CallID, "local_shell")
	case "web_search_call":
		assistant()
		m.Content = []session.Block{{Type: session.BlockToolCall, ID: p.ID, Name: "web_search", Arguments: rawOrEmpty(p.Action)}}
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		m.Role, m.ToolCallID, m.ToolName = session.RoleToolResult, p.CallID, st.callName(p.CallID)
		m.Content, m.IsError = output(p.Output)
		if strings.HasSuffix(m.ToolName, "spawn_agent") {
			e.SubagentID = spawnedAgent(m.Content)
		}
	default:
		e.Type = TypeResponseItem
		return
	}
	e.Type, e.Message = session.TypeMessage, m
	if m.Role == session.RoleAssistant && !st.Replay && !st.Bare {
		// Wait for the usage line of this response (bare-era files have
		// none).
		st.RespActive, st.RespSeq = true, em.NextSeq()
	}
	f.pair(st, e, p, em)
}

// event maps an event_msg; echoes of messages are paired with their twins,
// token counts give usage when the file has no token_usage_record lines.
func (f format) event(st *parseState, p *wirePayload, e *session.Entry, turn string, at sessionlog.Pos, em *sessionlog.Emitter) {
	e.Type = TypeEvent
	switch p.Type {
	case "task_started", "turn_started":
		if turn != "" {
			st.TurnID = turn
			f.ownTurn(st, turn)
		}
	case "task_complete", "turn_aborted":
		st.RespActive, st.HeldEchoes = false, 0
	case "thread_rolled_back":
		e.RolledBackTurns = st.lastTurns(p.NumTurns)
		st.Meta.RolledBackTurns = append(st.Meta.RolledBackTurns, e.RolledBackTurns...)
	case "token_count":
		if st.Replay || st.SawRecord || p.Info == nil || p.Info.Last == nil {
			break
		}
		if p.Info.Total != nil {
			if *p.Info.Total == st.LastTotal {
				break // a repeat of the last count (§2.5)
			}
			st.LastTotal = *p.Info.Total
		}
		l := p.Info.Last
		if l.Input == 0 && l.Output == 0 {
			break // fill_to_context_window: not billed usage
		}
		f.attachUsage(st, l, em)
	case "thread_settings_applied":
		// The thread's settings (0.169): the model of the requests that
		// follow, a compaction's included, before any turn_context says it.
		if ts := p.ThreadSettings; ts != nil && ts.Model != "" {
			st.Model = ts.Model
			if st.HeaderModel == "" {
				st.HeaderModel = ts.Model
			}
			st.Meta.addModel(ts.Model)
		}
	case "collab_agent_spawn_end":
		e.SubagentID = p.NewThreadID
	case "user_message", "agent_message", "agent_reasoning", "item_completed":
		f.pair(st, e, p, em)
	}
}

// attachUsage puts one request's usage on the last assistant entry of the
// response it measures (held until now), or keeps it in the metadata when
// no response waits for it.
func (format) attachUsage(st *parseState, u *tokenUsage, em *sessionlog.Emitter) {
	usage := toUsage(u)
	st.LastContext = u.Input + u.Output
	st.Meta.Usage.add(usage)
	if st.RespActive {
		st.RespActive = false
		for _, h := range em.Held() {
			if h.Seq == st.RespSeq && h.Message != nil {
				h.Message.Usage = usage
				return
			}
		}
	}
	st.Meta.UnattachedUsage.add(usage)
}

// toUsage maps a Codex token count to the shared model: Input is uncached
// input (input minus cached and cache-write input), CacheRead the cached
// input, Output includes Reasoning. Codex rollouts carry no prices: Cost is
// zero.
func toUsage(u *tokenUsage) *session.Usage {
	in := max(u.Input-u.Cached-u.CacheWrite, 0)
	out := &session.Usage{Input: in, Output: u.Output, CacheRead: u.Cached, CacheWrite: u.CacheWrite, Reasoning: u.Reasoning}
	out.TotalTokens = out.Input + out.Output + out.CacheRead + out.CacheWrite
	return out
}

// pair links a message and its echo in the other stream (§2.6.1): the echo
// (the event) gets DuplicateOf = the response item's id. An event that
// comes first is held until its twin arrives or the turn ends.
func (format) pair(st *parseState, e *session.Entry, p *wirePayload, em *sessionlog.Emitter) {
	idKey, txtKey, isEvent := echoKeys(e, p)
	if idKey == "" && txtKey == "" {
		return
	}
	for i := range st.Echoes {
		w := &st.Echoes[i]
		if w.Seq < 0 || w.Event == isEvent || (w.IDKey == "" && w.TxtKey == "") {
			continue
		}
		if (idKey != "" && idKey == w.IDKey) || (txtKey != "" && txtKey == w.TxtKey) {
			if isEvent {
				e.DuplicateOf = w.ID
			} else {
				for _, h := range em.Held() {
					if h.Seq == w.Seq {
						h.DuplicateOf = e.ID
						break
					}
				}
				st.HeldEchoes = max(st.HeldEchoes-1, 0)
			}
			*w = echo{Seq: -1}
			return
		}
	}
	if w := &st.Echoes[st.EchoesAt]; w.Event && w.Seq >= 0 && (w.IDKey != "" || w.TxtKey != "") {
		st.HeldEchoes = max(st.HeldEchoes-1, 0) // pushed out unmatched
	}
	st.Echoes[st.EchoesAt] = echo{Seq: em.NextSeq(), ID: e.ID, IDKey: idKey, TxtKey: txtKey, Event: isEvent}
	st.EchoesAt = (st.EchoesAt + 1) % echoSlots
	if isEvent {
		st.HeldEchoes++
	}
}

// echoKeys returns the keys a message is paired by: its item id and a hash
// of its role and text.
func echoKeys(e *session.Entry, p *wirePayload) (idKey, txtKey string, isEvent bool) {
	if e.Type == session.TypeMessage {
		m := e.Message
		switch {
		case m.Role == session.RoleUser:
			return "", textKey("user", promptText(m.Content)), false
		case m.Role == session.RoleAssistant && p.Type == "reasoning":
			return keyOf("rs", p.ID), "", false
		case m.Role == session.RoleAssistant && (p.Type == "message" || p.Type == "agent_message"):
			return keyOf("msg", p.ID), textKey("assistant", session.JoinText(m.Content)), false
		}
		return "", "", false
	}
	switch p.Type {
	case "user_message":
		var s string
		_ = json.Unmarshal(p.Message, &s)
		return "", textKey("user", s), true
	case "agent_message":
		var s string
		_ = json.Unmarshal(p.Message, &s)
		return "", textKey("assistant", s), true
	case "agent_reasoning":
		return "", "", false // summaries are not paired by text
	case "item_completed":
		it := p.Item
		if it == nil {
			return "", "", false
		}
		switch it.Type {
		case "UserMessage":
			return "", textKey("user", itemText(it.Content)), true
		case "AgentMessage":
			return keyOf("msg", it.ID), textKey("assistant", itemText(it.Content)), true
		case "Reasoning":
			return keyOf("rs", it.ID), "", true
		}
	}
	return "", "", false
}

func keyOf(kind, id string) string {
	if id == "" {
		return ""
	}
	return kind + ":" + id
}

// textKey is a short hash of a role and a text (the state keeps keys, not
// texts).
func textKey(role, text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	h := fnv.New64a()
	h.Write([]byte(role))
	h.Write([]byte{0})
	h.Write([]byte(strings.TrimSpace(text)))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], h.Sum64())
	return hex.EncodeToString(b[:])
}

// promptText is the text of a prompt without the <image ...> and </image>
// tags Codex wraps attached images in (its event echo has no tags).
func promptText(bs []session.Block) string {
	var parts []string
	for _, b := range bs {
		t := strings.TrimSpace(b.Text)
		if b.Type != session.BlockText || t == "" || t == "</image>" || strings.HasPrefix(t, "<image ") && strings.HasSuffix(t, ">") {
			continue
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

func itemText(raw json.RawMessage) string {
	var items []contentItem
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, c := range items {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// content maps message content items: input_text and output_text as text,
// input_image as an image (a data: URL's bytes; another URL is kept as
// text), other items keep their type.
func (format) content(raw json.RawMessage, at sessionlog.Pos, em *sessionlog.Emitter) []session.Block {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return []session.Block{{Type: session.BlockText, Text: s}}
	}
	var items []contentItem
	if err := json.Unmarshal(raw, &items); err != nil {
		em.Warn(at, "field \"payload.content\": "+sessionlog.FieldWarning(err))
	}
	out := []session.Block{}
	for _, c := range items {
		switch c.Type {
		case "input_text", "output_text", "text":
			out = append(out, session.Block{Type: session.BlockText, Text: c.Text})
		case "input_image":
			out = append(out, image(c.ImageURL))
		default:
			out = append(out, session.Block{Type: TypePrefix + c.Type, Text: c.Text})
		}
	}
	return out
}

// image maps an image URL: data:<mime>;base64,<data> gives the image.
func image(url string) session.Block {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(meta, ";base64") {
			return session.Block{Type: session.BlockImage, MimeType: strings.TrimSuffix(meta, ";base64"), Data: data}
		}
	}
	return session.Block{Type: session.BlockImage, Text: url}
}

// reasoning maps a reasoning item: its summary (and raw content) as
// thinking; an item with only encrypted content is one redacted block
// (§2.6.4).
func reasoning(p *wirePayload) []session.Block {
	var out []session.Block
	var items []contentItem
	if json.Unmarshal(p.Summary, &items) == nil {
		for _, c := range items {
			out = append(out, session.Block{Type: session.BlockThinking, Thinking: c.Text})
		}
	}
	items = nil
	if len(p.Content) > 0 && p.Content[0] == '[' && json.Unmarshal(p.Content, &items) == nil {
		for _, c := range items {
			out = append(out, session.Block{Type: session.BlockThinking, Thinking: c.Text})
		}
	}
	if len(out) == 0 {
		out = []session.Block{{Type: session.BlockThinking, Redacted: true}}
	}
	return out
}

// arguments turns a call's arguments into JSON: Codex writes a JSON string
// holding JSON (function_call) or plain text (custom_tool_call input). A
// string that holds a JSON object or array becomes that JSON; any other
// value stays as written.
func arguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
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
	return append(json.RawMessage(nil), raw...)
}

func rawOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return append(json.RawMessage(nil), raw...)
}

var exitCode = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)`)

// output maps a tool output: a string (exec_command's text with its header,
// §2.6.5, or older JSON {"output", "metadata": {"exit_code"}}), a content
// item array, or an older {content, success} object. isError is a non-zero
// exit code or success false.
func output(raw json.RawMessage) (blocks []session.Block, isError bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return []session.Block{}, false
	}
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		if m := exitCode.FindStringSubmatch(s); m != nil && m[1] != "0" {
			isError = true
		}
		var old struct {
			Output   string `json:"output"`
			Metadata *struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &old) == nil && old.Metadata != nil && old.Metadata.ExitCode != nil {
			isError = *old.Metadata.ExitCode != 0
		}
		return []session.Block{{Type: session.BlockText, Text: s}}, isError
	case '[':
		var items []contentItem
		_ = json.Unmarshal(raw, &items)
		out := []session.Block{}
		for _, c := range items {
			if c.Type == "input_image" {
				out = append(out, image(c.ImageURL))
			} else {
				out = append(out, session.Block{Type: session.BlockText, Text: c.Text})
			}
		}
		return out, false
	case '{':
		var old struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		_ = json.Unmarshal(raw, &old)
		blocks, _ = output(old.Content)
		return blocks, old.Success != nil && !*old.Success
	}
	return []session.Block{{Type: session.BlockText, Text: string(raw)}}, false
}

// spawnedAgent reads the agent id from a spawn_agent output
// ({"agent_id": ..., "nickname": ...}).
func spawnedAgent(content []session.Block) string {
	for _, b := range content {
		var v struct {
			AgentID string `json:"agent_id"`
		}
		if json.Unmarshal([]byte(b.Text), &v) == nil && v.AgentID != "" {
			return v.AgentID
		}
	}
	return ""
}

// isContext reports whether a user message is harness context: AGENTS.md,
// <environment_context>, instructions and notifications Codex sends as user
// messages (§2.6.2), not a prompt the person typed.
func isContext(blocks []session.Block) bool {
	text := ""
	for _, b := range blocks {
		if b.Type == session.BlockText {
			text = strings.TrimSpace(b.Text)
			break
		}
	}
	for _, p := range []string{"<environment_context>", "# AGENTS.md", "<user_instructions>", "<permissions",
		"<skills_instructions>", "<subagent_notification>", "<turn_aborted>", "<user_shell_command>", "<collaboration_mode>",
		"<apps_instructions>", "<INSTRUCTIONS>"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

func turnOf(p *wirePayload, st *parseState) string {
	if p.Passthru != nil && p.Passthru.TurnID != "" {
		return p.Passthru.TurnID
	}
	return st.TurnID
}

func (st *parseState) addTurn(turn string) {
	if turn == "" {
		return
	}
	last := st.Turns[(st.TurnsAt+turnSlots-1)%turnSlots]
	if last == turn {
		return
	}
	st.Turns[st.TurnsAt] = turn
	st.TurnsAt = (st.TurnsAt + 1) % turnSlots
}

// lastTurns returns the last n turns that had a prompt, oldest first.
func (st *parseState) lastTurns(n int) []string {
	var out []string
	for i := 1; i <= min(n, turnSlots); i++ {
		t := st.Turns[(st.TurnsAt+turnSlots-i)%turnSlots]
		if t == "" {
			break
		}
		out = append([]string{t}, out...)
	}
	return out
}

func (st *parseState) addCall(id, name string) {
	if id == "" {
		return
	}
	st.Calls[st.CallsAt] = call{ID: id, Name: name}
	st.CallsAt = (st.CallsAt + 1) % len(st.Calls)
}

func (st *parseState) callName(id string) string {
	for _, c := range st.Calls {
		if c.ID == id && id != "" {
			return c.Name
		}
	}
	return ""
}

func (st *parseState) countedResponse(id string) bool {
	for _, r := range st.Responses {
		if r == id {
			return true
		}
	}
	return false
}

func (st *parseState) markResponse(id string) {
	if id == "" {
		return
	}
	st.Responses[st.ResponsesAt] = id
	st.ResponsesAt = (st.ResponsesAt + 1) % usageSlots
}

// uuidv7Millis returns the creation time in Unix milliseconds of a UUIDv7
// (its first 48 bits), or 0 for another string.
func uuidv7Millis(id string) int64 {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 || h[12] != '7' {
		return 0
	}
	ms, err := strconv.ParseInt(h[:12], 16, 64)
	if err != nil {
		return 0
	}
	return ms
}

// notCodex checks the first object: nil when it can start a rollout, else
// an error matching session.ErrNoHeader that says what the file is.
func notCodex(ln *wireLine, enveloped bool, obj []byte, file string) error {
	if enveloped || ln.RecordType != "" || bareItems[ln.Type] || ln.Type == "" && ln.ID != "" && ln.Timestamp != "" {
		return nil
	}
	f, why := sessionformat.Detect(append(append([]byte{}, obj...), '\n'))
	if f != "" {
		return sessionlog.ErrNotFormat("codex", fmt.Sprintf("%s: line 1: not a Codex rollout: %s (a %s file)", file, why, f))
	}
	return sessionlog.ErrNotFormat("codex", fmt.Sprintf("%s: line 1: not a Codex rollout: %s", file, why))
}

// compactionPreamble opens the message of a compacted line written by a
// local compaction: Codex puts its instructions to the next model
// (codex-rs core/templates/compact/summary_prefix.md, "Another language
// model started to solve this problem and produced a summary of its
// thinking process. You also have access to … use the information in this
// summary to assist with your own analysis:") on the message's first line,
// then the model's summary.
const compactionPreamble = "Another language model started to solve this problem"

// compactionSummary is the summary in a compacted line's message: the
// message without Codex's preamble (its whole first line), or the message
// as it is when it has none or nothing follows it. The raw line keeps the
// message whole.
func compactionSummary(msg string) string {
	if !strings.HasPrefix(msg, compactionPreamble) {
		return msg
	}
	_, rest, ok := strings.Cut(msg, "\n")
	if rest = strings.TrimSpace(rest); !ok || rest == "" {
		return msg
	}
	return rest
}
