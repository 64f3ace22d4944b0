package pisession

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the real sessions")

// realSessions are the real pi sessions of app/samples (see its README.md).
// The counts were established independently of this package (the notice in
// app/samples/README.md, and a Python json.raw_decode count of every
// object); they are the only hard-coded results.
var realSessions = []struct {
	name    string
	entries int
	byKind  map[string]int
	// Lines that hold more than one object: line -> kinds, in order.
	multi map[int][]string
}{
	{
		name:    "large-session",
		entries: 1018,
		byKind: map[string]int{"message:user": 88, "message:assistant": 453, "message:toolResult": 373,
			"thinking_level_change": 103, "model_change": 1},
		multi: map[int][]string{},
	},
	{
		name:    "session-with-compaction",
		entries: 463,
		byKind: map[string]int{"message:user": 44, "message:assistant": 220, "message:toolResult": 189,
			"thinking_level_change": 8, "message:bashExecution": 1, "compaction": 1},
		multi: map[int][]string{440: {"message:assistant", "message:user"}},
	},
	{
		name:    "compact-with-images",
		entries: 1013,
		byKind: map[string]int{"message:user": 77, "message:assistant": 504, "message:toolResult": 429,
			"message:bashExecution": 1, "compaction": 2},
		multi: map[int][]string{1013: {"message:assistant", "compaction"}},
	},
}

// realPath is the path of the real session name (without ".jsonl").
func realPath(name string) string { return pitest.Sample(name + ".jsonl") }

// kind is an entry's type, with the message role for messages.
func kind(e *session.Entry) string {
	if e.Type == session.TypeMessage && e.Message != nil {
		return e.Type + ":" + e.Message.Role
	}
	return e.Type
}

// independentID recomputes a version 1 synthetic id from its definition,
// without SyntheticID.
func independentID(sessionID string, seq int) string {
	sum := sha256.Sum256([]byte(sessionID + ":" + strconv.Itoa(seq)))
	return hex.EncodeToString(sum[:])[:8]
}

func TestSyntheticIDKnownValues(t *testing.T) {
	// Values computed outside Go: printf '%s' 'ID:SEQ' | sha256sum | cut -c1-8
	for _, c := range []struct {
		session string
		seq     int
		want    string
	}{
		{"d703a1a9-1b7b-4fb1-b512-c9738b1fe617", 0, "db8e26e1"},
		{"d703a1a9-1b7b-4fb1-b512-c9738b1fe617", 1017, "505d5989"},
		{"s1", 7, "383a48f5"},
	} {
		if got := SyntheticID(c.session, c.seq); got != c.want {
			t.Errorf("SyntheticID(%q, %d) = %s, want %s", c.session, c.seq, got, c.want)
		}
	}
}

func TestRealSessions(t *testing.T) {
	for _, rs := range realSessions {
		t.Run(rs.name, func(t *testing.T) {
			data, err := os.ReadFile(realPath(rs.name))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Read(bytes.NewReader(data), rs.name+".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Entries) != rs.entries {
				t.Errorf("entries = %d, want %d", len(s.Entries), rs.entries)
			}
			got := map[string]int{}
			for i := range s.Entries {
				got[kind(&s.Entries[i])]++
			}
			if !reflect.DeepEqual(got, rs.byKind) {
				t.Errorf("entries by kind = %v, want %v", got, rs.byKind)
			}
			if len(s.Malformed) != 0 || len(s.Warnings) != 0 || s.Pending != nil {
				t.Errorf("malformed %v, warnings %v, pending %v; want none", s.Malformed, s.Warnings, s.Pending)
			}
			if s.Consumed != int64(len(data)) {
				t.Errorf("Consumed = %d, want the file size %d", s.Consumed, len(data))
			}
			if want := bytes.Count(data, []byte("\n")); s.Lines != want {
				t.Errorf("Lines = %d, want %d", s.Lines, want)
			}
			if s.Header.Version != 1 || s.Header.Type != "session" || s.Header.ID == "" {
				t.Errorf("header = %+v, want a version 1 session header with an id", s.Header)
			}
			if !bytes.Equal(s.Header.Raw, data[:bytes.IndexByte(data, '\n')]) {
				t.Errorf("header Raw is not the first line")
			}

			// Lines with several objects: each object its own entry, with
			// the same line and its own offset.
			perLine := map[int][]string{}
			for i := range s.Entries {
				perLine[s.Entries[i].Line] = append(perLine[s.Entries[i].Line], kind(&s.Entries[i]))
			}
			for line, kinds := range perLine {
				if len(kinds) > 1 && rs.multi[line] == nil {
					t.Errorf("line %d holds %v, not expected to hold several objects", line, kinds)
				}
			}
			for line, want := range rs.multi {
				if !reflect.DeepEqual(perLine[line], want) {
					t.Errorf("line %d holds %v, want %v", line, perLine[line], want)
				}
			}

			seen := map[string]bool{}
			for i := range s.Entries {
				e := &s.Entries[i]
				// Raw is exactly the bytes of the file at Offset.
				end := e.Offset + int64(len(e.Raw))
				if e.Offset < 0 || end > int64(len(data)) || !bytes.Equal(data[e.Offset:end], e.Raw) {
					t.Fatalf("entry %d (line %d): Raw is not the file's bytes at offset %d", i, e.Line, e.Offset)
				}
				if e.Seq != i {
					t.Errorf("entry %d has Seq %d", i, e.Seq)
				}
				// Version 1: linear chain of synthetic ids in file order.
				if want := independentID(s.Header.ID, i); e.ID != want {
					t.Errorf("entry %d: id %q, want %q", i, e.ID, want)
				}
				wantParent := ""
				if i > 0 {
					wantParent = s.Entries[i-1].ID
				}
				if e.ParentID != wantParent {
					t.Errorf("entry %d: parentId %q, want %q", i, e.ParentID, wantParent)
				}
				if seen[e.ID] {
					t.Errorf("entry %d: id %s used twice", i, e.ID)
				}
				seen[e.ID] = true
				if e.Timestamp.IsZero() {
					t.Errorf("entry %d: zero timestamp", i)
				}
			}
		})
	}
}

// TestRealSessionsAgainstGenericDecode compares every decoded entry with the
// same object decoded generically (map[string]any), which shares no code with
// the typed decoding.
func TestRealSessionsAgainstGenericDecode(t *testing.T) {
	for _, rs := range realSessions {
		t.Run(rs.name, func(t *testing.T) {
			data, err := os.ReadFile(realPath(rs.name))
			if err != nil {
				t.Fatal(err)
			}
			var objs []map[string]any
			dec := json.NewDecoder(bytes.NewReader(data))
			for {
				var m map[string]any
				if err := dec.Decode(&m); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				objs = append(objs, m)
			}
			s, err := ReadFile(realPath(rs.name))
			if err != nil {
				t.Fatal(err)
			}
			if len(objs)-1 != len(s.Entries) {
				t.Fatalf("generic decode finds %d entries, reader %d", len(objs)-1, len(s.Entries))
			}
			for i := range s.Entries {
				compareGeneric(t, i, &s.Entries[i], objs[i+1])
			}
		})
	}
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func num(m map[string]any, k string) float64 {
	f, _ := m[k].(float64)
	return f
}

func compareGeneric(t *testing.T, i int, e *session.Entry, m map[string]any) {
	t.Helper()
	fail := func(field string, got, want any) {
		t.Errorf("entry %d (line %d): %s = %v, want %v", i, e.Line, field, got, want)
	}
	if e.Type != str(m, "type") {
		fail("type", e.Type, str(m, "type"))
	}
	if ts, _ := time.Parse(time.RFC3339Nano, str(m, "timestamp")); !e.Timestamp.Equal(ts) {
		fail("timestamp", e.Timestamp, ts)
	}
	switch e.Type {
	case session.TypeThinkingLevelChange:
		if e.ThinkingLevel != str(m, "thinkingLevel") {
			fail("thinkingLevel", e.ThinkingLevel, str(m, "thinkingLevel"))
		}
	case session.TypeModelChange:
		if e.Provider != str(m, "provider") || e.ModelID != str(m, "modelId") {
			fail("model", e.Provider+"/"+e.ModelID, str(m, "provider")+"/"+str(m, "modelId"))
		}
	case session.TypeCompaction:
		if e.Summary != str(m, "summary") || e.TokensBefore != int64(num(m, "tokensBefore")) {
			fail("compaction", e.TokensBefore, num(m, "tokensBefore"))
		}
	case session.TypeMessage:
		gm, _ := m["message"].(map[string]any)
		msg := e.Message
		if msg == nil || gm == nil {
			fail("message", msg, gm)
			return
		}
		if msg.Role != str(gm, "role") || msg.Timestamp != int64(num(gm, "timestamp")) {
			fail("role/timestamp", fmt.Sprint(msg.Role, msg.Timestamp), fmt.Sprint(gm["role"], gm["timestamp"]))
		}
		if msg.Model != str(gm, "model") || msg.StopReason != str(gm, "stopReason") || msg.ErrorMessage != str(gm, "errorMessage") ||
			msg.ToolCallID != str(gm, "toolCallId") || msg.ToolName != str(gm, "toolName") ||
			msg.Command != str(gm, "command") || msg.Output != str(gm, "output") {
			fail("message fields", fmt.Sprintf("%+v", msg), gm)
		}
		if u, ok := gm["usage"].(map[string]any); ok {
			c, _ := u["cost"].(map[string]any)
			if msg.Usage == nil || msg.Usage.Input != int64(num(u, "input")) || msg.Usage.TotalTokens != int64(num(u, "totalTokens")) ||
				msg.Usage.Cost.Total != num(c, "total") || msg.Usage.Cost.CacheRead != num(c, "cacheRead") {
				fail("usage", msg.Usage, u)
			}
		}
		content, _ := gm["content"].([]any)
		if len(content) != len(msg.Content) {
			fail("content blocks", len(msg.Content), len(content))
			return
		}
		for j, gb := range content {
			b, _ := gb.(map[string]any)
			got := msg.Content[j]
			if got.Type != str(b, "type") || got.Text != str(b, "text") || got.Thinking != str(b, "thinking") ||
				got.ID != str(b, "id") || got.Name != str(b, "name") || got.Data != str(b, "data") || got.MimeType != str(b, "mimeType") {
				fail(fmt.Sprintf("block %d", j), got.Type, b["type"])
			}
			if args, ok := b["arguments"]; ok {
				var gotArgs any
				if err := json.Unmarshal(got.Arguments, &gotArgs); err != nil || !reflect.DeepEqual(gotArgs, args) {
					fail(fmt.Sprintf("block %d arguments", j), string(got.Arguments), args)
				}
			}
		}
	}
}

// goldenSummary is what testdata/golden/<name>.json records of a real session.
type goldenSummary struct {
	File          string            `json:"file"`
	SessionID     string            `json:"sessionId"`
	Version       int               `json:"version"`
	Cwd           string            `json:"cwd"`
	Entries       int               `json:"entries"`
	Lines         int               `json:"lines"`
	Consumed      int64             `json:"consumedBytes"`
	ByKind        map[string]int    `json:"entriesByKind"`
	BlocksByType  map[string]int    `json:"contentBlocksByType"`
	StopReasons   map[string]int    `json:"stopReasons"`
	Models        map[string]int    `json:"assistantModels"`
	MultiObject   map[string]int    `json:"objectsOnSharedLines"` // line -> objects
	Malformed     []session.Problem `json:"malformed"`
	Warnings      []session.Problem `json:"warnings"`
	Pending       *session.Problem  `json:"pending"`
	FirstID       string            `json:"firstId"`
	LastID        string            `json:"lastId"`
	LastParentID  string            `json:"lastParentId"`
	FirstTime     time.Time         `json:"firstTimestamp"`
	LastTime      time.Time         `json:"lastTimestamp"`
	Images        int               `json:"images"`
	ImageBase64   int               `json:"imageBase64Bytes"`
	CostUSD       float64           `json:"totalCostUSD"`
	InputTokens   int64             `json:"inputTokens"`
	OutputTokens  int64             `json:"outputTokens"`
	Compactions   []goldenCompact   `json:"compactions"`
	TextBytes     int               `json:"entryTextBytes"`
	TextSHA256    string            `json:"entryTextSHA256"`
	TextHasBase64 bool              `json:"entryTextHasImageData"`
}

type goldenCompact struct {
	Seq              int    `json:"seq"`
	Line             int    `json:"line"`
	ID               string `json:"id"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	FirstKeptSeq     int    `json:"firstKeptSeq"`
	FirstKeptKind    string `json:"firstKeptKind"`
	TokensBefore     int64  `json:"tokensBefore"`
}

func summarize(name string, s *Session) goldenSummary {
	g := goldenSummary{
		File: name + ".jsonl", SessionID: s.Header.ID, Version: s.Header.Version, Cwd: s.Header.Cwd,
		Entries: len(s.Entries), Lines: s.Lines, Consumed: s.Consumed,
		ByKind: map[string]int{}, BlocksByType: map[string]int{}, StopReasons: map[string]int{},
		Models: map[string]int{}, MultiObject: map[string]int{},
		Malformed: append([]session.Problem{}, s.Malformed...), Warnings: append([]session.Problem{}, s.Warnings...), Pending: s.Pending,
		Compactions: []goldenCompact{},
	}
	bySeq := map[string]int{}
	perLine := map[int]int{}
	h := sha256.New()
	var images []string
	for i := range s.Entries {
		e := &s.Entries[i]
		bySeq[e.ID] = e.Seq
		perLine[e.Line]++
		g.ByKind[kind(e)]++
		if m := e.Message; m != nil {
			for _, b := range m.Content {
				g.BlocksByType[m.Role+":"+b.Type]++
				if b.Type == session.BlockImage {
					g.Images++
					g.ImageBase64 += len(b.Data)
					images = append(images, b.Data)
				}
			}
			if m.Role == session.RoleAssistant {
				g.StopReasons[m.StopReason]++
				g.Models[m.Provider+"/"+m.Model]++
			}
			if m.Usage != nil {
				g.CostUSD += m.Usage.Cost.Total
				g.InputTokens += m.Usage.Input
				g.OutputTokens += m.Usage.Output
			}
		}
		if e.Type == session.TypeCompaction {
			k := -1
			kk := ""
			if seq, ok := bySeq[e.FirstKeptEntryID]; ok {
				k, kk = seq, kind(&s.Entries[seq])
			}
			g.Compactions = append(g.Compactions, goldenCompact{Seq: e.Seq, Line: e.Line, ID: e.ID,
				FirstKeptEntryID: e.FirstKeptEntryID, FirstKeptSeq: k, FirstKeptKind: kk, TokensBefore: e.TokensBefore})
		}
		text := session.EntryText(e)
		g.TextBytes += len(text)
		h.Write([]byte(text))
		h.Write([]byte{0})
		for _, img := range images {
			if len(img) > 64 && strings.Contains(text, img[:64]) {
				g.TextHasBase64 = true
			}
		}
	}
	for line, n := range perLine {
		if n > 1 {
			g.MultiObject[strconv.Itoa(line)] = n
		}
	}
	if n := len(s.Entries); n > 0 {
		g.FirstID, g.LastID, g.LastParentID = s.Entries[0].ID, s.Entries[n-1].ID, s.Entries[n-1].ParentID
		g.FirstTime, g.LastTime = s.Entries[0].Timestamp, s.Entries[n-1].Timestamp
	}
	g.TextSHA256 = hex.EncodeToString(h.Sum(nil))
	return g
}

func TestRealSessionsGolden(t *testing.T) {
	for _, rs := range realSessions {
		t.Run(rs.name, func(t *testing.T) {
			s, err := ReadFile(realPath(rs.name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(summarize(rs.name, s), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", rs.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./backend/pisession -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("summary differs from %s (review, then -update):\n%s", path, got)
			}
		})
	}
}

// TestV1FirstKeptEntryIndex checks the migration of the real compactions: the
// index counts the header as 0, so it names the entry with Seq index-1, and pi
// v1 only cut at user or assistant messages (never tool results).
func TestV1FirstKeptEntryIndex(t *testing.T) {
	idx := regexp.MustCompile(`"firstKeptEntryIndex":(\d+)`)
	for _, name := range []string{"session-with-compaction", "compact-with-images"} {
		s, err := ReadFile(realPath(name))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range s.Entries {
			e := &s.Entries[i]
			if e.Type != session.TypeCompaction {
				continue
			}
			n++
			mm := idx.FindSubmatch(e.Raw)
			if mm == nil {
				t.Fatalf("%s line %d: no firstKeptEntryIndex in the raw compaction", name, e.Line)
			}
			index, _ := strconv.Atoi(string(mm[1]))
			if index == e.Seq+1 {
				// pi v1 wrote the compaction's own position when it kept
				// nothing; pi's migration then names the compaction itself.
				if e.FirstKeptEntryID != e.ID {
					t.Errorf("%s line %d: index %d is the compaction itself; firstKeptEntryId %q, want its own id %q", name, e.Line, index, e.FirstKeptEntryID, e.ID)
				}
				continue
			}
			kept := &s.Entries[index-1]
			if e.FirstKeptEntryID != kept.ID {
				t.Errorf("%s line %d: firstKeptEntryId %q, want %q (entry Seq %d)", name, e.Line, e.FirstKeptEntryID, kept.ID, index-1)
			}
			if k := kind(kept); k != "message:user" && k != "message:assistant" {
				t.Errorf("%s line %d: first kept entry is %s, pi cuts only at user or assistant messages", name, e.Line, k)
			}
		}
		if n == 0 {
			t.Errorf("%s: no compaction found", name)
		}
	}
}
