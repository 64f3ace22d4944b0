package memobrain

// MemoBrain is Python: it reads ids with int(), falls back to a regular
// expression, shows the graph to the model with str() and repr(), and stores
// a fold's notes as json.dumps() text. The functions here reproduce those
// conversions exactly, so that Rhizome reads and writes what MemoBrain would.

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// digitValue is the value of the Unicode decimal digit r (category Nd), or -1.
// Every Nd range of Unicode is a run of whole 0..9 sequences, each starting at
// its zero.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || !unicode.IsDigit(r) {
		return -1
	}
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return -1
}

// pyInt is Python's int(s) for a str: white space around (Unicode's
// White_Space, which is Go's unicode.IsSpace; int() does not strip the
// separators U+001C..U+001F that str.isspace() counts), an optional sign,
// then decimal digits (any Unicode decimal digits) with single underscores
// between them. ok is false where int() raises ValueError. A value too large
// for an int saturates (no node has such an id).
func pyInt(s string) (n int, ok bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var v uint64
	over := false
	prevUnderscore := true // no leading underscore
	for _, r := range s {
		if r == '_' {
			if prevUnderscore {
				return 0, false
			}
			prevUnderscore = true
			continue
		}
		d := digitValue(r)
		if d < 0 {
			return 0, false
		}
		prevUnderscore = false
		if v > (math.MaxInt64-uint64(d))/10 {
			over = true
		} else {
			v = v*10 + uint64(d)
		}
	}
	if prevUnderscore { // trailing underscore
		return 0, false
	}
	switch {
	case over && neg:
		return math.MinInt64, true
	case over:
		return math.MaxInt64, true
	case neg:
		return -int(v), true
	}
	return int(v), true
}

// firstInt is what MemoBrain's apply_patch does with a src it cannot read
// with int(): re.findall(r'\d+', s)[0], turned into an int. \d matches any
// Unicode decimal digit in a Python 3 str pattern. ok is false when s holds
// no digit (MemoBrain then fails with IndexError).
func firstInt(s string) (n int, ok bool) {
	start := -1
	for i, r := range s {
		if digitValue(r) >= 0 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			return pyInt(s[start:i])
		}
	}
	if start >= 0 {
		return pyInt(s[start:])
	}
	return 0, false
}

// pyFloatRepr is Python's repr() of a float: the shortest digits that read
// back the same, in fixed notation for exponents -4..15 (with ".0" when there
// is no fraction), otherwise as d.ddde+XX.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	sign := ""
	if math.Signbit(f) {
		sign = "-"
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(exps)
	if exp >= -4 && exp < 16 {
		if exp < 0 {
			return sign + "0." + strings.Repeat("0", -exp-1) + digits
		}
		if len(digits) <= exp+1 {
			return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		}
		return sign + digits[:exp+1] + "." + digits[exp+1:]
	}
	out := sign + digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es = "-"
		exp = -exp
	}
	if exp < 10 {
		es += "0"
	}
	return out + "e" + es + strconv.Itoa(exp)
}

// pyNumber is how Python reads the JSON number literal lit: an int when it
// has no fraction or exponent (str() of it is the literal, "-0" being "0"),
// else a float.
func pyNumber(lit string) (isInt bool, text string, f float64) {
	if !strings.ContainsAny(lit, ".eE") {
		if lit == "-0" {
			return true, "0", 0
		}
		return true, lit, 0
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil { // out of range: Python reads it as inf
		if strings.HasPrefix(lit, "-") {
			f = math.Inf(-1)
		} else {
			f = math.Inf(1)
		}
	}
	return false, "", f
}

// pyStyle says how pyFormat writes a value.
type pyStyle int

const (
	styleRepr      pyStyle = iota // repr(): {'role': 'user'}, True, None
	styleDumps                    // json.dumps(v, ensure_ascii=False)
	styleDumpsASCI                // json.dumps(v) (ensure_ascii=True, the default)
)

// pyStr is Python's str() of the value that json.loads makes of raw: a
// string as it is, anything else as repr().
func pyStr(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(pyFormat(nil, raw, styleRepr))
}

// pyDumps is Python's json.dumps() of the value json.loads makes of raw,
// with the default separators ", " and ": ".
func pyDumps(raw json.RawMessage, ascii bool) string {
	style := styleDumps
	if ascii {
		style = styleDumpsASCI
	}
	return string(pyFormat(nil, raw, style))
}

// pyFormat appends the Python rendering of the JSON value raw (valid JSON).
// Objects keep their key order; a repeated key keeps its first place and its
// last value, as a Python dict built by json.loads does.
func pyFormat(dst []byte, raw json.RawMessage, style pyStyle) []byte {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 {
		return dst
	}
	switch raw[0] {
	case '{':
		fs, err := objectFields(raw, 0)
		if err != nil {
			return append(dst, raw...)
		}
		order := []string{}
		last := map[string]json.RawMessage{}
		for _, f := range fs {
			if _, seen := last[f.key]; !seen {
				order = append(order, f.key)
			}
			last[f.key] = f.value
		}
		dst = append(dst, '{')
		for i, k := range order {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = pyFormatString(dst, k, style)
			dst = append(dst, ": "...)
			dst = pyFormat(dst, last[k], style)
		}
		return append(dst, '}')
	case '[':
		es, err := arrayElements(raw, 0)
		if err != nil {
			return append(dst, raw...)
		}
		dst = append(dst, '[')
		for i, e := range es {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = pyFormat(dst, e.value, style)
		}
		return append(dst, ']')
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return append(dst, raw...)
		}
		return pyFormatString(dst, s, style)
	case 't':
		if style == styleRepr {
			return append(dst, "True"...)
		}
		return append(dst, "true"...)
	case 'f':
		if style == styleRepr {
			return append(dst, "False"...)
		}
		return append(dst, "false"...)
	case 'n':
		if style == styleRepr {
			return append(dst, "None"...)
		}
		return append(dst, "null"...)
	}
	isInt, text, f := pyNumber(string(raw))
	if isInt {
		return append(dst, text...)
	}
	if style != styleRepr {
		switch { // json.dumps writes non-finite floats as JavaScript names
		case math.IsInf(f, 1):
			return append(dst, "Infinity"...)
		case math.IsInf(f, -1):
			return append(dst, "-Infinity"...)
		}
	}
	return append(dst, pyFloatRepr(f)...)
}

func pyFormatString(dst []byte, s string, style pyStyle) []byte {
	switch style {
	case styleDumps:
		return appendJSONString(dst, s, false)
	case styleDumpsASCI:
		return appendJSONString(dst, s, true)
	}
	return appendPyRepr(dst, s)
}

// appendPyRepr appends Python's repr() of the str s: single quotes unless s
// holds a single quote and no double quote; backslash, the quote, \t \n \r
// escaped; other unprintable characters (Python's str.isprintable, which is
// Go's unicode.IsPrint) as \xhh, \uhhhh or \Uhhhhhhhh.
func appendPyRepr(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	dst = append(dst, q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r < 0x20 || r == 0x7f:
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&0xf])
		case r < 0x7f || unicode.IsPrint(r):
			dst = append(dst, string(r)...)
		case r < 0x100:
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&0xf])
		case r < 0x10000:
			dst = append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			dst = append(dst, '\\', 'U')
			for sh := 28; sh >= 0; sh -= 4 {
				dst = append(dst, hex[r>>sh&0xf])
			}
		}
	}
	return append(dst, q)
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
