package memobrain

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// NodeKind is the kind of a reasoning step. See memobrain-data-model.md,
// "NodeKind Values". A snapshot may hold other kinds (MemoBrain does not
// check them); they are kept as written.
type NodeKind string

// The node kinds MemoBrain makes.
const (
	KindTask     NodeKind = "task"     // the main task; init_memory makes it
	KindSubtask  NodeKind = "subtask"  // a sub-problem; from a memory patch
	KindEvidence NodeKind = "evidence" // an answer or conclusion; from a memory patch
	KindSummary  NodeKind = "summary"  // a fold's summary of the nodes it folded
)

// Active is a node's tri-state "active" field: true, false or the string
// "Flushed". See interchange-formats.md §3, "Active states".
type Active uint8

// The three states of a node.
const (
	// Live is JSON true: the node is part of the current reasoning.
	Live Active = iota
	// Folded is JSON false: a fold replaced the node by a summary node.
	Folded
	// Flushed is JSON "Flushed": the node was judged redundant. MemoBrain
	// still shows it to the model (Python reads the string as true) but no
	// longer counts it as active when it compresses the conversation.
	Flushed
)

// String is "active", "folded" or "flushed".
func (a Active) String() string {
	switch a {
	case Live:
		return "active"
	case Folded:
		return "folded"
	case Flushed:
		return "flushed"
	}
	return fmt.Sprintf("Active(%d)", uint8(a))
}

// MarshalJSON writes MemoBrain's form: true, false or "Flushed".
func (a Active) MarshalJSON() ([]byte, error) {
	switch a {
	case Live:
		return []byte("true"), nil
	case Folded:
		return []byte("false"), nil
	case Flushed:
		return []byte(`"Flushed"`), nil
	}
	return nil, fmt.Errorf("memobrain: unable to write active state %d", uint8(a))
}

// UnmarshalJSON reads true, false or "Flushed"; anything else is an error.
func (a *Active) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*a = Live
	case "false":
		*a = Folded
	case `"Flushed"`:
		*a = Flushed
	default:
		return fmt.Errorf(`active %s is neither true, false nor "Flushed"`, b)
	}
	return nil
}

// NoteRole is who a note speaks for. See memobrain-data-model.md, "Notes":
// the standard roles below, and custom ones (multi-agent) such as
// "Agent_Analyst" or "User_R2d2".
type NoteRole string

// The standard note roles.
const (
	RoleAssistant NoteRole = "assistant" // the agent's reasoning or action
	RoleUser      NoteRole = "user"      // a tool response or feedback
	RoleSystem    NoteRole = "system"    // system-generated content
)

// Standard reports whether r is one of the standard roles (assistant, user,
// system) rather than a custom one.
func (r NoteRole) Standard() bool {
	return r == RoleAssistant || r == RoleUser || r == RoleSystem
}

// Note is one {role, content} entry of a node's notes. A note read from JSON
// keeps its other keys and their order, and is written back as it was read
// while its Role and Content are unchanged.
type Note struct {
	Role    NoteRole `json:"role"`
	Content string   `json:"content"`

	raw              json.RawMessage // as read
	rawRole, rawText string          // Role and Content as read
}

// Notes is a list of notes, in order.
type Notes []Note

// MarshalJSON writes the note as it was read, or {"role", "content"}.
func (n Note) MarshalJSON() ([]byte, error) {
	if n.raw != nil && string(n.Role) == n.rawRole && n.Content == n.rawText {
		return n.raw, nil
	}
	b := appendJSONString([]byte(`{"role":`), string(n.Role), false)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, n.Content, false)
	return append(b, '}'), nil
}

// UnmarshalJSON reads an object with a string "role" and a string
// "content" (other keys are kept); anything else is an error.
func (n *Note) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if !json.Valid(b) {
		return fmt.Errorf("a note is not valid JSON")
	}
	v, err := readNote(append(json.RawMessage(nil), b...))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// readNote reads one note from valid JSON. A repeated key counts with its
// last value, as in Python.
func readNote(raw json.RawMessage) (Note, error) {
	fs, err := objectFields(raw, 0)
	if err != nil {
		return Note{}, fmt.Errorf("a note is %s, not an object {role, content}", jsonKind(raw))
	}
	var role, content *string
	for _, f := range fs {
		var to **string
		switch f.key {
		case "role":
			to = &role
		case "content":
			to = &content
		default:
			continue
		}
		s, ok := decodeString(f.value)
		if !ok {
			return Note{}, fmt.Errorf("a note's %s is %s, not a string", f.key, jsonKind(f.value))
		}
		*to = &s
	}
	if role == nil {
		return Note{}, fmt.Errorf(`a note has no "role"`)
	}
	if content == nil {
		return Note{}, fmt.Errorf(`a note has no "content"`)
	}
	return Note{Role: NoteRole(*role), Content: *content, raw: trimJSONSpace(raw), rawRole: *role, rawText: *content}, nil
}

// appendNotes appends notes as a JSON list, each note as it was read or made.
func appendNotes(dst []byte, notes Notes) []byte {
	dst = append(dst, '[')
	for i, n := range notes {
		if i > 0 {
			dst = append(dst, ',')
		}
		b, _ := n.MarshalJSON() // never fails
		dst = append(dst, b...)
	}
	return append(dst, ']')
}

// readNotes reads a JSON list of notes; the error names the bad element.
func readNotes(raw json.RawMessage) (Notes, error) {
	es, err := arrayElements(raw, 0)
	if err != nil {
		return nil, fmt.Errorf(" is %s, not a list of notes", jsonKind(raw))
	}
	out := make(Notes, len(es))
	for i, e := range es {
		if out[i], err = readNote(e.value); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return out, nil
}

// ThoughtForm is the shape a node's "thought" has in JSON. See
// interchange-formats.md §3: it depends on how the node was made.
type ThoughtForm uint8

// The forms of a thought.
const (
	// ThoughtText is a plain string (the task node: "Begin to solve the
	// task: …").
	ThoughtText ThoughtForm = iota
	// ThoughtNotes is a list of {role, content} notes (nodes from a patch).
	ThoughtNotes
	// ThoughtEncodedNotes is a string holding a JSON-encoded list of notes
	// (summary nodes: MemoBrain passes json.dumps(notes) to fold_nodes).
	ThoughtEncodedNotes
	// ThoughtOther is any other JSON value: MemoBrain stores whatever the
	// model wrote, so a snapshot may hold one. Text is the raw JSON.
	ThoughtOther
)

// Thought is a node's content. It keeps the JSON value exactly as written,
// and reads it as text, notes or both.
type Thought struct {
	Form ThoughtForm
	// Text is the string for ThoughtText and ThoughtEncodedNotes (the
	// encoded list, exactly as stored), the raw JSON for ThoughtOther.
	Text string
	// Notes are the notes for ThoughtNotes and ThoughtEncodedNotes.
	Notes Notes

	raw json.RawMessage
}

// TextThought is a plain-string thought.
func TextThought(s string) Thought {
	return Thought{Form: ThoughtText, Text: s, raw: appendJSONString(nil, s, false)}
}

// NotesThought is a thought held as a list of notes.
func NotesThought(notes Notes) Thought {
	return Thought{Form: ThoughtNotes, Notes: notes, raw: appendNotes(nil, notes)}
}

// encodedNotesThought is a summary's thought: the notes as Python's
// json.dumps(notes) text (ensure_ascii, ", " and ": " separators), as
// MemoBrain's recall() hands them to fold_nodes.
func encodedNotesThought(notes Notes) Thought {
	b := []byte{'['}
	for i, n := range notes {
		if i > 0 {
			b = append(b, ", "...)
		}
		nb, _ := n.MarshalJSON()
		b = append(b, pyDumps(nb, true)...)
	}
	s := string(append(b, ']'))
	return Thought{Form: ThoughtEncodedNotes, Text: s, Notes: notes, raw: appendJSONString(nil, s, false)}
}

// MarshalJSON writes the thought exactly as it was read or made.
func (t Thought) MarshalJSON() ([]byte, error) {
	if t.raw == nil {
		return appendJSONString(nil, t.Text, false), nil
	}
	return t.raw, nil
}

// UnmarshalJSON reads any JSON value and classifies it (see ThoughtForm).
func (t *Thought) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if !json.Valid(b) {
		return fmt.Errorf("thought is not valid JSON")
	}
	*t = classifyThought(append(json.RawMessage(nil), b...))
	return nil
}

func classifyThought(raw json.RawMessage) Thought {
	t := Thought{raw: raw}
	switch raw[0] {
	case '"':
		t.Text, _ = decodeString(raw)
		t.Form = ThoughtText
		if s := trimJSONSpace([]byte(t.Text)); len(s) > 0 && s[0] == '[' && json.Valid(s) {
			if notes, err := readNotes(s); err == nil {
				t.Form, t.Notes = ThoughtEncodedNotes, notes
			}
		}
	case '[':
		if notes, err := readNotes(raw); err == nil {
			t.Form, t.Notes = ThoughtNotes, notes
			return t
		}
		t.Form, t.Text = ThoughtOther, string(raw)
	default:
		t.Form, t.Text = ThoughtOther, string(raw)
	}
	return t
}

// ReasoningNode is one step of the reasoning graph. See
// memobrain-data-model.md, "ReasoningNode", and interchange-formats.md §3.
//
// A node read from a snapshot keeps every key it had, in order; only Active
// is ever changed by an operation, so it is written back as it was read but
// for that field.
type ReasoningNode struct {
	ID      int      `json:"node_id"`
	Kind    NodeKind `json:"kind"`
	Thought Thought  `json:"thought"`
	// TurnIDs are the indexes of the conversation messages the node stands
	// for (related_turn_ids); MemoBrain gives each patch a pair [i, i+1].
	TurnIDs []int  `json:"related_turn_ids"`
	Active  Active `json:"active"`

	src *nodeSource
}

// nodeSource is how a node was written in the snapshot it was read from.
type nodeSource struct {
	key       string  // its key in "nodes"
	fields    []field // every member, in order
	active    Active  // Active as read
	hasActive bool    // whether "active" was written (MemoBrain's default is true)
}
