package memobrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"rhizome/backend/sessionlog"
)

// field is one member of a JSON object as written: its key, its raw value
// and the value's byte offset in the whole document (for error lines).
type field struct {
	key   string
	value json.RawMessage
	off   int
}

// element is one element of a JSON array as written, with its byte offset.
type element struct {
	value json.RawMessage
	off   int
}

// jsonScanner walks JSON text that json.Valid has accepted, splitting objects
// and arrays into their members without decoding them, so that every member
// can be kept byte for byte. It still checks what it reads and returns an
// error rather than panic on text it was not meant for.
type jsonScanner struct {
	b    []byte
	i    int
	base int // offset of b[0] in the document
}

var errScan = errors.New("malformed JSON")

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value skips one JSON value starting at s.i (after white space) and returns
// its bounds.
func (s *jsonScanner) value() (start, end int, err error) {
	s.ws()
	if s.i >= len(s.b) {
		return 0, 0, errScan
	}
	start = s.i
	switch c := s.b[s.i]; {
	case c == '"':
		if err := s.str(); err != nil {
			return 0, 0, err
		}
	case c == '{' || c == '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if err := s.str(); err != nil {
					return 0, 0, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return start, s.i, nil
			}
		}
		return 0, 0, errScan
	default: // number, true, false, null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return start, s.i, nil
			}
			s.i++
		}
	}
	return start, s.i, nil
}

// str skips a JSON string starting at its opening quote.
func (s *jsonScanner) str() error {
	s.i++ // opening quote
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			return nil
		}
		s.i++
	}
	return errScan
}

// objectFields splits the JSON object raw (valid JSON, at document offset
// base) into its members in written order. It returns an error when raw is
// not an object.
func objectFields(raw []byte, base int) ([]field, error) {
	s := &jsonScanner{b: raw, base: base}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, errNotObject
	}
	s.i++
	var out []field
	for {
		s.ws()
		if s.i >= len(s.b) {
			return nil, errScan
		}
		if s.b[s.i] == '}' {
			return out, nil
		}
		if s.b[s.i] == ',' {
			s.i++
			s.ws()
		}
		ks := s.i
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return nil, errScan
		}
		if err := s.str(); err != nil {
			return nil, err
		}
		key, err := decodeKey(s.b[ks:s.i])
		if err != nil {
			return nil, err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, errScan
		}
		s.i++
		vs, ve, err := s.value()
		if err != nil {
			return nil, err
		}
		out = append(out, field{key: key, value: json.RawMessage(s.b[vs:ve]), off: base + vs})
	}
}

// arrayElements splits the JSON array raw (valid JSON, at document offset
// base) into its elements. It returns an error when raw is not an array.
func arrayElements(raw []byte, base int) ([]element, error) {
	s := &jsonScanner{b: raw, base: base}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return nil, errNotArray
	}
	s.i++
	var out []element
	for {
		s.ws()
		if s.i >= len(s.b) {
			return nil, errScan
		}
		if s.b[s.i] == ']' {
			return out, nil
		}
		if s.b[s.i] == ',' {
			s.i++
		}
		vs, ve, err := s.value()
		if err != nil {
			return nil, err
		}
		out = append(out, element{value: json.RawMessage(s.b[vs:ve]), off: base + vs})
	}
}

var (
	errNotObject = errors.New("not a JSON object")
	errNotArray  = errors.New("not a JSON list")
)

func decodeKey(quoted []byte) (string, error) {
	k, ok := decodeString(quoted)
	if !ok {
		return "", errScan
	}
	return k, nil
}

// decodeString decodes the JSON string raw; ok is false when raw is not a
// string.
func decodeString(raw []byte) (string, bool) {
	raw = trimJSONSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// jsonKind names the kind of the JSON value raw for error messages ("an
// object", "an array", ...; "nothing" when raw is empty).
func jsonKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	return sessionlog.Kind(raw[0])
}

// isNull reports whether raw is the JSON literal null.
func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// lineOf is the 1-based line of byte offset off in doc.
func lineOf(doc []byte, off int) int {
	if off > len(doc) {
		off = len(doc)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(doc[:off], []byte("\n")) + 1
}

// syntaxError describes why doc is not JSON, with its line and column.
func syntaxError(doc []byte) error {
	var v any
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > 0 {
			off-- // Offset is just past the byte that failed
		}
		line := lineOf(doc, off)
		col := off - bytes.LastIndexByte(doc[:min(off, len(doc))], '\n')
		return fmt.Errorf("line %d, column %d: %s", line, col, se.Error())
	}
	if err != nil {
		return err
	}
	return errors.New("not valid JSON")
}

// fieldsByKey indexes fields by key; it returns the first key that appears
// twice, if any (MemoBrain's files never repeat a key, and a repeated one
// would make "equal as JSON" meaningless).
func fieldsByKey(fs []field) (map[string]field, string) {
	m := make(map[string]field, len(fs))
	for _, f := range fs {
		if _, dup := m[f.key]; dup {
			return nil, f.key
		}
		m[f.key] = f
	}
	return m, ""
}

// appendJSONString appends s as a JSON string the way Python's json module
// writes it: `"` and `\` escaped, \n \r \t \b \f as short escapes, other
// control characters as \u00XX; with ascii, every character outside
// printable ASCII as \uXXXX (surrogate pairs above U+FFFF), as
// json.dumps(ensure_ascii=True) does; without, as ensure_ascii=False does.
// Invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string, ascii bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"':
			dst = append(dst, '\\', '"')
		case r == '\\':
			dst = append(dst, '\\', '\\')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r < 0x20 || (ascii && r > 0x7e):
			if r > 0xffff {
				r -= 0x10000
				hi, lo := 0xd800+(r>>10), 0xdc00+(r&0x3ff)
				dst = append(dst, '\\', 'u', hex[hi>>12], hex[hi>>8&0xf], hex[hi>>4&0xf], hex[hi&0xf])
				dst = append(dst, '\\', 'u', hex[lo>>12], hex[lo>>8&0xf], hex[lo>>4&0xf], hex[lo&0xf])
			} else {
				dst = append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			}
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
