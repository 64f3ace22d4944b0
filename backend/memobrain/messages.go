package memobrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Message is one message of the conversation MemoBrain keeps beside the
// graph (self.messages): a node's related turn ids are indexes into it. See
// memobrain-data-model.md, "Messages Array". A message read from JSON keeps
// all its keys and is written back as read while Role and Content are
// unchanged.
type Message struct {
	Role string `json:"role"`
	// Content is the message's text; content that is not a string (a list
	// of parts, say) is its raw JSON.
	Content string `json:"content"`

	raw              json.RawMessage
	rawRole, rawText string
}

// MarshalJSON writes the message as it was read, or {"role", "content"}.
func (m Message) MarshalJSON() ([]byte, error) {
	if m.raw != nil && m.Role == m.rawRole && m.Content == m.rawText {
		return m.raw, nil
	}
	b := appendJSONString([]byte(`{"role":`), m.Role, false)
	b = appendJSONString(append(b, `,"content":`...), m.Content, false)
	return append(b, '}'), nil
}

// ReadMessages reads a MemoBrain conversation: a JSON list of messages, or
// an object holding one as "messages" (the result MemoBrain's example agent
// returns). Each message is an object with a string "role"; "content" is
// usually a string. Errors give the line and the message's index.
func ReadMessages(data []byte) ([]Message, error) {
	data = bytes.Clone(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if !json.Valid(data) {
		return nil, fmt.Errorf("memobrain: unable to read messages: %w", syntaxError(data))
	}
	list := json.RawMessage(data)
	base := 0
	if fs, err := objectFields(data, 0); err == nil {
		m, dup := fieldsByKey(fs)
		if dup != "" {
			return nil, fmt.Errorf("memobrain: unable to read messages: key %q appears twice", dup)
		}
		f, ok := m["messages"]
		if !ok {
			return nil, fmt.Errorf(`memobrain: unable to read messages: an object without "messages"`)
		}
		list, base = f.value, f.off
	}
	es, err := arrayElements(list, base)
	if err != nil {
		return nil, fmt.Errorf("memobrain: unable to read messages: they are %s, not a list", jsonKind(list))
	}
	out := make([]Message, len(es))
	for i, e := range es {
		if out[i], err = readMessage(e.value); err != nil {
			return nil, fmt.Errorf("memobrain: messages line %d: messages[%d]: %w", lineOf(data, e.off), i, err)
		}
	}
	return out, nil
}

func readMessageList(raw json.RawMessage) ([]Message, error) {
	es, err := arrayElements(raw, 0)
	if err != nil {
		return nil, fmt.Errorf(`memobrain: unable to read messages: "messages" is %s, not a list`, jsonKind(raw))
	}
	out := make([]Message, len(es))
	for i, e := range es {
		if out[i], err = readMessage(e.value); err != nil {
			return nil, fmt.Errorf("memobrain: messages[%d]: %w", i, err)
		}
	}
	return out, nil
}

func readMessage(raw json.RawMessage) (Message, error) {
	m, err := readObject(raw, "an object {role, content}")
	if err != nil {
		return Message{}, err
	}
	role, err := requiredString(m, "role")
	if err != nil {
		return Message{}, err
	}
	msg := Message{Role: role, raw: raw, rawRole: role}
	if f, ok := m["content"]; ok && !isNull(f.value) {
		if f.value[0] == '"' {
			_ = json.Unmarshal(f.value, &msg.Content)
		} else {
			msg.Content = string(f.value)
		}
	}
	msg.rawText = msg.Content
	return msg, nil
}

// Pairs groups the messages from index start on as MemoBrain's memorize
// does (_group_pairs): only "user" and "assistant" messages count, taken two
// by two; a last one without a partner is left for later. start follows
// Python slicing (negative counts from the end, out of range is empty).
//
// MemoBrain gives the k-th pair whose patch it applies the turn ids
// [start+2k, start+2k+1], whatever the pair's real positions (a system or
// tool message in between shifts them), and a pair whose patch fails does
// not advance the count, so the next pair gets its turn ids.
func Pairs(messages []Message, start int) [][2]Message {
	if start < 0 {
		start = max(0, len(messages)+start)
	}
	if start > len(messages) {
		return nil
	}
	var out [][2]Message
	var pending []Message
	for _, m := range messages[start:] {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		pending = append(pending, m)
		if len(pending) == 2 {
			out = append(out, [2]Message{pending[0], pending[1]})
			pending = nil
		}
	}
	return out
}

// TurnLink is one turn of the conversation and the nodes that stand for it.
type TurnLink struct {
	Turn  int    `json:"turn"`
	Role  string `json:"role"`
	Nodes []int  `json:"nodes"` // ids, ascending
}

// LinkTurns links every message of the conversation to the nodes whose
// related turn ids name it. beyond lists the turn ids nodes name that the
// conversation does not have (ascending).
func LinkTurns(g *Graph, messages []Message) (links []TurnLink, beyond []int) {
	links = make([]TurnLink, len(messages))
	for i, m := range messages {
		links[i] = TurnLink{Turn: i, Role: m.Role, Nodes: []int{}}
	}
	for _, n := range g.nodes {
		for _, t := range n.TurnIDs {
			if t >= 0 && t < len(links) {
				if l := &links[t]; !slices.Contains(l.Nodes, n.ID) {
					l.Nodes = append(l.Nodes, n.ID)
				}
			} else {
				beyond = append(beyond, t)
			}
		}
	}
	for i := range links {
		slices.Sort(links[i].Nodes)
	}
	slices.Sort(beyond)
	return links, slices.Compact(beyond)
}

// Organize is the conversation MemoBrain hands back to the agent after
// recall (_organize): the messages with flushed and folded nodes' turns
// replaced by their notes and folded spans by their summaries. Exactly as
// MemoBrain does it:
//
//   - the first three messages, and the last four when there are more than
//     three, are protected: never replaced or removed;
//   - a summary node (active or not) with turn ids puts its notes before
//     the message at its largest turn id (unprotected), and every
//     unprotected turn of every summary is removed;
//   - a node that is not active (flushed or folded) and not a summary
//     replaces its k-th turn with its k-th note (a plain-text thought has no
//     notes), unless an active node also names that turn;
//   - later nodes win where two write the same turn.
//
// Elements are raw JSON: the original messages and the notes put in their
// place. It returns an error where MemoBrain raises: a summary whose thought
// is not a list of notes (nor a string holding one). Where MemoBrain would
// index into a thought that decodes to something other than a list, no
// replacement is made.
func Organize(g *Graph, messages []Message) ([]json.RawMessage, error) {
	total := len(messages)
	protected := map[int]bool{}
	for i := 0; i < min(3, total); i++ {
		protected[i] = true
	}
	if total > 3 {
		for i := max(3, total-4); i < total; i++ {
			protected[i] = true
		}
	}
	type change struct {
		turn int
		msg  json.RawMessage
	}
	var changes []change
	summaries := map[int][]json.RawMessage{}
	activeTurns := map[int]bool{}
	removed := map[int]bool{}
	for _, n := range g.nodes {
		switch {
		case n.Kind == KindSummary:
			for _, t := range n.TurnIDs {
				if !protected[t] {
					removed[t] = true
				}
			}
			if len(n.TurnIDs) == 0 {
				continue
			}
			notes, ok := thoughtList(n.Thought, true)
			if !ok {
				return nil, fmt.Errorf("memobrain: unable to organize the conversation: summary node %d's thought is not a list of notes", n.ID)
			}
			summaries[slices.Max(n.TurnIDs)] = notes
		case n.Active != Live:
			notes, _ := thoughtList(n.Thought, false)
			for k, t := range n.TurnIDs {
				if k < len(notes) {
					changes = append(changes, change{t, notes[k]})
				}
			}
		case n.Kind != "":
			for _, t := range n.TurnIDs {
				activeTurns[t] = true
			}
		}
	}
	replace := map[int]json.RawMessage{}
	for _, c := range changes {
		if !activeTurns[c.turn] && !protected[c.turn] && !removed[c.turn] {
			replace[c.turn] = c.msg
		}
	}
	out := make([]json.RawMessage, 0, total)
	for i, m := range messages {
		if s, ok := summaries[i]; ok && !protected[i] {
			out = append(out, s...)
		}
		if removed[i] {
			continue
		}
		if r, ok := replace[i]; ok {
			out = append(out, r)
			continue
		}
		b, _ := m.MarshalJSON()
		out = append(out, b)
	}
	return out, nil
}

// thoughtList is the list _organize makes of a thought: a string is
// json.loads()ed, a list is itself. strict is for summaries, where a string
// that is not JSON, or anything that is not a list, is an error; otherwise
// those give no list.
func thoughtList(t Thought, strict bool) ([]json.RawMessage, bool) {
	raw := t.raw
	if t.Form == ThoughtText || t.Form == ThoughtEncodedNotes {
		raw = trimJSONSpace([]byte(t.Text))
		if !json.Valid(raw) {
			return nil, !strict
		}
	}
	es, err := arrayElements(raw, 0)
	if err != nil {
		return nil, !strict
	}
	out := make([]json.RawMessage, len(es))
	for i, e := range es {
		out[i] = e.value
	}
	return out, true
}

// UnmarshalJSON reads a message as ReadMessages reads each.
func (m *Message) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if !json.Valid(b) {
		return fmt.Errorf("memobrain: a message is not valid JSON")
	}
	v, err := readMessage(append(json.RawMessage(nil), b...))
	if err != nil {
		return fmt.Errorf("memobrain: message: %w", err)
	}
	*m = v
	return nil
}
