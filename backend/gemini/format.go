package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/backend/sessionlog"
)

// Format is the name of the format in Header.Format, and the name
// sessionformat.Detect should give it (see Looks): Gemini CLI's chat
// recordings (~/.gemini/tmp/<project>/chats/*.jsonl).
const Format = "gemini-cli"

// Entry types and names the reader gives Gemini CLI records that are not pi
// entry types.
const (
	TypePrefix = "gemini:"
	// TypeMetadata is a metadata record: a recording starts (Subtype = its
	// kind, "main" or "subagent").
	TypeMetadata = "gemini:metadata"
	// TypeSet is a {"$set": {...}} record without messages (Subtype = its
	// keys in file order: "lastUpdated", "sessionId", ...), or whose
	// messages list is empty. A $set that holds messages gives one entry
	// per message instead.
	TypeSet = "gemini:set"
	// TypeRewind is a {"$rewindTo": id} record (TargetID = id).
	TypeRewind = "gemini:rewind"

	// Message.CustomType of the user messages Gemini CLI adds itself, and
	// of info and warning messages.
	CustomSessionContext = "gemini:session_context"
	CustomHookContext    = "gemini:hook_context"
	CustomInfo           = "gemini:info"
	CustomWarning        = "gemini:warning"

	// ToolShell is Gemini CLI's shell tool: a result whose output ends in
	// a non-zero "Exit Code:" is an error.
	ToolShell = "run_shell_command"

	callSlots = 64
	// maxLive bounds the messages the reader keeps of Gemini's current
	// list (a compression keeps it far below: the model's context).
	maxLive = 20000
)

// Prefixes of the text of the user messages that are not prompts
// (README "Records": the CLI skips the first two when it lists sessions;
// the third is a compression's summary).
const (
	prefixSessionContext = "<session_context>"
	prefixHookContext    = "<hook_context>"
	prefixStateSnapshot  = "<state_snapshot>"
	prefixImported       = "Imported session from "
)

// parseState is what the reader carries from line to line; a plain value
// (fixed arrays; slices appended to or replaced, never changed in place)
// so that copies are independent.
type parseState struct {
	Seen bool `json:"seen,omitempty"` // the first object was checked
	Objs int  `json:"objs,omitempty"` // objects decoded (the header waits for two)

	// Header: the first metadata record's, and the layout's.
	SessionID     string `json:"sessionId,omitempty"`
	Timestamp     string `json:"timestamp,omitempty"`
	Kind          string `json:"kind,omitempty"`
	Cwd           string `json:"cwd,omitempty"`
	ParentSession string `json:"parentSession,omitempty"`
	Later         bool   `json:"later,omitempty"` // a later recording of the session (Layout.EarlierRecording)
	FirstModel    string `json:"firstModel,omitempty"`
	Model         string `json:"model,omitempty"` // the last response's

	ObjLine int `json:"objLine,omitempty"` // line of the last object, and its index there
	ObjIdx  int `json:"objIdx,omitempty"`

	AfterMeta bool `json:"afterMeta,omitempty"` // the last record was metadata (a recording starts)
	Importing bool `json:"importing,omitempty"` // after "Imported session from", before the first $set

	Live    []liveMsg `json:"live,omitempty"`    // Gemini's current message list
	Results []uint64  `json:"results,omitempty"` // sorted fingerprints of the call ids whose result has an entry, of the list's since its last rewrite
	Tip     string    `json:"tip,omitempty"`     // the entry of the last live message
	Turn    string    `json:"turn,omitempty"`    // the entry of the prompt being answered

	Calls   [callSlots]call `json:"calls"`
	CallsAt int             `json:"callsAt,omitempty"`

	// The gemini message whose entry is held until the next message says
	// whether it is written again (see messageLine).
	Held       string      `json:"held,omitempty"`
	HeldParent string      `json:"heldParent,omitempty"`
	HeldUsage  *wireTokens `json:"heldUsage,omitempty"`  // its tokens, when it counts
	HeldCounts bool        `json:"heldCounts,omitempty"` // its usage is in Meta.Usage

	LastInput int64 `json:"lastInput,omitempty"` // the last response's prompt tokens (a compression's TokensBefore)

	Meta Metadata `json:"meta"`
}

// format implements sessionlog.Format for Gemini CLI chat recordings.
type format struct {
	file string
	rec  *wireRecord // scratch for the object being decoded
	el   *wireRecord // scratch for a message inside a $set
}

func newFormat(file string) format {
	return format{file: file, rec: new(wireRecord), el: new(wireRecord)}
}

func (format) HeaderReady(st *parseState) bool { return st.SessionID != "" && st.Objs >= 2 }

func (format) Header(st *parseState, file string) (*session.Header, error) {
	if st.SessionID == "" {
		if !st.Seen {
			return nil, sessionlog.ErrNotFormat("gemini", fmt.Sprintf("%s: not a Gemini CLI chat recording: no JSON object in the first %d lines", file, sessionlog.HeaderScanLines))
		}
		return nil, sessionlog.ErrNotFormat("gemini", fmt.Sprintf("%s: not a Gemini CLI chat recording: no metadata record with a sessionId in the first %d lines", file, sessionlog.HeaderScanLines))
	}
	h := &session.Header{Type: "session", ID: st.SessionID, Timestamp: st.Timestamp, Cwd: st.Cwd, Format: Format,
		ModelID: st.FirstModel, ParentSession: st.ParentSession}
	if st.Kind == "subagent" {
		h.AgentID = st.SessionID
	}
	if st.Later {
		h.ID = LaterRecordingID(st.SessionID, st.Timestamp)
	}
	return h, nil
}

// LaterRecordingID is the session id the reader gives a later recording of
// session id that started at startTime (see Layout.EarlierRecording): the
// library holds one session per id, and the session's own id is its first
// file's.
func LaterRecordingID(id, startTime string) string { return id + "~" + startTime }

func (format) Finish(st *parseState, em *sessionlog.Emitter) {
	if st.Held != "" || em.Holding() {
		st.settleHold()
		em.Release()
	}
}

// settleHold forgets the held gemini message: it is not written again.
func (st *parseState) settleHold() {
	st.Held, st.HeldParent, st.HeldUsage, st.HeldCounts = "", "", nil, false
}

// Decode maps one record (see the package comment).
func (f format) Decode(st *parseState, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) bool {
	rec := f.rec
	if rec == nil {
		rec = new(wireRecord)
	}
	*rec = wireRecord{}
	// A rewrite holds the whole conversation: its messages are decoded one
	// by one, not twice.
	sv, sms, isSet := setValue(obj)
	if isSet {
		if !json.Valid(obj) {
			return false
		}
	} else if err := json.Unmarshal(obj, rec); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return false
		}
		em.Warn(at, sessionlog.FieldWarning(err))
	}
	if !st.Seen {
		st.Seen = true
		if err := notGemini(obj, f.file); err != nil {
			em.NotThisFormat(err)
			return true
		}
	}
	st.Objs++
	if at.Line == st.ObjLine {
		st.ObjIdx++
	} else {
		st.ObjLine, st.ObjIdx = at.Line, 1
	}
	afterMeta := st.AfterMeta
	st.AfterMeta = false
	switch {
	case isSet:
		f.set(st, obj, sv, sms, at, afterMeta, em)
	case rec.Set != nil:
		sv, sms = span{}, nil
		if top, ok := members(obj); ok {
			sv, _ = memberVal(top, "$set")
			sms, _ = members(obj[sv.Start:sv.End])
		}
		f.set(st, obj, sv, sms, at, afterMeta, em)
	case rec.RewindTo != nil:
		f.rewindTo(st, rec, obj, at, em)
	case rec.ID != "" || rec.Type != "":
		f.messageLine(st, rec, obj, at, em)
	case rec.SessionID != "":
		f.metadata(st, rec, obj, at, em)
	case rec.FunctionResponse != nil:
		// A tool result read back alone from the library.
		e := f.result(st, rec.FunctionResponse, 0, st.lineID(at), obj, at, time.Time{}, nil)
		if id := e.Message.ToolCallID; id != "" && st.knownResult(id) {
			e.DuplicateOf = e.ID
		} else if id != "" {
			st.addResult(id)
		}
		e.ParentID, e.TurnID = st.Tip, st.Turn
		st.emit(em, e)
	default:
		em.Malformed(at, `JSON object is none of Gemini CLI's records (metadata with a "sessionId", a message with an "id", "$set", "$rewindTo")`)
	}
	return true
}

// lineID is the id of a record without one: "L<line>", "L<line>.<k>" for
// the k-th object of a line.
func (st *parseState) lineID(at sessionlog.Pos) string {
	if st.ObjIdx <= 1 {
		return "L" + strconv.Itoa(at.Line)
	}
	return "L" + strconv.Itoa(at.Line) + "." + strconv.Itoa(st.ObjIdx)
}

// newEntry is an entry of type typ whose Raw is raw, at at.
func (st *parseState) newEntry(at sessionlog.Pos, raw []byte, typ string) *session.Entry {
	return &session.Entry{Line: at.Line, Offset: at.Offset, Type: typ, Raw: append(json.RawMessage(nil), raw...), Sidechain: st.Kind == "subagent"}
}

// when parses an ISO 8601 time; a bad one is a warning naming the field.
func when(s string, at sessionlog.Pos, em *sessionlog.Emitter, field string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		em.Warn(at, fmt.Sprintf("field %q: %q is not an ISO 8601 time; left zero", field, s))
		return time.Time{}
	}
	return t
}

// emit sends e on and notes its time.
func (st *parseState) emit(em *sessionlog.Emitter, e *session.Entry) {
	if !e.Timestamp.IsZero() {
		ts := e.Timestamp.UTC().Format(time.RFC3339Nano)
		if st.Meta.FirstTimestamp == "" {
			st.Meta.FirstTimestamp = ts
		}
		st.Meta.LastTimestamp = ts
	}
	em.Emit(e)
}

// release ends the hold of a gemini message before a message record: it
// was not written again.
func (st *parseState) release(em *sessionlog.Emitter) {
	if st.Held != "" || em.Holding() {
		st.settleHold()
		em.Release()
	}
}

// metadata maps a metadata record: a recording starts. The first one makes
// the header.
func (format) metadata(st *parseState, rec *wireRecord, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) {
	if st.SessionID == "" {
		st.SessionID, st.Timestamp, st.Kind = rec.SessionID, rec.StartTime, rec.Kind
		if st.Timestamp == "" {
			st.Timestamp = rec.LastUpdated
		}
		if st.Cwd == "" && len(rec.Directories) > 0 {
			st.Cwd = rec.Directories[0]
		}
	}
	e := st.newEntry(at, obj, TypeMetadata)
	e.ID, e.ParentID, e.TurnID, e.Subtype = st.lineID(at), st.Tip, st.Turn, rec.Kind
	ts := rec.StartTime
	field := "startTime"
	if ts == "" {
		ts, field = rec.LastUpdated, "lastUpdated"
	}
	e.Timestamp = when(ts, at, em, field)
	m := &st.Meta
	m.Recordings++
	if rec.SessionID != st.SessionID {
		m.ForeignRecordings++
	}
	if m.Kind == "" {
		m.Kind = rec.Kind
	}
	if m.ProjectHash == "" {
		m.ProjectHash = rec.ProjectHash
	}
	if len(m.Directories) == 0 && len(rec.Directories) > 0 {
		m.Directories = slices.Clone(rec.Directories)
	}
	if rec.Summary != "" {
		m.Title = summaryTitle(rec.Summary)
	}
	st.AfterMeta = true
	st.emit(em, e)
}

// set maps a {"$set": {...}} record: merged into the session's metadata
// (summary is the title, sessionId a resume switching into this file); a
// messages list replaces Gemini's whole message list (rewrite).
//
// sv is the span of the $set value in obj, ms its members (nil when it is
// not an object).
func (f format) set(st *parseState, obj []byte, sv span, ms []member, at sessionlog.Pos, afterMeta bool, em *sessionlog.Emitter) {
	var ws wireSet
	var keys []string
	list, hasList := span{}, false
	if v := obj[sv.Start:sv.End]; len(v) > 0 && v[0] != '{' {
		em.Warn(at, fmt.Sprintf(`field "$set": %s where an object is expected; left empty`, sessionlog.Kind(v[0])))
	}
	for _, m := range ms {
		keys = append(keys, m.Key)
		val := obj[sv.Start+m.Val.Start : sv.Start+m.Val.End]
		var dst any
		switch m.Key {
		case "messages":
			list, hasList = span{Start: sv.Start + m.Val.Start, End: sv.Start + m.Val.End}, true
		case "summary":
			dst = &ws.Summary
		case "sessionId":
			dst = &ws.SessionID
		case "lastUpdated":
			dst = &ws.LastUpdated
		}
		if dst != nil {
			if err := json.Unmarshal(val, dst); err != nil {
				em.Warn(at, fieldWarning("$set."+m.Key, err))
			}
		}
	}
	if ws.Summary != nil && *ws.Summary == "" {
		ws.Summary = nil // not a string (a warning), or empty: no title
	}
	if ws.Summary != nil {
		st.Meta.Title = summaryTitle(*ws.Summary)
	}
	if ws.SessionID != nil {
		st.Meta.Resumes++
		if st.SessionID == "" {
			st.SessionID = *ws.SessionID
		}
	}
	st.Importing = false
	var elems []span
	if hasList {
		if obj[list.Start] != '[' {
			em.Warn(at, fmt.Sprintf(`field "$set.messages": %s where a list is expected; left empty`, sessionlog.Kind(obj[list.Start])))
			hasList = false
		} else {
			elems, _ = elements(obj[list.Start:list.End])
		}
	}
	if hasList {
		st.release(em)
	}
	if len(elems) > 0 && f.rewrite(st, obj, at, list.Start, elems, ws.LastUpdated, afterMeta, em) {
		return
	}
	e := st.newEntry(at, obj, TypeSet)
	e.ID, e.ParentID, e.TurnID, e.Subtype = st.lineID(at), st.Tip, st.Turn, strings.Join(keys, ",")
	e.Timestamp = when(ws.LastUpdated, at, em, "$set.lastUpdated")
	if ws.Summary != nil {
		e.Type, e.Name = session.TypeSessionInfo, summaryTitle(*ws.Summary)
	}
	if hasList && !afterMeta {
		// An empty list drops every message.
		e.RolledBackTurns = st.drop(st.Live, make([]bool, len(st.Live)))
		st.Live, st.Tip, st.Turn = nil, "", ""
		st.Meta.Rewrites++
		if len(e.RolledBackTurns) > 0 {
			st.Meta.Rollbacks++
		}
	}
	st.emit(em, e)
}

// rewindTo maps a {"$rewindTo": id} record: that message and every one
// after it leave Gemini's list; the turns whose prompts leave are rolled
// back.
func (format) rewindTo(st *parseState, rec *wireRecord, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) {
	st.release(em)
	e := st.newEntry(at, obj, TypeRewind)
	e.ID, e.ParentID, e.TurnID = st.lineID(at), st.Tip, st.Turn
	var target string
	if err := json.Unmarshal(rec.RewindTo, &target); err != nil || target == "" {
		em.Warn(at, fmt.Sprintf(`field "$rewindTo": %s where a message id is expected; nothing rewound`, sessionlog.Kind(rec.RewindTo[0])))
		st.emit(em, e)
		return
	}
	e.TargetID = target
	i := st.findLive(target)
	if i < 0 {
		em.Warn(at, fmt.Sprintf(`field "$rewindTo": message %q is not in the conversation; nothing rewound`, target))
		st.emit(em, e)
		return
	}
	kept := make([]bool, len(st.Live))
	for k := range i {
		kept[k] = true
	}
	e.RolledBackTurns = st.drop(st.Live, kept)
	st.Live = slices.Clone(st.Live[:i])
	st.Tip, st.Turn = "", ""
	for k, m := range st.Live {
		st.Tip = m.entry()
		if m.Prompt {
			st.Turn = st.Live[k].entry()
		}
	}
	st.Meta.Rewinds++
	st.emit(em, e)
}

// fieldWarning words a decoding error of a value found at prefix (a
// field path) for a warning: a type mismatch as 'field
// "$set.messages[2].tokens.input": JSON string where int64 is expected;
// left empty'.
func fieldWarning(prefix string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := prefix
		if te.Field != "" {
			f = join(prefix, te.Field)
		}
		return fmt.Sprintf("field %q: JSON %s where %s is expected; left empty", f, te.Value, te.Type)
	}
	return prefix + ": " + err.Error()
}

// join names a field inside another ("$set.messages[2]" + "timestamp").
func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// notGemini checks the first object: nil when it is a Gemini CLI record
// (Looks), else an error matching session.ErrNoHeader that says what the
// file is.
func notGemini(obj []byte, file string) error {
	if Looks(obj) {
		return nil
	}
	f, why := sessionformat.Detect(append(append([]byte{}, obj...), '\n'))
	if f != "" {
		return sessionlog.ErrNotFormat("gemini", fmt.Sprintf("%s: line 1: not a Gemini CLI chat recording: %s (a %s file)", file, why, f))
	}
	return sessionlog.ErrNotFormat("gemini", fmt.Sprintf("%s: line 1: not a Gemini CLI chat recording: %s", file, why))
}

// jsonLeadString matches the first string member of a JSON object, even one
// cut short: `{"SummaryOfFindings": "The routes are …", …`.
var jsonLeadString = regexp.MustCompile(`^\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// summaryTitle is the title a chat's summary gives: the summary itself,
// or, when it is a JSON object (Gemini CLI 0.61 sets a sub-agent's summary
// to the start of its JSON result, cut with "..."), its first string
// member's text ("The routes are registered in main.go: …"); "" when such
// an object has none.
func summaryTitle(s string) string {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return s
	}
	m := jsonLeadString.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	t, err := strconv.Unquote(`"` + m[1] + `"`)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(t)
}
