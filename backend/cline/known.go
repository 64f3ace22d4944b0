package cline

// Reading a message the library holds already (ReadKnown): its key is
// found without decoding it (its "id", and a hash of its bytes), and of
// the rest only what the messages after it depend on is scanned: the
// decoder's state (the entry before, the prompt being answered, the tool
// calls made, the sub-agents linked, the models seen, the first time).
//
// The scan is one pass over the message's bytes (walker) that hashes them
// on the way (sessiondoc.ContentHasher): the message's members, its
// content's blocks and theirs are found, every other value skipped. A
// pass of sessiondoc.Members for the message, another for its blocks and
// ContentHash's own would go over a 5 MB document three times. The scan
// reads a field as encoding/json would decode it into wireMessage; a
// message whose fields it cannot read so for sure (a key repeated, or spelt
// in another case, which encoding/json matches too; a value of another
// kind than its field's) is decoded whole instead.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"

	"rhizome/backend/sessiondoc"
)

// The keys of wireMessage and wireBlock the scan reads, in the order of
// their spans (scanned.msg, scannedBlock), and of wireModelInfo and
// wireMessageMeta.
var (
	messageKeys  = [...]string{"id", "role", "content", "ts", "modelInfo", "metadata"}
	blockKeys    = [...]string{"type", "id", "name", "input", "tool_use_id"}
	modelKeys    = []string{"id"}
	metadataKeys = []string{"kind"}
)

// scanned is what a message says that the messages after it depend on:
// the spans in its bytes of its fields' values (End 0: absent), and its
// content hash.
type scanned struct {
	hash   string
	msg    [len(messageKeys)]sessiondoc.Span
	model  sessiondoc.Span // modelInfo.id
	kind   sessiondoc.Span // metadata.kind
	blocks []scannedBlock  // the content's, when it is a list
}

// scannedBlock is a content block's fields (blockKeys): a tool_use's id,
// name and input, a tool_result's tool_use_id.
type scannedBlock [len(blockKeys)]sessiondoc.Span

// known reads the index-th message raw of a document read against known
// (raw of a checked document). When the message scans (walker.message),
// its key is asked of known (asked); a stored one (stored) updates the
// decoder's state as message would, without decoding the message. A
// message that does not scan, or is not stored, is message's to decode;
// one that does not scan was not asked of known.
func (d *decoder) known(raw []byte, index int, known *sessiondoc.Known) (key string, asked, stored bool) {
	if d.walk == nil {
		d.walk = &walker{}
	}
	sc := &d.scan
	if !d.walk.message(raw, sc) {
		return "", false, false
	}
	id, role := str(raw, sc.msg[0]), str(raw, sc.msg[1])
	var ts int64
	hasTS := false
	if v := sc.msg[3]; v.End != 0 && raw[v.Start] != 'n' {
		n, err := strconv.ParseInt(string(raw[v.Start:v.End]), 10, 64)
		if err != nil {
			return "", false, false // no int64: message reports the problem
		}
		ts, hasTS = n, true
	}
	if role == "" {
		return "", false, false // no role: message reports the problem
	}
	key = sessiondoc.KeyOf(id, index, sc.hash)
	if !known.Next(key) {
		return key, true, false
	}
	id = entryID(id, key)
	if hasTS {
		d.noteTime(ts)
	}
	if kind := str(raw, sc.kind); kind == "compaction_summary" || kind == "compaction" {
		d.prev = id
		return key, true, true
	}
	switch role {
	case "user":
		prompt := true
		for _, b := range sc.blocks {
			if is(raw, b[0], "tool_result") {
				d.linkSubagent(str(raw, b[4]))
				prompt = false
				break
			}
		}
		if prompt {
			d.turn = id
		}
	case "assistant":
		for _, b := range sc.blocks {
			if is(raw, b[0], "tool_use") {
				var in json.RawMessage
				if v := b[3]; v.End != 0 {
					in = raw[v.Start:v.End]
				}
				d.noteCall(str(raw, b[1]), str(raw, b[2]), in)
			}
		}
		d.addModel(str(raw, sc.model))
	}
	d.prev = id
	return key, true, true
}

// str is the value v of raw (a JSON string or null; End 0: absent) as
// encoding/json decodes it into a string field: "" for null or absent.
func str(raw []byte, v sessiondoc.Span) string {
	if v.End == 0 || raw[v.Start] != '"' {
		return ""
	}
	if in := raw[v.Start+1 : v.End-1]; plain(in) {
		return string(in)
	}
	var s string
	_ = json.Unmarshal(raw[v.Start:v.End], &s) // a string of a checked document decodes
	return s
}

// is reports whether str(raw, v) is s, without a copy when it needs none.
func is(raw []byte, v sessiondoc.Span, s string) bool {
	if v.End != 0 && raw[v.Start] == '"' {
		if in := raw[v.Start+1 : v.End-1]; plain(in) {
			return string(in) == s
		}
	}
	return str(raw, v) == s
}

// plain reports whether a JSON string's bytes between its quotes are its
// value: no escape, and no byte encoding/json checks as UTF-8 (it turns a
// bad one into U+FFFD).
func plain(in []byte) bool {
	for _, c := range in {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// walker walks a message's bytes (a checked document's: valid JSON) once,
// at i, noting the white space it skips to the content hash h.
type walker struct {
	raw []byte
	i   int
	h   sessiondoc.ContentHasher
}

// message scans the message raw into sc: the spans of the fields the
// messages after it depend on, and its content hash. ok false when it
// cannot tell for sure what encoding/json would decode (a field repeated
// or in another case, a value of another kind than its field's).
func (w *walker) message(raw []byte, sc *scanned) (ok bool) {
	w.raw, w.i = raw, 0
	w.h.Reset(raw)
	*sc = scanned{blocks: sc.blocks[:0]}
	ok = w.object(messageKeys[:], sc.msg[:], func(j int) bool {
		switch c := w.raw[w.i]; j {
		case 0, 1: // id, role
			return w.scalar('"')
		case 2: // content: a string, or a list of blocks
			if c != '[' {
				return w.scalar('"')
			}
			return w.list(func() bool {
				if w.raw[w.i] != '{' {
					sc.blocks = append(sc.blocks, scannedBlock{})
					return w.scalar('n') // null: a zero block
				}
				var b scannedBlock
				ok := w.object(blockKeys[:], b[:], func(j int) bool {
					if j == 3 { // input: any value
						return w.skip()
					}
					return w.scalar('"')
				})
				sc.blocks = append(sc.blocks, b)
				return ok
			})
		case 3: // ts
			return w.scalar('0')
		default: // modelInfo, metadata: an object or null
			if c != '{' {
				return w.scalar('n')
			}
			keys, dst := modelKeys, &sc.model
			if j == 5 {
				keys, dst = metadataKeys, &sc.kind
			}
			var v [1]sessiondoc.Span
			ok := w.object(keys, v[:], func(int) bool { return w.scalar('"') })
			*dst = v[0]
			return ok
		}
	})
	if !ok || w.i != len(raw) {
		return false
	}
	sc.hash = w.h.Sum()
	return true
}

// scalar skips the value at w.i when it is null or of kind ('"' a string,
// '0' a number, 'n' null alone); false otherwise.
func (w *walker) scalar(kind byte) bool {
	c := w.raw[w.i]
	switch {
	case c == 'n':
	case kind == '"' && c == '"':
	case kind == '0' && (c == '-' || c >= '0' && c <= '9'):
	default:
		return false
	}
	return w.skip()
}

// object walks the object at w.i: a member whose key is keys[j] is walked
// by field(j) (false: it does not scan) and its value's span put in
// vals[j]; the others are skipped. False when a key of keys repeats, or
// another key is one of them in another case.
func (w *walker) object(keys []string, vals []sessiondoc.Span, field func(j int) bool) bool {
	if !w.at('{') {
		return false
	}
	w.i++
	w.space()
	if w.at('}') {
		w.i++
		return true
	}
	for {
		ks := w.i
		if !w.at('"') || !w.skip() {
			return false
		}
		j, ok := member(w.raw[ks:w.i], keys)
		if !ok {
			return false
		}
		w.space()
		if !w.at(':') {
			return false
		}
		w.i++
		w.space()
		if w.i >= len(w.raw) {
			return false
		}
		start := w.i
		switch {
		case j < 0:
			if !w.skip() {
				return false
			}
		case vals[j].End != 0 || !field(j):
			return false
		default:
			vals[j] = sessiondoc.Span{Start: start, End: w.i}
		}
		w.space()
		switch {
		case w.at(','):
			w.i++
			w.space()
		case w.at('}'):
			w.i++
			return true
		default:
			return false
		}
	}
}

// list walks the list at w.i, each element by elem (false: it does not
// scan).
func (w *walker) list(elem func() bool) bool {
	w.i++
	w.space()
	if w.at(']') {
		w.i++
		return true
	}
	for {
		if w.i >= len(w.raw) || !elem() {
			return false
		}
		w.space()
		switch {
		case w.at(','):
			w.i++
			w.space()
		case w.at(']'):
			w.i++
			return true
		default:
			return false
		}
	}
}

// member finds the quoted key q among keys: j its index, -1 for another
// key; ok false when it is one of them in another case (encoding/json
// matches a key regardless of case when none matches exactly).
func member(q []byte, keys []string) (j int, ok bool) {
	k := q[1 : len(q)-1]
	if !plain(k) {
		var s string
		if json.Unmarshal(q, &s) != nil {
			return 0, false
		}
		k = []byte(s)
	}
	for j, key := range keys {
		if string(k) == key {
			return j, true
		}
	}
	for _, key := range keys {
		if bytes.EqualFold(k, []byte(key)) {
			return 0, false
		}
	}
	return -1, true
}

// at reports whether the byte at w.i is c.
func (w *walker) at(c byte) bool { return w.i < len(w.raw) && w.raw[w.i] == c }

// space skips the white space at w.i, noting it to the hash.
func (w *walker) space() {
	j := w.i
	for j+8 <= len(w.raw) && binary.LittleEndian.Uint64(w.raw[j:]) == 0x2020202020202020 { // an indentation
		j += 8
	}
	for j < len(w.raw) && (w.raw[j] == ' ' || w.raw[j] == '\n' || w.raw[j] == '\t' || w.raw[j] == '\r') {
		j++
	}
	if j > w.i {
		w.h.Space(w.i, j)
		w.i = j
	}
}

// skip skips the value at w.i (w.i < len(w.raw)), noting the white space
// inside it to the hash; false when it does not end.
func (w *walker) skip() bool {
	raw := w.raw
	switch raw[w.i] {
	case '"':
		w.i = sessiondoc.StringEnd(raw, w.i)
		return w.i > 0
	case '{', '[':
		depth := 0
		for w.i < len(raw) {
			switch raw[w.i] {
			case '"':
				if w.i = sessiondoc.StringEnd(raw, w.i); w.i < 0 {
					return false
				}
				continue
			case ' ', '\n', '\t', '\r':
				w.space()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					w.i++
					return true
				}
			}
			w.i++
		}
		return false
	}
	for w.i < len(raw) {
		switch raw[w.i] {
		case ',', '}', ']', ' ', '\n', '\t', '\r':
			return true
		}
		w.i++
	}
	return true
}
