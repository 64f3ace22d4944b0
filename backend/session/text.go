package session

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

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

// JoinText returns the text of the text blocks of bs, joined by newlines
// (empty ones left out); "" when there is none.
func JoinText(bs []Block) string {
	var parts []string
	for _, b := range bs {
		if b.Type == BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
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

// appendScalars adds the scalar values of the JSON document raw, in document
// order: strings unquoted (as encoding/json does), numbers and booleans as
// written; keys and null are left out. Invalid JSON adds nothing (a reader's
// arguments are always valid: they were parsed to be stored).
func appendScalars(raw []byte, add func(string)) {
	if !json.Valid(raw) {
		return
	}
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\r', '\n', ',', ':', '[', ']', '{', '}':
			i++
		case '"':
			end, esc := stringEnd(raw, i)
			if !isKey(raw, end) {
				add(unquote(raw[i:end], esc))
			}
			i = end
		default: // a number, true, false or null
			start := i
			for i < len(raw) && !strings.ContainsRune(" \t\r\n,]}", rune(raw[i])) {
				i++
			}
			if c != 'n' {
				add(string(raw[start:i]))
			}
		}
	}
}

// stringEnd returns the index just past the closing quote of the valid JSON
// string starting at raw[i], and whether it holds escapes.
func stringEnd(raw []byte, i int) (end int, esc bool) {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			esc = true
			i++
		}
	}
	return i + 1, esc
}

// isKey reports whether the string ending before raw[end] is an object key:
// a ':' follows it.
func isKey(raw []byte, end int) bool {
	for ; end < len(raw); end++ {
		switch raw[end] {
		case ' ', '\t', '\r', '\n':
		default:
			return raw[end] == ':'
		}
	}
	return false
}

// unquote turns a valid JSON string, quotes included, into a Go string as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD).
func unquote(quoted []byte, esc bool) string {
	body := quoted[1 : len(quoted)-1]
	if !esc && utf8.Valid(body) {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}
