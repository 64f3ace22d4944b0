package pisession

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"rhizome/backend/session"

	"rhizome/backend/sessionlog"
)

// This file is a validating JSON parser specialised for session objects. It
// decodes an entry in one pass over its bytes, straight into Entry, Message,
// Block and Usage: encoding/json needs two (checkValid, then decode) plus a
// third for every json.RawMessage or Unmarshaler field, which made the reader
// slower than a bare json.Unmarshal into a map. It accepts exactly the JSON
// grammar (RFC 8259), matches keys exactly (as JavaScript does; encoding/json
// folds case), lets the last of duplicate keys win, replaces invalid UTF-8 and
// lone surrogates in strings by U+FFFD like encoding/json, and bounds nesting
// at maxDepth. FuzzParserMatchesEncodingJSON checks it against encoding/json.

// maxDepth bounds the nesting of JSON values, as encoding/json does.
const maxDepth = 10000

// syntaxError is invalid JSON at byte pos of the parsed slice.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// parser reads JSON values from data starting at pos. Type mismatches on
// known fields do not stop it: the field is left empty and a warning is
// recorded.
type parser struct {
	data     []byte
	pos      int
	depth    int
	warnings []string
}

func (p *parser) reset(data []byte) {
	p.data, p.pos, p.depth, p.warnings = data, 0, 0, p.warnings[:0]
}

// strSafe marks the bytes that need no attention inside a string.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// quoteChar formats a byte for an error message, like encoding/json.
func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		return fmt.Sprintf(`'\x%02x'`, c)
	}
	return "'" + string(rune(c)) + "'"
}

// unexpected is a syntax error at p.pos: the end of the input, or an invalid
// character while "looking for ..." (context).
func (p *parser) unexpected(context string) error {
	if p.pos >= len(p.data) {
		return &syntaxError{p.pos, "unexpected end of line"}
	}
	return &syntaxError{p.pos, "invalid character " + quoteChar(p.data[p.pos]) + " " + context}
}

func (p *parser) mismatch(field string, start int, want string) {
	p.warnings = append(p.warnings, fmt.Sprintf("field %q: %s where %s is expected; field left empty", field, sessionlog.Kind(p.data[start]), want))
}

// scanString reads the string at p.pos (a '"') and returns its raw content,
// quotes excluded, and whether it holds escapes.
func (p *parser) scanString() (raw []byte, esc bool, err error) {
	d := p.data
	start := p.pos + 1
	i := start
	for {
		for i < len(d) && strSafe[d[i]] {
			i++
		}
		if i >= len(d) {
			p.pos = i
			return nil, false, p.unexpected("")
		}
		switch c := d[i]; {
		case c == '"':
			p.pos = i + 1
			return d[start:i], esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				p.pos = i + 1
				return nil, false, p.unexpected("")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(d) || !isHex(d[k]) {
						p.pos = k
						return nil, false, p.unexpected("in \\u hexadecimal character escape")
					}
				}
				i += 6
			default:
				p.pos = i + 1
				return nil, false, p.unexpected("in string escape code")
			}
		default: // control character
			p.pos = i
			return nil, false, p.unexpected("in string literal")
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unquote turns raw string content (validated by scanString) into a Go
// string, as encoding/json does.
func unquote(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	b := make([]byte, 0, len(raw)+8)
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			e := raw[i+1]
			i += 2
			switch e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(raw[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := unicode.ReplacementChar
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						r2 = hex4(raw[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
						i += 6
						r = dec
					} else {
						r = unicode.ReplacementChar
					}
				}
				b = utf8.AppendRune(b, r)
			default: // " \ /
				b = append(b, e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, raw[i:i+size]...)
			}
			i += size
		}
	}
	return string(b)
}

// scanNumber reads the number at p.pos and returns its text and whether it
// is an integer (no fraction, no exponent).
func (p *parser) scanNumber() (num []byte, isInt bool, err error) {
	d, start, i := p.data, p.pos, p.pos
	digits := func() bool {
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		digits()
	default:
		p.pos = i
		return nil, false, p.unexpected("in numeric literal")
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		i++
		isInt = false
		if !digits() {
			p.pos = i
			return nil, false, p.unexpected("after decimal point in numeric literal")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		isInt = false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			p.pos = i
			return nil, false, p.unexpected("in exponent of numeric literal")
		}
	}
	p.pos = i
	return d[start:i], isInt, nil
}

func (p *parser) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[k] {
			return p.unexpected("in literal " + word + " (expecting " + quoteChar(word[k]) + ")")
		}
		p.pos++
	}
	return nil
}

// skipValue validates and passes the value at p.pos.
func (p *parser) skipValue() error {
	if p.pos >= len(p.data) {
		return p.unexpected("")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(func([]byte) error { return p.skipValue() })
	case c == '[':
		return p.array(p.skipValue)
	case c == '"':
		_, _, err := p.scanString()
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, _, err := p.scanNumber()
		return err
	}
	return p.unexpected("looking for beginning of value")
}

// object reads the object at p.pos (a '{'), calling field for each key with
// p.pos on the first byte of the value, which field must consume.
func (p *parser) object(field func(key []byte) error) error {
	if p.depth++; p.depth > maxDepth {
		return &syntaxError{p.pos, "exceeded max depth"}
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.unexpected("looking for beginning of object key string")
		}
		raw, esc, err := p.scanString()
		if err != nil {
			return err
		}
		key := raw
		if esc {
			key = []byte(unquote(raw, true))
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.unexpected("after object key")
		}
		p.pos++
		p.ws()
		if err := field(key); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.data) {
			return p.unexpected("")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case '}':
			p.pos++
			p.depth--
			return nil
		default:
			return p.unexpected("after object key:value pair")
		}
	}
}

// array reads the array at p.pos (a '['), calling elem with p.pos on the first
// byte of each element, which elem must consume.
func (p *parser) array(elem func() error) error {
	if p.depth++; p.depth > maxDepth {
		return &syntaxError{p.pos, "exceeded max depth"}
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.data) {
			return p.unexpected("")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case ']':
			p.pos++
			p.depth--
			return nil
		default:
			return p.unexpected("after array element")
		}
	}
}

// peek returns the byte at p.pos, or 0 at the end (which every caller treats
// as "some other value", letting skipValue report the end).
func (p *parser) peek() byte {
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

// str decodes a string field; null leaves it empty.
func (p *parser) str(dst *string, field string) error {
	switch p.peek() {
	case '"':
		raw, esc, err := p.scanString()
		if err != nil {
			return err
		}
		*dst = unquote(raw, esc)
		return nil
	case 'n':
		*dst = ""
		return p.literal("null")
	}
	*dst = ""
	return p.wrongType(field, "string")
}

// wrongType skips a value of the wrong kind and records a warning.
func (p *parser) wrongType(field, want string) error {
	start := p.pos
	if err := p.skipValue(); err != nil {
		return err
	}
	p.mismatch(field, start, want)
	return nil
}

// number decodes a number field as float64, or as int64 when it is integral
// (an integer, or a fraction/exponent form with an integral value).
func (p *parser) number(field, want string) (f float64, i int64, ok bool, err error) {
	switch c := p.peek(); {
	case c == 'n':
		return 0, 0, false, p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
	default:
		return 0, 0, false, p.wrongType(field, want)
	}
	start := p.pos
	num, isInt, err := p.scanNumber()
	if err != nil {
		return 0, 0, false, err
	}
	if want == "int64" && isInt {
		if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			return float64(i), i, true, nil
		}
	}
	f, err = strconv.ParseFloat(string(num), 64)
	if err != nil { // out of range
		p.warnings = append(p.warnings, fmt.Sprintf("field %q: number %s out of range; field left empty", field, num))
		return 0, 0, false, nil
	}
	if want == "int64" {
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			p.warnings = append(p.warnings, fmt.Sprintf("field %q: number %s where int64 is expected; field left empty", field, p.data[start:p.pos]))
			return 0, 0, false, nil
		}
		return f, int64(f), true, nil
	}
	return f, 0, true, nil
}

func (p *parser) int64(dst *int64, field string) error {
	_, i, _, err := p.number(field, "int64")
	*dst = i
	return err
}

func (p *parser) float64(dst *float64, field string) error {
	f, _, _, err := p.number(field, "float64")
	*dst = f
	return err
}

func (p *parser) boolean(dst *bool, field string) error {
	switch p.peek() {
	case 't':
		*dst = true
		return p.literal("true")
	case 'f':
		*dst = false
		return p.literal("false")
	case 'n':
		*dst = false
		return p.literal("null")
	}
	*dst = false
	return p.wrongType(field, "bool")
}

// raw copies any value; null gives nil.
func (p *parser) raw(dst *json.RawMessage) error {
	start := p.pos
	if err := p.skipValue(); err != nil {
		return err
	}
	if p.data[start] == 'n' {
		*dst = nil
		return nil
	}
	*dst = append(json.RawMessage(nil), p.data[start:p.pos]...)
	return nil
}

// content decodes message or custom_message content: a plain string (one
// text block, isString set) or an array of blocks.
func (p *parser) content(blocks *[]session.Block, isString *bool, field string) error {
	switch p.peek() {
	case '"':
		var s string
		if err := p.str(&s, field); err != nil {
			return err
		}
		*blocks = []session.Block{{Type: session.BlockText, Text: s}}
		*isString = true
		return nil
	case '[':
		out := []session.Block{}
		err := p.array(func() error {
			if p.peek() != '{' {
				return p.wrongType(field+"[]", "a content block object")
			}
			var b session.Block
			if err := p.block(&b, field); err != nil {
				return err
			}
			out = append(out, b)
			return nil
		})
		*blocks, *isString = out, false
		return err
	case 'n':
		*blocks, *isString = nil, false
		return p.literal("null")
	}
	*blocks, *isString = nil, false
	return p.wrongType(field, "string or array of content blocks")
}

func (p *parser) block(b *session.Block, field string) error {
	return p.object(func(key []byte) error {
		switch string(key) {
		case "type":
			return p.str(&b.Type, field+".type")
		case "text":
			return p.str(&b.Text, field+".text")
		case "thinking":
			return p.str(&b.Thinking, field+".thinking")
		case "redacted":
			return p.boolean(&b.Redacted, field+".redacted")
		case "id":
			return p.str(&b.ID, field+".id")
		case "name":
			return p.str(&b.Name, field+".name")
		case "arguments":
			return p.raw(&b.Arguments)
		case "data":
			return p.str(&b.Data, field+".data")
		case "mimeType":
			return p.str(&b.MimeType, field+".mimeType")
		}
		return p.skipValue()
	})
}

func (p *parser) usage(dst **session.Usage) error {
	switch p.peek() {
	case 'n':
		*dst = nil
		return p.literal("null")
	case '{':
	default:
		*dst = nil
		return p.wrongType("message.usage", "object")
	}
	u := &session.Usage{}
	*dst = u
	return p.object(func(key []byte) error {
		switch string(key) {
		case "input":
			return p.int64(&u.Input, "message.usage.input")
		case "output":
			return p.int64(&u.Output, "message.usage.output")
		case "cacheRead":
			return p.int64(&u.CacheRead, "message.usage.cacheRead")
		case "cacheWrite":
			return p.int64(&u.CacheWrite, "message.usage.cacheWrite")
		case "totalTokens":
			return p.int64(&u.TotalTokens, "message.usage.totalTokens")
		case "cost":
			u.Cost = session.Cost{}
			if p.peek() != '{' {
				if p.peek() == 'n' {
					return p.literal("null")
				}
				return p.wrongType("message.usage.cost", "object")
			}
			c := &u.Cost
			return p.object(func(key []byte) error {
				switch string(key) {
				case "input":
					return p.float64(&c.Input, "message.usage.cost.input")
				case "output":
					return p.float64(&c.Output, "message.usage.cost.output")
				case "cacheRead":
					return p.float64(&c.CacheRead, "message.usage.cost.cacheRead")
				case "cacheWrite":
					return p.float64(&c.CacheWrite, "message.usage.cost.cacheWrite")
				case "total":
					return p.float64(&c.Total, "message.usage.cost.total")
				}
				return p.skipValue()
			})
		}
		return p.skipValue()
	})
}

func (p *parser) message(dst **session.Message) error {
	switch p.peek() {
	case 'n':
		*dst = nil
		return p.literal("null")
	case '{':
	default:
		*dst = nil
		return p.wrongType("message", "object")
	}
	m := &session.Message{}
	*dst = m
	return p.object(func(key []byte) error {
		switch string(key) {
		case "role":
			return p.str(&m.Role, "message.role")
		case "content":
			return p.content(&m.Content, &m.ContentIsString, "message.content")
		case "timestamp":
			return p.int64(&m.Timestamp, "message.timestamp")
		case "api":
			return p.str(&m.API, "message.api")
		case "provider":
			return p.str(&m.Provider, "message.provider")
		case "model":
			return p.str(&m.Model, "message.model")
		case "usage":
			return p.usage(&m.Usage)
		case "stopReason":
			return p.str(&m.StopReason, "message.stopReason")
		case "errorMessage":
			return p.str(&m.ErrorMessage, "message.errorMessage")
		case "toolCallId":
			return p.str(&m.ToolCallID, "message.toolCallId")
		case "toolName":
			return p.str(&m.ToolName, "message.toolName")
		case "isError":
			return p.boolean(&m.IsError, "message.isError")
		case "details":
			return p.raw(&m.Details)
		case "command":
			return p.str(&m.Command, "message.command")
		case "output":
			return p.str(&m.Output, "message.output")
		case "exitCode":
			m.ExitCode = nil
			if p.peek() == 'n' {
				return p.literal("null")
			}
			_, n, ok, err := p.number("message.exitCode", "int64")
			if ok && n >= math.MinInt32 && n <= math.MaxInt32 {
				c := int(n)
				m.ExitCode = &c
			} else if ok {
				p.warnings = append(p.warnings, fmt.Sprintf("field \"message.exitCode\": %d out of range; field left empty", n))
			}
			return err
		case "cancelled":
			return p.boolean(&m.Cancelled, "message.cancelled")
		case "truncated":
			return p.boolean(&m.Truncated, "message.truncated")
		case "fullOutputPath":
			return p.str(&m.FullOutputPath, "message.fullOutputPath")
		case "excludeFromContext":
			return p.boolean(&m.ExcludeFromContext, "message.excludeFromContext")
		case "customType":
			return p.str(&m.CustomType, "message.customType")
		case "display":
			return p.boolean(&m.Display, "message.display")
		case "summary":
			return p.str(&m.Summary, "message.summary")
		case "fromId":
			return p.str(&m.FromID, "message.fromId")
		case "tokensBefore":
			return p.int64(&m.TokensBefore, "message.tokensBefore")
		}
		return p.skipValue()
	})
}

// entryExtras are the entry fields that do not go straight into Entry.
type entryExtras struct {
	timestamp      string
	firstKeptIndex float64 // version 1 compaction
	hasFirstKept   bool
}

// entry decodes the object at p.pos into e (position fields excepted).
func (p *parser) entry(e *session.Entry, x *entryExtras) error {
	return p.object(func(key []byte) error {
		switch string(key) {
		case "type":
			return p.str(&e.Type, "type")
		case "id":
			return p.str(&e.ID, "id")
		case "parentId":
			return p.str(&e.ParentID, "parentId")
		case "timestamp":
			return p.str(&x.timestamp, "timestamp")
		case "message":
			return p.message(&e.Message)
		case "summary":
			return p.str(&e.Summary, "summary")
		case "firstKeptEntryId":
			return p.str(&e.FirstKeptEntryID, "firstKeptEntryId")
		case "firstKeptEntryIndex":
			f, _, ok, err := p.number("firstKeptEntryIndex", "float64")
			x.firstKeptIndex, x.hasFirstKept = f, ok
			return err
		case "tokensBefore":
			return p.int64(&e.TokensBefore, "tokensBefore")
		case "fromId":
			return p.str(&e.FromID, "fromId")
		case "fromHook":
			return p.boolean(&e.FromHook, "fromHook")
		case "details":
			return p.raw(&e.Details)
		case "customType":
			return p.str(&e.CustomType, "customType")
		case "data":
			return p.raw(&e.Data)
		case "content":
			return p.content(&e.Content, &e.ContentIsString, "content")
		case "display":
			return p.boolean(&e.Display, "display")
		case "targetId":
			return p.str(&e.TargetID, "targetId")
		case "label":
			return p.str(&e.Label, "label")
		case "name":
			return p.str(&e.Name, "name")
		case "thinkingLevel":
			return p.str(&e.ThinkingLevel, "thinkingLevel")
		case "provider":
			return p.str(&e.Provider, "provider")
		case "modelId":
			return p.str(&e.ModelID, "modelId")
		}
		return p.skipValue()
	})
}

// header decodes the object at p.pos as a session header; hasVersion
// reports whether "version" was present.
func (p *parser) header(h *session.Header) (hasVersion bool, err error) {
	err = p.object(func(key []byte) error {
		switch string(key) {
		case "type":
			return p.str(&h.Type, "type")
		case "version":
			h.Version, hasVersion = 0, false
			if p.peek() == 'n' {
				return p.literal("null")
			}
			_, v, ok, err := p.number("version", "int64")
			if ok && v >= math.MinInt32 && v <= math.MaxInt32 {
				h.Version, hasVersion = int(v), true
			} else if ok {
				p.warnings = append(p.warnings, fmt.Sprintf("field \"version\": %d out of range", v))
			}
			return err
		case "id":
			return p.str(&h.ID, "id")
		case "timestamp":
			return p.str(&h.Timestamp, "timestamp")
		case "cwd":
			return p.str(&h.Cwd, "cwd")
		case "parentSession":
			return p.str(&h.ParentSession, "parentSession")
		case "provider":
			return p.str(&h.Provider, "provider")
		case "modelId":
			return p.str(&h.ModelID, "modelId")
		case "thinkingLevel":
			return p.str(&h.ThinkingLevel, "thinkingLevel")
		case "branchedFrom":
			return p.str(&h.BranchedFrom, "branchedFrom")
		}
		return p.skipValue()
	})
	return hasVersion, err
}
