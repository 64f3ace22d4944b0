package sessionlog

import (
	"bytes"
	"encoding/json"
)

// Scanning JSON without decoding it: where a value ends, for the readers
// that cut a record or a document into the spans of its members and
// elements (the Gemini CLI reader's records, sessiondoc's documents) and
// decode only the ones they need.

// Member is one key of a JSON object and the span of its value.
type Member struct {
	Key string
	Val Span
}

// Object lists the keys of the JSON object that starts at b[i] (after white
// space) with their values' spans in b, in order, and the end of the object
// (the index after its '}'); ok is false when no object starts there or it
// does not scan to its end within b. Keys are unescaped.
func Object(b []byte, i int) (out []Member, end int, ok bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return nil, 0, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, i + 1, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, 0, false
		}
		ke := SkipString(b, i)
		if ke < 0 {
			return nil, 0, false
		}
		key := string(b[i+1 : ke-1])
		if bytes.IndexByte(b[i:ke], '\\') >= 0 && json.Unmarshal(b[i:ke], &key) != nil {
			return nil, 0, false
		}
		i = SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil, 0, false
		}
		vs := SkipSpace(b, i+1)
		ve := SkipValue(b, vs)
		if ve < 0 {
			return nil, 0, false
		}
		out = append(out, Member{Key: key, Val: Span{vs, ve}})
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return out, i + 1, true
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// Elements lists the spans in b of the elements of the JSON list that
// starts at b[i] (after white space); ok is false when no list starts there
// or it does not scan to its end within b.
func Elements(b []byte, i int) (out []Span, ok bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil, true
	}
	for i < len(b) {
		e := SkipValue(b, i)
		if e < 0 {
			return nil, false
		}
		out = append(out, Span{i, e})
		i = SkipSpace(b, e)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// SkipSpace returns the index of the first byte at or after i of b that is
// not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// SkipString returns the end of the JSON string starting at b[i] ('"'), -1
// when it does not end.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// SkipValue returns the end of the JSON value starting at b[i], -1 when it
// does not end.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := SkipString(b, i)
				if e < 0 {
					return -1
				}
				i = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	s := i
scan:
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			break scan
		}
	}
	if i == s {
		return -1
	}
	return i
}
