// Package opencode reads OpenCode sessions (OpenCode 1.x, checked against
// 1.18.33) from OpenCode's own SQLite database, and reads one session's
// rows, exported as a JSON document, as a stream of backend/session
// entries: losslessly (every row is kept with its exact bytes), with bad
// rows reported and never dropped silently, unknown part types and fields
// kept raw.
//
// See testdata/generate/README.md for the database as OpenCode 1.18.33
// writes it ($XDG_DATA_HOME/opencode/opencode.db, WAL mode; tables
// session, message, part, todo, project; message and part rows hold JSON
// in their data column; times are Unix milliseconds). There are two
// halves, so that the import can treat a database session as a whole
// document, as it treats a Cline task:
//
//   - OpenDB, (*DB).Sessions and (*DB).Export read the database, opened
//     read-only and never locking it against OpenCode, leaving no file
//     beside it that was not there (db.go, export.go). Sessions lists the
//     sessions with a change marker (SessionIDs their ids alone); Export
//     gives one session's rows as a JSON document. export-session gives
//     back that document for a session stored in a database.
//   - ParseDocument reads such a document into a header, entries,
//     problems and metadata: pure, no database (document.go, message.go,
//     usage.go, wire.go).
//
// # The document
//
// One JSON object, written one row to a line:
//
//	{"format":"opencode-session","schema":1,
//	"session":{<session row>},
//	"project":{<project row>},
//	"messages":[
//	{<message row>,"parts":[
//	{<part row>},
//	...],"files":[{"part","name","path","size","text"|"base64"|"missing"|"omitted"}]},
//	...],
//	"todos":[{<todo row>},...],
//	"fork_of":{"session":"ses_…","messages":[["<copy id>","<original id>"],...]}}
//
// A row is an object of its columns in table order with the values as
// stored; the JSON text columns (message and part data, session model,
// permission, summary_diffs, metadata, revert, project sandboxes and
// commands) hold the JSON itself. A message's parts follow its columns,
// and the files its parts name (a truncated tool output's full text,
// tool-output/<id> beside the database) follow them. fork_of is Export's
// finding, not a row: OpenCode's fork leaves no link (see ForkOf).
//
// # Entries
//
// Messages in document order (time_created, then id), each one entry,
// followed by one entry per tool call that has a result; then the todo
// list. Entry.Raw is the row's bytes in the document: a message's entry
// holds the message with its parts and files (so an entry stored alone
// keeps everything it shows), a tool result's the tool part, which is
// inside its message's.
//
//	row                              entry (Entry.Type)     notes
//
//	user message                     message                user: text parts (synthetic ones too: the model saw
//	                                                        them), file parts (an image: its bytes; any other
//	                                                        file an "opencode:file" block, Text = url, Name =
//	                                                        filename), agent and subtask parts ("opencode:agent",
//	                                                        "opencode:subtask" blocks); TurnID its own id
//	user message of synthetic text   message                custom, CustomType "opencode:continue" (the "Continue
//	  only                                                  if you have next steps" after a compaction) or
//	                                                        "opencode:synthetic": OpenCode wrote it
//	user message with a compaction   opencode:compaction    Subtype "auto", "overflow" or "manual": a compaction
//	  part                                                  was asked for
//	assistant message                message                assistant: reasoning parts as thinking, text, a
//	                                                        toolCall per tool part {callID, tool, state.input},
//	                                                        patch ("opencode:patch", Text = the files), retry
//	                                                        ("opencode:retry"); Model, Provider; Usage from
//	                                                        tokens and cost (step-finish parts when the message
//	                                                        has none); StopReason from finish (tool-calls:
//	                                                        toolUse), error and ErrorMessage from error
//	assistant message with summary   compaction             Summary = its text, TokensBefore = the last
//	  true                                                  response's total tokens, Subtype the trigger; its
//	                                                        usage in Metadata.CompactionUsage
//	tool part, completed or error    message (after its     toolResult: ID the part's id, ToolCallID, ToolName,
//	                                 message)               content = output or error (attachments as images or
//	                                                        files); IsError for an error, a non-zero exit, the
//	                                                        "invalid" tool; Details = {status, title, metadata,
//	                                                        time, fullOutput (the file's name), fullOutputBytes};
//	                                                        SubagentID = the child session a task call ran
//	todo rows                        opencode:todos         ID "todos", Data = the list (OpenCode keeps the
//	                                                        latest only; each todowrite call has its own)
//	other part types T               an "opencode:T" block  step-start, step-finish and snapshot parts give no
//	                                                        block; the message's Raw holds every part
//
// Ids are OpenCode's (message and part ids, "todos"): stable across
// exports, so that a re-read writes only the entries whose id is new.
// OpenCode rewrites a row while it streams it (a message gets its tokens
// and time.completed at the end, a tool part goes pending → running →
// completed): such an entry is listed in Parsed.Pending, and an entry
// whose Raw differs from the one stored under its id was written since
// (Fingerprint). ParentID chains each entry to the one before (OpenCode's
// parentID, the user message an assistant step answers, is TurnID):
// OpenCode's conversation is linear, every step of a turn answers its
// prompt.
//
// Structure: a sub-agent's session (parent_id set: the task tool's child)
// has Header.ParentSession its parent and AgentID its own id, every entry
// Sidechain; the parent's task result names it (SubagentID, and
// Parsed.Subagents). A fork (fork_of) has Header.ParentSession the
// session forked from, and the copied messages' entries are Replayed
// (Parsed.Fork). A compaction is a boundary: the compaction entry. The
// prompt OpenCode sends again after an overflow compaction is marked
// DuplicateOf the prompt it repeats.
package opencode

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// Format is the name of the format in Header.Format.
const Format = "opencode"

// ErrNoHeader matches (errors.Is) the error ParseDocument returns for input
// that is not an OpenCode session document (no JSON object, another
// format, no session row with an id); it is session.ErrNoHeader.
var ErrNoHeader = session.ErrNoHeader

// ErrIncomplete matches (errors.Is) the error ParseDocument returns for a
// document that ends too early: one still being written or cut short. Try
// again later; never replace a good read with it.
var ErrIncomplete = errors.New("opencode: the document is incomplete")

// ErrMalformed matches (errors.Is) the error ParseDocument returns for a
// document that is not valid JSON past its start.
var ErrMalformed = errors.New("opencode: the document is not valid JSON")

// Parsed is one session document read: its header, entries in order, the
// problems found, and what the rows say about the session as a whole.
type Parsed struct {
	Header  *session.Header
	Entries []session.Entry
	// Problems are the rows and fields the reader could not use, each
	// naming the message, part and field, with the line and byte offset of
	// the row in the document; the row is left out, every other kept.
	// Missing referenced files are problems too. The first
	// session.MaxStoredProblems are kept; ProblemCount counts them all.
	Problems     []session.Problem
	ProblemCount int
	Meta         Metadata
	// Subagents are the task calls that ran a child session.
	Subagents []Subagent
	// Fork is the session this one was forked from (fork_of), nil when
	// it is no fork.
	Fork *Fork
	// Pending lists the ids of the messages OpenCode is still writing: an
	// assistant message without time.completed and without an error, a
	// message with a tool call pending or running.
	Pending []string
}

// Subagent is a task tool call that ran a sub-agent in a child session.
type Subagent struct {
	EntryID string `json:"entryId"` // the tool result entry (the task part's id)
	CallID  string `json:"callId"`
	Session string `json:"session"`         // the child session's id (its Header.AgentID)
	Agent   string `json:"agent,omitempty"` // subagent_type ("general")
}

// Fork is where a forked session comes from.
type Fork struct {
	Parent string `json:"parent"` // the session forked from
	// Point is the parent's message the fork copies up to (the original
	// of the last copy): the fork point.
	Point  string `json:"point"`
	Copied int    `json:"copied"` // messages copied
}

// Fingerprint is a short hash of an entry's Raw: two reads of a session
// give an entry the same id and fingerprint when OpenCode has not changed
// its rows in between.
func Fingerprint(e *session.Entry) string {
	h := sha256.Sum256(e.Raw)
	return hex.EncodeToString(h[:8])
}

// ParseDocument reads an OpenCode session document (Export's, see the
// package comment); name names it in problems and errors. A wrong type in
// a row or field drops that message or part only, reported in Problems
// with its ids and field; every other row is kept. It never panics.
//
// Errors: one matching ErrNoHeader (nil Parsed) for input that is not a
// session document; one matching ErrIncomplete for a document that ends
// too early, and one matching ErrMalformed for one that stops being JSON,
// both naming the line and byte and both with a Parsed of the messages
// complete before that point (Parsed is nil when the session row was not
// read).
func ParseDocument(doc []byte, name string) (*Parsed, error) {
	w := &walker{doc: doc, name: name}
	d, err := w.document()
	switch {
	case errors.Is(err, ErrNoHeader):
		return nil, err
	case d.formatSeen && d.format != DocumentFormat:
		return nil, w.notDocument(fmt.Sprintf("format %q, not %q", d.format, DocumentFormat))
	case err != nil && (!d.formatSeen || d.session == nil):
		return nil, err // ended before the header was read
	case !d.formatSeen:
		return nil, w.notDocument(`no "format" member`)
	case d.session == nil || d.session.ID == "":
		return nil, w.notDocument("no session row with an id")
	}
	return newMapper(w, d).run(), err
}

// notDocument is the error for input that is not a session document.
func (w *walker) notDocument(why string) error {
	return &noHeader{msg: fmt.Sprintf("opencode: %s: not an OpenCode session document: %s", w.name, why)}
}

type noHeader struct{ msg string }

func (e *noHeader) Error() string        { return e.msg }
func (e *noHeader) Is(target error) bool { return target == session.ErrNoHeader }

// span is bytes [start, end) of the document.
type span struct{ start, end int64 }

// document is a document's rows, decoded, with their places.
type document struct {
	started    bool // a JSON object opened
	formatSeen bool
	format     string
	schema     int64
	session    *wireSession
	sessionAt  span
	project    *wireProject
	messages   []docMessage
	todos      []wireTodo
	todosAt    span
	fork       *ForkOf
	forkAt     int64
}

// docMessage is one message row with its parts and files.
type docMessage struct {
	at               span
	id, sessionID    string
	created, updated int64
	data             wireMessage
	hasData          bool
	bad              string // why the message is left out ("" when it is not)
	parts            []docPart
	files            []docFile
}

// docPart is one part row.
type docPart struct {
	at  span
	row wirePartRow
	bad string
}

// docFile is one referenced file.
type docFile struct {
	at   int64
	file wireFile
}

// walker reads a document: a cursor finds the rows' places (a quick scan
// that only tells values apart), and each row is decoded alone, so that a
// bad row costs that row only and every place is known.
type walker struct {
	doc      []byte
	name     string
	i        int // the cursor: the next byte to read
	problems []session.Problem
	nProbs   int

	lineOff int64 // line counting: the line of byte lineOff is lineNo
	lineNo  int
}

// errEnd is the end of the input before the document's end.
var errEnd = errors.New("unexpected end")

// syntaxError is bytes that are not JSON where the structure needs it.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// ws moves the cursor past whitespace.
func (w *walker) ws() {
	for w.i < len(w.doc) {
		switch w.doc[w.i] {
		case ' ', '\t', '\r', '\n':
			w.i++
		default:
			return
		}
	}
}

// next returns the offset and first byte of the next value (moving the
// cursor past whitespace); the offset is len(doc) at the end.
func (w *walker) next() (int64, byte) {
	w.ws()
	if w.i >= len(w.doc) {
		return int64(len(w.doc)), 0
	}
	return int64(w.i), w.doc[w.i]
}

// end returns the end of the JSON value starting at byte i. It checks
// only what finding the end needs (strings, nesting, where a literal
// stops): the decoder checks the rest.
func (w *walker) end(i int) (int, error) {
	doc := w.doc
	if i >= len(doc) {
		return i, errEnd
	}
	switch c := doc[i]; {
	case c == '"':
		return w.stringEnd(i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				e, err := w.stringEnd(j)
				if err != nil {
					return e, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return len(doc), errEnd
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
		j := i
		for j < len(doc) && !delim(doc[j]) {
			j++
		}
		if j == len(doc) {
			return j, errEnd
		}
		return j, nil
	default:
		return i, &syntaxError{off: i, msg: fmt.Sprintf("byte 0x%02x where a JSON value should start", c)}
	}
}

// delim reports whether c ends a literal.
func delim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}':
		return true
	}
	return false
}

// stringEnd returns the end of the JSON string whose opening quote is at
// byte i: the first quote after it not escaped by an odd run of
// backslashes.
func (w *walker) stringEnd(i int) (int, error) {
	from := i + 1
	for {
		k := bytes.IndexByte(w.doc[from:], '"')
		if k < 0 {
			return len(w.doc), errEnd
		}
		q := from + k
		n := 0
		for b := q - 1; b > i && w.doc[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		from = q + 1
	}
}

// line returns the 1-based line of byte off.
func (w *walker) line(off int64) int {
	off = min(max(off, 0), int64(len(w.doc)))
	if off < w.lineOff || w.lineNo == 0 {
		w.lineOff, w.lineNo = 0, 1
	}
	w.lineNo += bytes.Count(w.doc[w.lineOff:off], []byte("\n"))
	w.lineOff = off
	return w.lineNo
}

// problem records a problem at byte off.
func (w *walker) problem(off int64, reason string) {
	w.nProbs++
	if len(w.problems) >= session.MaxStoredProblems {
		return
	}
	w.problems = append(w.problems, session.Problem{File: w.name, Line: w.line(off), Offset: off, Reason: reason})
}

// skip moves the cursor past the next value.
func (w *walker) skip() error {
	w.ws()
	e, err := w.end(w.i)
	w.i = e
	return err
}

// decode decodes the next value into v. A value that is not of v's type,
// or not valid JSON inside, is returned as a reason naming field (the
// cursor moves past it and the read goes on); a value that does not end
// is a fatal error.
func (w *walker) decode(v any, field string) (reason string, fatal error) {
	w.ws()
	start := w.i
	e, err := w.end(start)
	w.i = e
	if err != nil {
		return "", err
	}
	err = json.Unmarshal(w.doc[start:e], v)
	if err == nil {
		return "", nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := field
		switch {
		case f == "":
			f = te.Field
		case te.Field != "":
			f = field + "." + te.Field
		}
		return fmt.Sprintf("field %q: JSON %s where %s is expected", f, te.Value, goKind(te.Type)), nil
	}
	if field == "" {
		return "not valid JSON: " + err.Error(), nil
	}
	return fmt.Sprintf("field %q: not valid JSON: %v", field, err), nil
}

// goKind names what a Go type decodes from: "an object", "a list", "a
// string", "an integer", "a number", "a boolean".
func goKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "JSON" // json.RawMessage
		}
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return goKind(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16,
		reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// expect moves the cursor past whitespace and the byte c.
func (w *walker) expect(c byte, what string) error {
	w.ws()
	switch {
	case w.i >= len(w.doc):
		return errEnd
	case w.doc[w.i] != c:
		return &syntaxError{off: w.i, msg: fmt.Sprintf("byte 0x%02x where %s should be", w.doc[w.i], what)}
	}
	w.i++
	return nil
}

// object reads the next value, an object, calling member for each of its
// members with the offset of the value; member must move the cursor past
// the value.
func (w *walker) object(member func(key string, at int64) error) error {
	if err := w.expect('{', "an object"); err != nil {
		return err
	}
	if w.ws(); w.i < len(w.doc) && w.doc[w.i] == '}' {
		w.i++
		return nil
	}
	for {
		w.ws()
		if w.i >= len(w.doc) {
			return errEnd
		}
		if w.doc[w.i] != '"' {
			return &syntaxError{off: w.i, msg: fmt.Sprintf("byte 0x%02x where a member name should start", w.doc[w.i])}
		}
		ks := w.i
		ke, err := w.stringEnd(ks)
		if err != nil {
			return err
		}
		key := string(w.doc[ks+1 : ke-1])
		if bytes.IndexByte(w.doc[ks:ke], '\\') >= 0 {
			_ = json.Unmarshal(w.doc[ks:ke], &key)
		}
		w.i = ke
		if err := w.expect(':', "a ':'"); err != nil {
			return err
		}
		at, _ := w.next()
		if err := member(key, at); err != nil {
			return err
		}
		if more, err := w.more('}'); !more {
			return err
		}
	}
}

// more moves the cursor past the ',' before another element or member
// (true), or past the closing byte (false, nil).
func (w *walker) more(closing byte) (bool, error) {
	w.ws()
	switch {
	case w.i >= len(w.doc):
		return false, errEnd
	case w.doc[w.i] == ',':
		w.i++
		return true, nil
	case w.doc[w.i] == closing:
		w.i++
		return false, nil
	}
	return false, &syntaxError{off: w.i, msg: fmt.Sprintf("byte 0x%02x where ',' or '%c' should be", w.doc[w.i], closing)}
}

// array reads the next value, an array, calling elem for each element
// with its offset and first byte; elem must move the cursor past the
// element.
func (w *walker) array(elem func(i int, at int64, c byte) error) error {
	if err := w.expect('[', "a list"); err != nil {
		return err
	}
	if w.ws(); w.i < len(w.doc) && w.doc[w.i] == ']' {
		w.i++
		return nil
	}
	for i := 0; ; i++ {
		at, c := w.next()
		if int(at) >= len(w.doc) {
			return errEnd
		}
		if err := elem(i, at, c); err != nil {
			return err
		}
		if more, err := w.more(']'); !more {
			return err
		}
	}
}

// document reads the whole document. The error is ErrNoHeader's for input
// that is no JSON object, else ErrIncomplete's or ErrMalformed's (with
// what was read before it).
func (w *walker) document() (*document, error) {
	d := &document{}
	at, c := w.next()
	if c != '{' {
		switch {
		case at == int64(len(w.doc)):
			return d, w.notDocument("empty")
		case c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9':
			return d, w.notDocument(fmt.Sprintf("the JSON value at byte %d is %s, not an object", at, sessionlog.Kind(c)))
		}
		return d, w.notDocument(fmt.Sprintf("byte %d (0x%02x) does not start JSON", at, c))
	}
	d.started = true
	err := w.object(func(key string, at int64) error {
		_, c := w.next()
		switch key {
		case "format":
			d.formatSeen = true
			if r, err := w.decode(&d.format, key); err != nil || r != "" {
				return err
			}
		case "schema":
			if r, err := w.decode(&d.schema, key); err != nil {
				return err
			} else if r != "" {
				w.problem(at, r)
			} else if d.schema > DocumentSchema {
				w.problem(at, fmt.Sprintf(`field "schema": %d, later than the %d this reader knows; read as %d`, d.schema, DocumentSchema, DocumentSchema))
			}
		case "session":
			if c != '{' {
				w.problem(at, fmt.Sprintf(`field "session": %s where the session row (an object) is expected`, sessionlog.Kind(c)))
				return w.skip()
			}
			var s wireSession
			r, err := w.decode(&s, "session")
			if err != nil {
				return err
			}
			d.session, d.sessionAt = &s, span{at, int64(w.i)}
			if r != "" {
				w.problem(at, r+"; left empty")
			}
		case "project":
			if c != '{' {
				w.problem(at, fmt.Sprintf(`field "project": %s where the project row (an object) is expected; left out`, sessionlog.Kind(c)))
				return w.skip()
			}
			d.project = new(wireProject)
			if r, err := w.decode(d.project, "project"); err != nil {
				return err
			} else if r != "" {
				w.problem(at, r+"; left empty")
			}
		case "messages":
			if c != '[' {
				w.problem(at, fmt.Sprintf(`field "messages": %s where a list of message rows is expected; no message read`, sessionlog.Kind(c)))
				return w.skip()
			}
			return w.array(func(i int, at int64, c byte) error {
				m, err := w.message(i, at, c)
				if m != nil {
					d.messages = append(d.messages, *m)
				}
				return err
			})
		case "todos":
			if c != '[' {
				w.problem(at, fmt.Sprintf(`field "todos": %s where a list of todo rows is expected; left out`, sessionlog.Kind(c)))
				return w.skip()
			}
			var todos []wireTodo
			err := w.array(func(i int, at int64, c byte) error {
				var t wireTodo
				r, err := w.decode(&t, fmt.Sprintf("todos[%d]", i))
				if err != nil {
					return err
				}
				if r != "" {
					w.problem(at, r+"; todo left out")
					return nil
				}
				todos = append(todos, t)
				return nil
			})
			if err != nil {
				return err // an incomplete list is left out
			}
			d.todos, d.todosAt = todos, span{at, int64(w.i)}
			return nil
		case "fork_of":
			var f ForkOf
			r, err := w.decode(&f, key)
			if err != nil {
				return err
			}
			if r != "" || f.Session == "" {
				if r == "" {
					r = `field "fork_of.session": missing`
				}
				w.problem(at, r+"; the fork is not linked")
				return nil
			}
			d.fork, d.forkAt = &f, at
		default:
			return w.skip()
		}
		return nil
	})
	if err != nil {
		return d, w.fatal(err)
	}
	if rest := bytes.TrimSpace(w.doc[int64(w.i):]); len(rest) > 0 {
		off := int64(len(w.doc) - len(rest))
		w.problem(off, fmt.Sprintf("%d bytes after the end of the document; ignored", len(rest)))
	}
	return d, nil
}

// fatal words an error that ends the read.
func (w *walker) fatal(err error) error {
	var se *syntaxError
	switch {
	case errors.Is(err, errEnd):
		off := int64(len(w.doc))
		return fmt.Errorf("opencode: %s: line %d (byte %d): the document ends before its last value is complete (still being written?): %w",
			w.name, w.line(off), off, ErrIncomplete)
	case errors.As(err, &se):
		off := int64(se.off)
		return fmt.Errorf("opencode: %s: line %d (byte %d): %s; the rest is not read: %w", w.name, w.line(off), off, se.msg, ErrMalformed)
	}
	off := int64(w.i)
	return fmt.Errorf("opencode: %s: line %d (byte %d): %v: %w", w.name, w.line(off), off, err, ErrMalformed)
}

// message reads element i of "messages", starting at byte at with c. It
// returns nil for an element that is not an object (a problem).
func (w *walker) message(i int, at int64, c byte) (*docMessage, error) {
	if c != '{' {
		w.problem(at, fmt.Sprintf("messages[%d]: %s where a message row (an object) is expected; left out", i, sessionlog.Kind(c)))
		return nil, w.skip()
	}
	m := &docMessage{at: span{start: at}}
	where := func() string {
		if m.id != "" {
			return "message " + m.id
		}
		return fmt.Sprintf("messages[%d]", i)
	}
	bad := func(r string) {
		if m.bad == "" {
			m.bad = r
		}
	}
	err := w.object(func(key string, vat int64) error {
		_, c := w.next()
		var r string
		var err error
		switch key {
		case "id":
			r, err = w.decode(&m.id, key)
		case "session_id":
			r, err = w.decode(&m.sessionID, key)
		case "time_created":
			r, err = w.decode(&m.created, key)
		case "time_updated":
			r, err = w.decode(&m.updated, key)
		case "data":
			m.hasData = true
			r, err = w.decode(&m.data, key)
		case "parts":
			if c != '[' {
				bad(fmt.Sprintf(`field "parts": %s where a list of part rows is expected`, sessionlog.Kind(c)))
				return w.skip()
			}
			return w.array(func(k int, pat int64, c byte) error {
				if c != '{' {
					w.problem(pat, fmt.Sprintf("%s: parts[%d]: %s where a part row (an object) is expected; part left out", where(), k, sessionlog.Kind(c)))
					return w.skip()
				}
				p := docPart{at: span{start: pat}}
				r, err := w.decode(&p.row, "")
				if err != nil {
					return err
				}
				p.at.end = int64(w.i)
				p.bad = r
				m.parts = append(m.parts, p)
				return nil
			})
		case "files":
			if c != '[' {
				w.problem(vat, fmt.Sprintf(`%s: field "files": %s where a list of files is expected; left out`, where(), sessionlog.Kind(c)))
				return w.skip()
			}
			return w.array(func(k int, fat int64, c byte) error {
				var f wireFile
				r, err := w.decode(&f, fmt.Sprintf("files[%d]", k))
				if err != nil {
					return err
				}
				if r != "" {
					w.problem(fat, fmt.Sprintf("%s: %s; file left out", where(), r))
					return nil
				}
				m.files = append(m.files, docFile{at: fat, file: f})
				return nil
			})
		default:
			return w.skip()
		}
		if err != nil {
			return err
		}
		if r != "" {
			bad(r)
		}
		return nil
	})
	if err != nil {
		return nil, err // an incomplete message is left out
	}
	m.at.end = int64(w.i)
	switch {
	case m.bad != "":
	case m.id == "":
		m.bad = `field "id": missing`
	case !m.hasData:
		m.bad = `field "data": missing`
	}
	return m, nil
}
