package memobrain

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"rhizome/backend/session"
)

// A coding-agent session as MemoBrain's conversation: what Rhizome runs
// MemoBrain's loop over to make the reasoning graph of a session. MemoBrain
// keeps its agent's conversation as a list of messages (self.messages):
// the system prompt, the question, then the agent's steps in pairs, its
// action (assistant) and what came back (user: the tool responses). A
// session's entries map onto that shape here.

// Limits on what a session's message becomes, in bytes: the task, and each
// message of the conversation (a step's text, its tool calls and their
// results). Longer text keeps its head and tail, cut at rune boundaries,
// with " … " between. The entries keep everything; the model needs the gist.
const (
	MaxTaskBytes    = 4 << 10
	MaxMessageBytes = 6 << 10
	maxToolBytes    = 2 << 10 // one tool call's arguments or one tool result
)

// Conversation is a session read as MemoBrain's conversation.
type Conversation struct {
	// Task is the text of the first request (message 1, requests made
	// before the agent first answered included): what init makes the task
	// of.
	Task string
	// Messages are the conversation: message 0 (system) says which session
	// it is, message 1 (user) is the first request, and from message 2 on
	// the agent's messages (assistant) and what answered them (user: tool
	// results, and the person's later requests) alternate, so that
	// Pairs(Messages, 2)[k] is messages 2+2k and 3+2k: a turn's related turn
	// ids are those messages' real indexes.
	Messages []Message
	// Entries[i] lists the ids of the session entries message i was made
	// from, in file order (none for message 0: it stands for the session).
	Entries [][]string
}

// ConversationBuilder reads a session's entries, in file order, into a
// Conversation (see SessionConversation).
type ConversationBuilder struct {
	c       Conversation
	started bool // the first request was seen
}

// NewConversationBuilder begins the conversation of the session h heads:
// message 0 names it.
func NewConversationBuilder(h session.Header) *ConversationBuilder {
	agent := "pi coding-agent"
	switch h.Format {
	case "claude-code":
		agent = "Claude Code"
	case "codex":
		agent = "Codex"
	}
	sys := fmt.Sprintf("The conversation of a %s session (%s), working in %s.", agent, h.ID, h.Cwd)
	return &ConversationBuilder{c: Conversation{Messages: []Message{{Role: "system", Content: sys}}, Entries: [][]string{{}}}}
}

// Add reads the next entry. Messages become the conversation: the person's
// requests (user), the agent's replies with their tool calls (assistant:
// text, thinking, and each call as MemoBrain's agent writes one,
// <tool_call>{"name", "arguments"}</tool_call>), tool and shell results
// (user: <tool_response name="…">…</tool_response>). Consecutive messages
// of one side join into one message (so a request the agent never answered
// joins the next). Everything before the first request,
// other entry types (model changes, compactions, labels, …), summaries and
// custom messages, empty messages and entries a reader marks as repeated,
// replayed, rolled back or a sub-agent's are left out.
func (b *ConversationBuilder) Add(e *session.Entry) {
	if e.Type != session.TypeMessage || e.Message == nil || e.DuplicateOf != "" || e.Replayed || e.RolledBack || e.Sidechain {
		return
	}
	m := e.Message
	var role, text string
	switch m.Role {
	case session.RoleUser:
		role, text = "user", blocksText(m.Content, false)
	case session.RoleAssistant:
		// A reply that failed before it said anything (an error, an
		// abort) is no step: it is left out.
		role, text = "assistant", blocksText(m.Content, true)
	case session.RoleToolResult:
		out := clipBytes(blocksText(m.Content, false), maxToolBytes)
		if m.IsError {
			out = "error: " + out
		}
		role, text = "user", `<tool_response name="`+m.ToolName+`">`+"\n"+out+"\n</tool_response>"
	case session.RoleBashExecution:
		role, text = "user", `<tool_response name="bash">`+"\n$ "+m.Command+"\n"+clipBytes(m.Output, maxToolBytes)+"\n</tool_response>"
	default:
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	if !b.started {
		if role != "user" || m.Role != session.RoleUser {
			return
		}
		b.started = true
		b.push("user", text, e.ID)
		return
	}
	last := len(b.c.Messages) - 1
	// The agent speaks after the first request: a second request before
	// any reply joins it.
	if b.c.Messages[last].Role == role {
		b.c.Messages[last].Content = clipBytes(b.c.Messages[last].Content+"\n\n"+text, MaxMessageBytes)
		b.c.Entries[last] = append(b.c.Entries[last], e.ID)
		return
	}
	b.push(role, text, e.ID)
}

func (b *ConversationBuilder) push(role, text, id string) {
	b.c.Messages = append(b.c.Messages, Message{Role: role, Content: clipBytes(text, MaxMessageBytes)})
	b.c.Entries = append(b.c.Entries, []string{id})
}

// ErrNoRequest is returned by Conversation when the session has no request
// (a user message with text) to take the task from.
var ErrNoRequest = errors.New("memobrain: the session has no request (a user message with text) to take the task from")

// Conversation returns what was read. It returns ErrNoRequest when there was
// no first request.
func (b *ConversationBuilder) Conversation() (Conversation, error) {
	if !b.started {
		return Conversation{}, ErrNoRequest
	}
	c := b.c
	c.Task = clipBytes(strings.TrimSpace(c.Messages[1].Content), MaxTaskBytes)
	return c, nil
}

// SessionConversation reads a whole session's entries (see
// ConversationBuilder).
func SessionConversation(h session.Header, entries []*session.Entry) (Conversation, error) {
	b := NewConversationBuilder(h)
	for _, e := range entries {
		b.Add(e)
	}
	return b.Conversation()
}

// blocksText is a message's content as text: text blocks, images as
// "[image]", and for the agent (calls) thinking as <think>…</think> and
// tool calls as <tool_call>{"name", "arguments"}</tool_call>.
func blocksText(blocks []session.Block, calls bool) string {
	var parts []string
	for _, bl := range blocks {
		switch bl.Type {
		case session.BlockText:
			if s := strings.TrimSpace(bl.Text); s != "" {
				parts = append(parts, s)
			}
		case session.BlockImage:
			parts = append(parts, "[image]")
		case session.BlockThinking:
			if calls && !bl.Redacted && strings.TrimSpace(bl.Thinking) != "" {
				parts = append(parts, "<think>"+clipBytes(strings.TrimSpace(bl.Thinking), maxToolBytes)+"</think>")
			}
		case session.BlockToolCall:
			if calls {
				args := json.RawMessage(bl.Arguments)
				if !json.Valid(args) {
					args = json.RawMessage("null")
				}
				call, _ := json.Marshal(struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}{bl.Name, args})
				parts = append(parts, "<tool_call>"+clipBytes(string(call), maxToolBytes)+"</tool_call>")
			}
		}
	}
	return strings.Join(parts, "\n")
}

// clipBytes cuts s to at most max bytes, keeping its head (two thirds) and
// tail, cut at rune boundaries, with " … " between.
func clipBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = " … "
	head := (max - len(mark)) * 2 / 3
	tail := max - len(mark) - head
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:head] + mark + s[start:]
}
