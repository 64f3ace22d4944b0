package pisession

import "strings"

// EntryText returns the searchable plain text of an entry, its parts joined
// by newlines: message text blocks, thinking (unless redacted), tool call
// names and argument values (strings unescaped, in document order), tool
// result content, bash command and output, an assistant's error message,
// compaction and branch summaries (entries and summary messages),
// custom_message and custom message content, a label's text and a session
// name. Image blocks contribute nothing: never their base64 data. Other entry
// types (model and thinking level changes, custom data, unknown types) give "".
// A text of one part is returned without copying.
func EntryText(e *Entry) string {
	var buf [8]string
	t := textParts{parts: buf[:0]}
	switch e.Type {
	case TypeMessage:
		m := e.Message
		if m == nil {
			break
		}
		t.blocks(m.Content)
		switch m.Role {
		case RoleBashExecution:
			t.add(m.Command)
			t.add(m.Output)
		case RoleBranchSummary, RoleCompactionSummary:
			t.add(m.Summary)
		case RoleAssistant:
			t.add(m.ErrorMessage)
		}
	case TypeCompaction, TypeBranchSummary:
		t.add(e.Summary)
	case TypeCustomMessage:
		t.blocks(e.Content)
	case TypeLabel:
		t.add(e.Label)
	case TypeSessionInfo:
		t.add(e.Name)
	}
	switch len(t.parts) {
	case 0:
		return ""
	case 1:
		return t.parts[0]
	}
	return strings.Join(t.parts, "\n")
}

// textParts collects the non-empty parts of an entry's text.
type textParts struct{ parts []string }

func (t *textParts) add(s string) {
	if s != "" {
		t.parts = append(t.parts, s)
	}
}

func (t *textParts) blocks(blocks []Block) {
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case BlockText:
			t.add(b.Text)
		case BlockThinking:
			if !b.Redacted {
				t.add(b.Thinking)
			}
		case BlockToolCall:
			t.add(b.Name)
			// Argument values in document order, strings unescaped; keys
			// and null left out; invalid JSON stops quietly (Raw has it).
			appendScalars(b.Arguments, t.add)
		}
	}
}
