package pisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"rhizome/backend/session"
)

// fuzzSeeds are slices of the real sessions, the hand-made files,
// concatenations and garbage.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var seeds [][]byte
	for _, rs := range realSessions {
		data, err := os.ReadFile(realPath(rs.name))
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds,
			data[:lineEnd(data, 3)],                 // header and two entries
			data[:lineEnd(data, 3)+200],             // ... and a half-written line
			data[lineEnd(data, 1):lineEnd(data, 4)], // no header
			bytes.ReplaceAll(data[:lineEnd(data, 4)], []byte("\n"), []byte("\r\n")),
			bytes.ReplaceAll(data[:lineEnd(data, 4)], []byte("\n"), nil), // everything on one line
		)
		if rs.name == "session-with-compaction" {
			seeds = append(seeds, append(append([]byte{}, data[:lineEnd(data, 1)]...), data[lineEnd(data, 438):lineEnd(data, 441)]...))
		}
	}
	for _, name := range []string{"v3-all-types.jsonl", "v2-hook-message.jsonl", "v1-first-kept-index.jsonl"} {
		data, err := os.ReadFile("testdata/handmade/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	seeds = append(seeds,
		[]byte(""),
		[]byte("\x00\x01\x02\xff\n\n"),
		[]byte(hdr+"\n"+u("a")+"garbage\n{\"type\":\"x\"}[1,2]\"s\"\n"+u("b")),
		[]byte(hdr+u("a")+u("b")+"\n42\n{\"type\":7}\n"),
		[]byte("\xEF\xBB\xBF"+hdr+"\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \\ud83d\\ude00 \\udc00\"}}\n"),
		[]byte(`{"type":"session","id":"s"}`+"\n"+`{"type":"compaction","firstKeptEntryIndex":1}`+"\n"),
	)
	return seeds
}

// FuzzReader reads arbitrary input and checks the reader's invariants: no
// panic, every entry typed and its Raw exactly the input at its Offset, lines
// and offsets increasing, problems inside the input, Consumed at a line end,
// and resuming at a line boundary giving the same entries as a full read.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		full, r, herr := readFuzz(t, data, 0, nil)
		if herr != nil {
			return
		}
		checkProblemsIn(t, data, r.Malformed())
		checkProblemsIn(t, data, r.Warnings())
		c := r.Consumed()
		if c < 0 || c > int64(len(data)) || (c > 0 && c < int64(len(data)) && data[c-1] != '\n') {
			t.Fatalf("Consumed %d of %d is not at a line end", c, len(data))
		}
		if p := r.Pending(); p != nil {
			if p.Offset != c || p.Line != r.Lines()+1 || c >= int64(len(data)) {
				t.Fatalf("pending %v with Consumed %d Lines %d", p, c, r.Lines())
			}
		} else if c != int64(len(data)) {
			t.Fatalf("no pending line but Consumed %d of %d", c, len(data))
		}
		if r.Lines() > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("Lines %d for %d newlines", r.Lines(), bytes.Count(data, []byte("\n")))
		}

		// Resume at the line boundary nearest the middle.
		nl := bytes.IndexByte(data[len(data)/2:], '\n')
		if nl < 0 {
			return
		}
		cut := len(data)/2 + nl + 1
		head, first, herr := readFuzz(t, data[:cut], 0, nil)
		if herr != nil {
			return // header only after the cut
		}
		h, _ := first.Header()
		if first.Consumed() != int64(cut) {
			t.Fatalf("prefix ending in a newline: Consumed %d, want %d", first.Consumed(), cut)
		}
		tail, _, _ := readFuzz(t, data[cut:], int64(cut), func(in io.Reader) *Reader {
			return NewReaderAt(in, "f", *h, first.Lines(), first.Consumed(), len(head))
		})
		if got := append(head, tail...); !reflect.DeepEqual(got, full) {
			t.Fatalf("resumed after byte %d: %d entries, full read %d", cut, len(got), len(full))
		}
	})
}

// readFuzz reads data (the input from byte base on) to the end and checks
// each entry against the whole input.
func readFuzz(t *testing.T, data []byte, base int64, open func(io.Reader) *Reader) ([]session.Entry, *Reader, error) {
	t.Helper()
	var r *Reader
	if open == nil {
		r = NewReader(bytes.NewReader(data), "f")
	} else {
		r = open(bytes.NewReader(data))
	}
	h, err := r.Header()
	if err != nil {
		if !errors.Is(err, session.ErrNoHeader) {
			t.Fatalf("Header error %v does not match session.ErrNoHeader", err)
		}
		return nil, r, err
	}
	if h.Type != "session" || h.ID == "" {
		t.Fatalf("header %+v", h)
	}
	var es []session.Entry
	lastLine, lastOff := 0, base-1
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		rel := e.Offset - base
		if e.Type == "" || e.Line < 1 || e.Line < lastLine || e.Offset <= lastOff || rel < 0 ||
			rel+int64(len(e.Raw)) > int64(len(data)) || !bytes.Equal(data[rel:rel+int64(len(e.Raw))], e.Raw) || e.Raw[0] != '{' {
			t.Fatalf("entry %d: type %q line %d offset %d: bad position or Raw", len(es), e.Type, e.Line, e.Offset)
		}
		if h.Version < 2 && e.ID != SyntheticID(h.ID, e.Seq) {
			t.Fatalf("v1 entry %d: id %s", e.Seq, e.ID)
		}
		if session.EntryText(e) == "\x00" {
			t.Fatal("unreachable; keeps session.EntryText in the fuzzed path")
		}
		lastLine, lastOff = e.Line, e.Offset
		es = append(es, *e)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after the end = %v, want io.EOF again", err)
	}
	return es, r, nil
}

func checkProblemsIn(t *testing.T, data []byte, ps []session.Problem) {
	t.Helper()
	for _, p := range ps {
		if p.Line < 1 || p.Offset < 0 || p.Offset >= int64(len(data)) || p.Reason == "" || p.File != "f" {
			t.Fatalf("problem %v outside the input of %d bytes", p, len(data))
		}
	}
}

func TestFuzzSeedsHold(t *testing.T) {
	// The seeds run as part of go test through FuzzReader; this checks the
	// seeds are read the way they are meant to (several kinds of input).
	var withHeader, without int
	for _, s := range fuzzSeeds(t) {
		if _, err := NewReader(bytes.NewReader(s), "f").Header(); err == nil {
			withHeader++
		} else {
			without++
		}
	}
	if withHeader < 10 || without < 3 {
		t.Errorf("seeds: %d with a header, %d without", withHeader, without)
	}
}

// FuzzParserMatchesEncodingJSON checks the parser against encoding/json: it
// accepts exactly the inputs json.Valid accepts, and it decodes an object
// into the same fields as encoding/json's generic decoding followed by the
// mapping rules (last duplicate key wins; a value of the wrong kind or null
// leaves the field empty; integers must be integral; exact-case keys).
func FuzzParserMatchesEncodingJSON(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		for _, line := range bytes.Split(s, []byte("\n")) {
			if len(line) <= 2048 { // small inputs keep minimization fast
				f.Add(line)
			}
		}
	}
	for _, s := range []string{`{"a":1e999}`, `{"tokensBefore":1.0}`, `{"tokensBefore":1.5}`, `[1,2,`, `"\ud800"`, `{"message":{"exitCode":9999999999}}`,
		`{"type":"a","type":null}`, `{"message":{"usage":{"cost":{"input":1},"cost":{"output":2}}}}`, `-01`, `1.`, `1e+`, `tru`, "\"\x7f\x80\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := parser{data: data}
		p.ws()
		err := p.skipValue()
		if err == nil {
			p.ws()
		}
		if mine, want := err == nil && p.pos == len(data), json.Valid(data); mine != want {
			t.Fatalf("parser accepts=%v, json.Valid=%v for %q (err %v)", mine, want, data, err)
		}
		if !json.Valid(data) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		p.reset(data)
		p.ws()
		var got session.Entry
		var x entryExtras
		if err := p.entry(&got, &x); err != nil {
			t.Fatalf("valid object %q: %v", data, err)
		}
		want, wx := referenceEntry(m)
		if x.timestamp != wx.timestamp || x.hasFirstKept != wx.hasFirstKept || (x.hasFirstKept && x.firstKeptIndex != wx.firstKeptIndex) {
			t.Fatalf("extras %+v, want %+v for %q", x, wx, data)
		}
		if !sameEntry(&got, &want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Fatalf("for %q\n got %s\nwant %s", data, g, w)
		}
	})
}

// The reference mapping, on encoding/json's generic decoding (UseNumber).

func refStr(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func refBool(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}

func refFloat(m map[string]any, k string) (float64, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

func refInt(m map[string]any, k string) (int64, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

func refRaw(m map[string]any, k string) json.RawMessage {
	v, ok := m[k]
	if !ok || v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

func refContent(m map[string]any, k string) ([]session.Block, bool) {
	switch c := m[k].(type) {
	case string:
		return []session.Block{{Type: session.BlockText, Text: c}}, true
	case []any:
		out := []session.Block{}
		for _, el := range c {
			bm, ok := el.(map[string]any)
			if !ok {
				continue
			}
			out = append(out, session.Block{Type: refStr(bm, "type"), Text: refStr(bm, "text"), Thinking: refStr(bm, "thinking"),
				Redacted: refBool(bm, "redacted"), ID: refStr(bm, "id"), Name: refStr(bm, "name"),
				Arguments: refRaw(bm, "arguments"), Data: refStr(bm, "data"), MimeType: refStr(bm, "mimeType")})
		}
		return out, false
	}
	return nil, false
}

func referenceEntry(m map[string]any) (session.Entry, entryExtras) {
	e := session.Entry{Type: refStr(m, "type"), ID: refStr(m, "id"), ParentID: refStr(m, "parentId"), Summary: refStr(m, "summary"),
		FirstKeptEntryID: refStr(m, "firstKeptEntryId"), FromID: refStr(m, "fromId"), FromHook: refBool(m, "fromHook"),
		Details: refRaw(m, "details"), CustomType: refStr(m, "customType"), Data: refRaw(m, "data"), Display: refBool(m, "display"),
		TargetID: refStr(m, "targetId"), Label: refStr(m, "label"), Name: refStr(m, "name"), ThinkingLevel: refStr(m, "thinkingLevel"),
		Provider: refStr(m, "provider"), ModelID: refStr(m, "modelId")}
	e.TokensBefore, _ = refInt(m, "tokensBefore")
	e.Content, e.ContentIsString = refContent(m, "content")
	var x entryExtras
	x.timestamp = refStr(m, "timestamp")
	x.firstKeptIndex, x.hasFirstKept = refFloat(m, "firstKeptEntryIndex")
	if mm, ok := m["message"].(map[string]any); ok {
		msg := &session.Message{Role: refStr(mm, "role"), API: refStr(mm, "api"), Provider: refStr(mm, "provider"), Model: refStr(mm, "model"),
			StopReason: refStr(mm, "stopReason"), ErrorMessage: refStr(mm, "errorMessage"), ToolCallID: refStr(mm, "toolCallId"),
			ToolName: refStr(mm, "toolName"), IsError: refBool(mm, "isError"), Details: refRaw(mm, "details"),
			Command: refStr(mm, "command"), Output: refStr(mm, "output"), Cancelled: refBool(mm, "cancelled"),
			Truncated: refBool(mm, "truncated"), FullOutputPath: refStr(mm, "fullOutputPath"),
			ExcludeFromContext: refBool(mm, "excludeFromContext"), CustomType: refStr(mm, "customType"),
			Display: refBool(mm, "display"), Summary: refStr(mm, "summary"), FromID: refStr(mm, "fromId")}
		msg.Timestamp, _ = refInt(mm, "timestamp")
		msg.TokensBefore, _ = refInt(mm, "tokensBefore")
		msg.Content, msg.ContentIsString = refContent(mm, "content")
		if c, ok := refInt(mm, "exitCode"); ok && c >= math.MinInt32 && c <= math.MaxInt32 {
			ci := int(c)
			msg.ExitCode = &ci
		}
		if um, ok := mm["usage"].(map[string]any); ok {
			u := &session.Usage{}
			u.Input, _ = refInt(um, "input")
			u.Output, _ = refInt(um, "output")
			u.CacheRead, _ = refInt(um, "cacheRead")
			u.CacheWrite, _ = refInt(um, "cacheWrite")
			u.TotalTokens, _ = refInt(um, "totalTokens")
			if cm, ok := um["cost"].(map[string]any); ok {
				u.Cost.Input, _ = refFloat(cm, "input")
				u.Cost.Output, _ = refFloat(cm, "output")
				u.Cost.CacheRead, _ = refFloat(cm, "cacheRead")
				u.Cost.CacheWrite, _ = refFloat(cm, "cacheWrite")
				u.Cost.Total, _ = refFloat(cm, "total")
			}
			msg.Usage = u
		}
		e.Message = msg
	}
	return e, x
}

// sameJSON compares two JSON documents by meaning.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// sameEntry compares entries, the JSON-valued fields by meaning.
func sameEntry(a, b *session.Entry) bool {
	if !sameJSON(a.Details, b.Details) || !sameJSON(a.Data, b.Data) {
		return false
	}
	ca, cb := *a, *b
	ca.Details, cb.Details, ca.Data, cb.Data = nil, nil, nil, nil
	ca.Raw, cb.Raw, ca.Timestamp, cb.Timestamp = nil, nil, time.Time{}, time.Time{}
	if !sameBlocks(ca.Content, cb.Content) {
		return false
	}
	ca.Content, cb.Content = nil, nil
	if (ca.Message == nil) != (cb.Message == nil) {
		return false
	}
	if ca.Message != nil {
		ma, mb := *ca.Message, *cb.Message
		if !sameJSON(ma.Details, mb.Details) || !sameBlocks(ma.Content, mb.Content) {
			return false
		}
		ma.Details, mb.Details, ma.Content, mb.Content = nil, nil, nil, nil
		if !reflect.DeepEqual(ma, mb) {
			return false
		}
		ca.Message, cb.Message = nil, nil
	}
	return reflect.DeepEqual(ca, cb)
}

func sameBlocks(a, b []session.Block) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if !sameJSON(a[i].Arguments, b[i].Arguments) {
			return false
		}
		x, y := a[i], b[i]
		x.Arguments, y.Arguments = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}
