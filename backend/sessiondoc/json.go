package sessiondoc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"rhizome/backend/sessionlog"
	"strings"
)

// Reading a document's structure without decoding it twice: Check tells a
// whole document from one that breaks off or is not JSON (CheckOutline
// reads its top level on the way), and Members and Elements find the byte
// spans of an object's values and a list's elements in a checked
// document, so that a format decodes each message from its own bytes and
// keeps them as the entry's Raw.

// Check reports whether doc, the document named file, is one whole JSON
// value: nil; an error matching ErrIncomplete when it breaks off (empty,
// only whitespace, or a value left open at its last byte); else a
// *SyntaxError naming the byte and line where it stops being JSON.
func Check(doc []byte, file string) error {
	if valid(doc) {
		return nil
	}
	var v struct{}
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &SyntaxError{File: file, Line: 1, Msg: "not JSON"}
	}
	// The end of the input is a document that breaks off: a value left
	// open, or an escape, number or literal cut short (encoding/json says
	// so of the space it feeds itself after the last byte).
	if se.Error() == "unexpected end of JSON input" || se.Offset >= int64(len(doc)) && strings.HasPrefix(se.Error(), "invalid character ' '") {
		return fmt.Errorf("%s (%d bytes so far): %w", file, len(doc), ErrIncomplete)
	}
	off := se.Offset - 1 // the offset after the byte that failed
	if off < 0 {
		off = 0
	}
	return &SyntaxError{File: file, Offset: off, Line: LineOf(doc, off), Msg: "not JSON: " + se.Error()}
}

// maxDepth is the deepest nesting of lists and objects encoding/json
// accepts (its scanner's maxNestingDepth).
const maxDepth = 10000

// Outline is the top level of a document, read by CheckOutline in the
// pass that checks it: for a format that reads the document's members and
// the items of one of its lists without scanning them again (Members and
// Elements each go over the bytes they skip).
type Outline struct {
	// Object says the document is a JSON object: Members are then its
	// members in order (keys unescaped, as Members gives them).
	Object  bool
	Members []Member
	// Elements[j] are the spans of the elements of Members[j]'s value when
	// it is a list (nil for an empty list, or a value of another kind).
	Elements [][]Span
}

// CheckOutline is Check, and the outline of doc when it is whole JSON
// (nil with an error).
func CheckOutline(doc []byte, file string) (*Outline, error) {
	o := &Outline{}
	if outline(doc, o) {
		return o, nil
	}
	return nil, Check(doc, file)
}

// valid reports whether doc is one JSON value, with white space around it:
// json.Valid's answer (the same grammar, the same depth limit, any byte
// from 0x20 up inside a string), in one pass that skips a string's bytes
// with bytes.IndexByte where encoding/json steps through a state machine
// byte by byte (5 MB: about 10 ms, not 35). FuzzValid holds it to
// json.Valid.
func valid(doc []byte) bool { return outline(doc, nil) }

// outline is valid, and reads the outline of doc into o (o nil: none).
func outline(doc []byte, o *Outline) bool {
	var open []byte // the lists and objects open: '[' or '{'
	start2 := 0     // where the value at depth 2 starts
	// key notes the key doc[ks:ke] of a member of the top-level object,
	// whose value starts at vs.
	key := func(ks, ke, vs int) bool {
		k := string(doc[ks+1 : ke-1])
		if bytes.IndexByte(doc[ks:ke], '\\') >= 0 && json.Unmarshal(doc[ks:ke], &k) != nil {
			return false
		}
		o.Members = append(o.Members, Member{Key: k, Val: Span{Start: vs}})
		o.Elements = append(o.Elements, nil)
		return true
	}
	i := skipSpace(doc, 0)
	if o != nil && i < len(doc) && doc[i] == '{' {
		o.Object = true
	}
	for {
		// A value starts at i.
		if i >= len(doc) {
			return false
		}
		if o != nil && len(open) == 2 {
			start2 = i
		}
		switch c := doc[i]; c {
		case '{', '[':
			if len(open) == maxDepth {
				return false
			}
			open = append(open, c)
			i = skipSpace(doc, i+1)
			if i < len(doc) && doc[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				ks := i
				ke, vs := memberKey(doc, i)
				if vs < 0 || o != nil && len(open) == 1 && !key(ks, ke, vs) {
					return false
				}
				i = vs
			}
			continue
		case '"':
			if i = validString(doc, i); i < 0 {
				return false
			}
		case 't':
			if i = literal(doc, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(doc, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(doc, i, "null"); i < 0 {
				return false
			}
		default:
			if i = number(doc, i); i < 0 {
				return false
			}
		}
		// A value ended at i: what follows it closes lists and objects,
		// or goes on to the next value.
		for {
			if o != nil && o.Object {
				switch len(open) {
				case 1:
					o.Members[len(o.Members)-1].Val.End = i
				case 2:
					if open[1] == '[' {
						last := len(o.Elements) - 1
						o.Elements[last] = append(o.Elements[last], Span{Start: start2, End: i})
					}
				}
			}
			i = skipSpace(doc, i)
			if len(open) == 0 {
				return i == len(doc)
			}
			if i >= len(doc) {
				return false
			}
			top := open[len(open)-1]
			if doc[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if doc[i] != ',' {
				return false
			}
			i = skipSpace(doc, i+1)
			if top == '{' {
				ks := i
				ke, vs := memberKey(doc, i)
				if vs < 0 || o != nil && len(open) == 1 && !key(ks, ke, vs) {
					return false
				}
				i = vs
			}
			break
		}
	}
}

// skipSpace returns the index of the first byte at or after i of doc that
// is not JSON white space.
func skipSpace(doc []byte, i int) int {
	for i+8 <= len(doc) && binary.LittleEndian.Uint64(doc[i:]) == ones*' ' { // an indentation
		i += 8
	}
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\n' || doc[i] == '\t' || doc[i] == '\r') {
		i++
	}
	return i
}

// memberKey checks an object member's key and colon at doc[i] and returns
// the end of the key and where the value starts (after white space); vs -1
// when they are not there.
func memberKey(doc []byte, i int) (ke, vs int) {
	if i >= len(doc) || doc[i] != '"' {
		return 0, -1
	}
	if ke = validString(doc, i); ke < 0 {
		return 0, -1
	}
	if i = skipSpace(doc, ke); i >= len(doc) || doc[i] != ':' {
		return 0, -1
	}
	return ke, skipSpace(doc, i+1)
}

// hexDigit holds the bytes of a \uXXXX escape's digits.
var hexDigit = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true}

// validString returns the index after the valid JSON string starting at
// doc[i] ('"'), -1 when it is not one: a byte below 0x20 inside it, an
// escape other than \" \\ \/ \b \f \n \r \t \uXXXX, or no end. It steps 8
// bytes at a time over the bytes that are none of these.
func validString(doc []byte, i int) int {
	i++
	for {
		for i+8 <= len(doc) && !special(binary.LittleEndian.Uint64(doc[i:])) {
			i += 8
		}
		if i >= len(doc) {
			return -1
		}
		switch c := doc[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 >= len(doc) {
				return -1
			}
			switch doc[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+5 >= len(doc) || !hexDigit[doc[i+2]] || !hexDigit[doc[i+3]] || !hexDigit[doc[i+4]] || !hexDigit[doc[i+5]] {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			i++
		}
	}
}

// StringEnd returns the index after the JSON string that starts at raw[i]
// ('"'): after the first quote no backslash escapes; -1 when the string
// does not end. Escapes are not checked (Check does), only stepped over;
// it steps 8 bytes at a time over bytes that are neither a quote nor a
// backslash.
func StringEnd(raw []byte, i int) int {
	i++
	for {
		for i+8 <= len(raw) && !quoteOrEscape(binary.LittleEndian.Uint64(raw[i:])) {
			i += 8
		}
		if i >= len(raw) {
			return -1
		}
		switch raw[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
}

// ones has 1 in each byte, high 0x80: for tests on the 8 bytes of a word
// at once.
const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// special reports whether one of the 8 bytes of x is a quote, a
// backslash or below 0x20 (x-ones*n &^ x has a high bit set where some
// byte is below n, for n up to 0x80; a byte equal to c is a zero byte of
// x^ones*c).
func special(x uint64) bool {
	q := x ^ ones*'"'
	b := x ^ ones*'\\'
	return ((x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b)&high != 0
}

// quoteOrEscape reports whether one of the 8 bytes of x is a quote or a
// backslash (see special).
func quoteOrEscape(x uint64) bool {
	q := x ^ ones*'"'
	b := x ^ ones*'\\'
	return ((q-ones)&^q|(b-ones)&^b)&high != 0
}

// literal returns the index after the literal word at doc[i], -1 when
// another word is there.
func literal(doc []byte, i int, word string) int {
	if len(doc)-i < len(word) || string(doc[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number returns the index after the JSON number at doc[i] (-? int frac?
// exp?), -1 when none is there.
func number(doc []byte, i int) int {
	digits := func(i int) int {
		for i < len(doc) && doc[i] >= '0' && doc[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(doc) && doc[i] == '-' {
		i++
	}
	switch {
	case i >= len(doc):
		return -1
	case doc[i] == '0':
		i++
	case doc[i] >= '1' && doc[i] <= '9':
		i = digits(i + 1)
	default:
		return -1
	}
	if i < len(doc) && doc[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(doc) && (doc[i] == 'e' || doc[i] == 'E') {
		i++
		if i < len(doc) && (doc[i] == '+' || doc[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// LineOf is the 1-based line of byte off of doc.
func LineOf(doc []byte, off int64) int {
	if off > int64(len(doc)) {
		off = int64(len(doc))
	}
	return bytes.Count(doc[:off], []byte("\n")) + 1
}

// Lines counts lines forward through a document: At(off) is the line of
// byte off, for offsets that do not go back (the items of a document in
// order), in one pass over the document whatever the number of calls.
type Lines struct {
	doc  []byte
	off  int
	line int
}

// NewLines counts the lines of doc.
func NewLines(doc []byte) *Lines { return &Lines{doc: doc, line: 1} }

// At returns the 1-based line of byte off (off not before the last one
// asked; an earlier one is counted from the start).
func (l *Lines) At(off int) int {
	if off < l.off {
		l.off, l.line = 0, 1
	}
	off = min(off, len(l.doc))
	l.line += bytes.Count(l.doc[l.off:off], []byte("\n"))
	l.off = off
	return l.line
}

// Span is where a value lies in a document: doc[Start:End].
type Span = sessionlog.Span

// Member is one key of a JSON object and the span of its value.
type Member = sessionlog.Member

// Members lists the keys of the JSON object at doc[v.Start:v.End] (of a
// document Check accepted) with their values' spans in doc, in order; ok is
// false when the value is not an object.
func Members(doc []byte, v Span) (out []Member, ok bool) {
	out, _, ok = sessionlog.Object(doc[:v.End], v.Start)
	return out, ok
}

// Elements lists the spans in doc of the elements of the JSON list at
// doc[v.Start:v.End] (of a document Check accepted); ok is false when the
// value is not a list.
func Elements(doc []byte, v Span) (out []Span, ok bool) {
	return sessionlog.Elements(doc[:v.End], v.Start)
}

// Find returns the span of key's value among ms.
func Find(ms []Member, key string) (Span, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Val, true
		}
	}
	return Span{}, false
}

// Kind names the JSON kind of a value starting with c, for messages ("JSON
// string", "JSON list", ...).
func Kind(c byte) string {
	switch c {
	case '"':
		return "JSON string"
	case '{':
		return "JSON object"
	case '[':
		return "JSON list"
	case 't', 'f':
		return "JSON boolean"
	case 'n':
		return "JSON null"
	}
	return "JSON number"
}
