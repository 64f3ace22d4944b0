package segment

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"rhizome/backend/session"
)

var t0 = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

// at is t0 plus min minutes.
func at(min float64) time.Time {
	return t0.Add(time.Duration(min * float64(time.Minute)))
}

// entry makes an entry of type typ at minute min.
func entry(typ, id, parent string, min float64) session.Entry {
	return session.Entry{Type: typ, ID: id, ParentID: parent, Timestamp: at(min)}
}

// msg makes an assistant message.
func msg(id, parent string, min float64) session.Entry {
	e := entry(session.TypeMessage, id, parent, min)
	e.Message = &session.Message{Role: session.RoleAssistant,
		Content: []session.Block{{Type: session.BlockText, Text: "ok, handoff to nobody"}}}
	return e
}

// user makes a user message with the given text.
func user(id, parent string, min float64, text string) session.Entry {
	e := entry(session.TypeMessage, id, parent, min)
	e.Message = &session.Message{Role: session.RoleUser,
		Content: []session.Block{{Type: session.BlockText, Text: text}}}
	return e
}

func label(id, parent, target string, min float64) session.Entry {
	e := entry(session.TypeLabel, id, parent, min)
	e.TargetID, e.Label = target, "checkpoint"
	return e
}

func branchSummary(id, parent string, min float64) session.Entry {
	e := entry(session.TypeBranchSummary, id, parent, min)
	e.FromID = parent
	if parent == "" {
		e.FromID = "root"
	}
	e.Summary = "tried X, it failed"
	return e
}

func compaction(id, parent string, min float64) session.Entry {
	e := entry(session.TypeCompaction, id, parent, min)
	e.Summary, e.TokensBefore, e.FirstKeptEntryID = "so far: Y", 123456, "b"
	return e
}

func custom(id, parent string, min float64, customType, data string) session.Entry {
	e := entry(session.TypeCustom, id, parent, min)
	e.CustomType = customType
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	return e
}

// session numbers the entries (Seq, Line) in file order.
func numbered(es ...session.Entry) []session.Entry {
	for i := range es {
		es[i].Seq, es[i].Line = i, i+2
	}
	return es
}

// describe renders the boundaries found on each entry, one per boundary:
// "entry:type(previous>target)".
func describe(entries []session.Entry, opts Options) []string {
	d := NewDetector(opts)
	var out []string
	for i := range entries {
		for _, b := range d.Add(&entries[i]) {
			if b.EntryID != entries[i].ID || !b.Timestamp.Equal(entries[i].Timestamp) {
				out = append(out, fmt.Sprintf("BAD entry/timestamp %q %v on %q", b.EntryID, b.Timestamp, entries[i].ID))
			}
			out = append(out, fmt.Sprintf("%s:%s(%s>%s)", entries[i].ID, b.Type, b.PreviousEntryID, b.TargetEntryID))
		}
	}
	return out
}

func TestDetectorBoundaries(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		entries []session.Entry
		want    []string
	}{
		{"linear chain", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 2, "more"), msg("d", "c", 3),
		), nil},
		{"label does not break", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), label("L", "b", "a", 1.5), user("c", "L", 2, "go on"),
		), nil},
		{"session_info does not break", Options{}, numbered(
			user("a", "", 0, "hi"), entry(session.TypeSessionInfo, "i", "a", 0.5), msg("b", "i", 1),
		), nil},
		{"label is the leaf, then a jump back over it", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), label("L", "b", "a", 1.5), user("c", "b", 2, "retry"),
		), []string{"c:tree_jump(L>b)"}},
		{"a jump landing on a label (pi's /tree with a label) starts there", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), msg("c", "b", 2),
			label("L", "a", "a", 3), label("M", "L", "b", 3.1), user("d", "M", 4, "again"),
		), []string{"L:tree_jump(c>a)"}},
		{"jump on a label and again on the next entry", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), msg("c", "b", 2),
			label("L", "a", "a", 3), user("d", "b", 4, "again"),
		), []string{"L:tree_jump(c>a)", "d:tree_jump(L>b)"}},
		{"a parentId not in the file is no jump (a fork dropped the label)", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "dropped1", 2, "x"), msg("d", "c", 3),
		), nil},
		{"tree jump", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 2, "x"), msg("d", "c", 3),
			user("e", "b", 4, "other way"), msg("f", "e", 5),
		), []string{"e:tree_jump(d>b)"}},
		{"tree jump of a non-message entry", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), entry(session.TypeModelChange, "m", "a", 2),
		), []string{"m:tree_jump(b>a)"}},
		{"tree jump to the root", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "", 2, "start over"),
		), []string{"c:tree_jump(b>)"}},
		{"branch summary", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 2, "x"), msg("d", "c", 3),
			branchSummary("s", "b", 4), user("e", "s", 5, "other way"),
		), []string{"s:branch(d>b)"}},
		{"branch at the root", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), branchSummary("s", "", 2), user("c", "s", 3, "anew"),
		), []string{"s:branch(b>)"}},
		{"branch right after a jump on a label", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), label("L", "a", "a", 2), branchSummary("s", "b", 3),
		), []string{"L:tree_jump(b>a)", "s:branch(L>b)"}},
		{"compaction", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), compaction("k", "b", 2), user("c", "k", 3, "go"),
		), []string{"k:compaction(b>)"}},
		{"compaction and resume on one entry", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), compaction("k", "b", 31), user("c", "k", 32, "go"),
		), []string{"k:compaction(b>)", "k:resume(b>)"}},
		{"branch and resume on one entry, priority order", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), branchSummary("s", "a", 60),
		), []string{"s:branch(b>a)", "s:resume(b>)"}},
		{"tree jump, compaction, resume and handoff on one entry", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), custom("h", "a", 30, "handoff", ""),
			compaction("k", "b", 31),
		), []string{"h:tree_jump(b>a)", "h:resume(b>)", "h:handoff(b>)", "k:tree_jump(h>b)", "k:compaction(h>)"}},
		{"resume at exactly the gap", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 11, "back"),
		), []string{"c:resume(b>)"}},
		{"no resume just under the gap", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 10.99, "back"),
		), nil},
		{"custom resume gap", Options{ResumeGap: 5 * time.Minute}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 7, "back"), msg("d", "c", 11),
		), []string{"c:resume(b>)"}},
		{"resume off", Options{ResumeGap: -1}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 500, "back"),
		), nil},
		{"a resume gap ending on a session_info entry starts there", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), entry(session.TypeSessionInfo, "i", "b", 30),
			user("c", "i", 31, "back"),
		), []string{"i:resume(b>)"}},
		{"a gap split by a label is two short gaps", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), label("L", "b", "a", 7), user("c", "L", 13, "back"),
		), nil},
		{"zero timestamps give no resume", Options{}, numbered(
			user("a", "", 0, "hi"),
			func() session.Entry { e := msg("b", "a", 0); e.Timestamp = time.Time{}; return e }(),
			user("c", "b", 100, "back"),
		), nil},
		{"clock going backwards gives no resume", Options{}, numbered(
			user("a", "", 100, "hi"), msg("b", "a", 1), user("c", "b", 2, "x"),
		), nil},
		{"handoff custom entry, any case", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), custom("h", "b", 2, "HandOff", `{"reason":"to reviewer"}`),
			custom("x", "h", 3, "todo", `{}`),
		), []string{"h:handoff(b>)"}},
		{"handoff user text", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 2, "ok, now hand-off to the reviewer please"),
			msg("d", "c", 3), user("e", "d", 4, "/handoff write the tests"), msg("f", "e", 5),
			user("g", "f", 6, "Let's HANDOFF TO claude"), user("h", "g", 7, "hand off to bob"),
		), []string{"c:handoff(b>)", "e:handoff(d>)", "g:handoff(f>)", "h:handoff(g>)"}},
		{"not a handoff", Options{}, numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 2, "handoffs are hard"),
			user("d", "c", 3, "see /handoff"), user("e", "d", 4, "the handoff tool"),
			custom("f", "e", 5, "handoff-state", ""),
			entry(session.TypeCustomMessage, "g", "f", 6),
		), nil},
		{"the first entry never starts a boundary", Options{}, numbered(
			branchSummary("s", "zz", 0), user("a", "s", 1, "handoff to x"),
		), []string{"a:handoff(s>)"}},
		{"first entry compaction", Options{}, numbered(
			compaction("k", "", 0), user("a", "k", 1, "hi"),
		), nil},
		{"v1 linear chain with synthetic ids", Options{}, numbered(
			user("v1-0", "", 0, "hi"), msg("v1-1", "v1-0", 1), user("v1-2", "v1-1", 2, "x"),
		), nil},
		{"missing ids everywhere", Options{}, numbered(
			user("", "", 0, "hi"), msg("", "", 1), compaction("", "", 2), user("", "", 3, "x"),
		), []string{":compaction(>)"}},
		{"unknown entry types still take part", Options{}, numbered(
			user("a", "", 0, "hi"), entry("future_thing", "f", "a", 1), msg("b", "f", 2), entry("future_thing", "g", "a", 3),
		), []string{"g:tree_jump(b>a)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describe(tt.entries, tt.opts)
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("boundaries\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDetectorMetadata(t *testing.T) {
	es := numbered(
		user("a", "", 0, "hi"), msg("b", "a", 1),
		compaction("k", "b", 13.37), // resume 12.4 min
		branchSummary("s", "", 14),
		custom("h", "s", 15, "handoff", `{"target":"reviewer"}`),
		custom("h2", "h", 16, "handoff", `"plain"`),
		custom("h3", "h2", 17, "handoff", ``),
		user("u", "h3", 18, "first line\n  please hand off to Bob now  \nthanks"),
		user("c", "u", 19, "/HANDOFF do it\nmore"),
		label("L", "c", "c", 60), user("d", "L", 61, "back"),
	)
	d := NewDetector(DefaultOptions())
	got := map[string]map[string]any{}
	for i := range es {
		for _, b := range d.Add(&es[i]) {
			got[b.EntryID+":"+string(b.Type)] = b.Metadata
		}
	}
	want := map[string]map[string]any{
		"k:compaction": {"summary": "so far: Y", "tokensBefore": int64(123456), "firstKeptEntryId": "b"},
		"k:resume":     {"gapMinutes": 12.4},
		"s:branch":     {"summary": "tried X, it failed", "fromId": "root"},
		"h:handoff":    {"reason": "reviewer"},
		"h2:handoff":   {"reason": "plain"},
		"h3:handoff":   {"reason": "custom handoff entry"},
		"u:handoff":    {"reason": "please hand off to Bob now"},
		"c:handoff":    {"reason": "/HANDOFF do it"},
		"L:resume":     {"gapMinutes": 41.0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("metadata\n got %v\nwant %v", got, want)
	}
}

func TestDetectorNoPanicOnOddInput(t *testing.T) {
	d := NewDetector(Options{})
	if bs := d.Add(nil); bs != nil {
		t.Errorf("nil entry: %v", bs)
	}
	odd := []session.Entry{
		{}, {Type: session.TypeMessage}, {Type: session.TypeMessage, Message: &session.Message{Role: "user"}},
		{Type: session.TypeCustom, CustomType: "handoff", Data: json.RawMessage(`{not json`)},
		{Type: session.TypeBranchSummary}, {Type: session.TypeLabel, ParentID: "x"},
		{Type: session.TypeSessionInfo, Timestamp: at(100)}, {Type: session.TypeCompaction, Timestamp: at(200)},
		{Type: session.TypeLabel, ParentID: "y", Timestamp: at(1)},
	}
	for i := range odd {
		d.Add(&odd[i])
	}
	_ = Split(odd, Options{})
	_ = Links(Split(odd, Options{}), odd[:2]) // fewer entries than the segments count
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", 300)
	if got := clip(long); len([]rune(got)) != maxReasonRunes+1 {
		t.Errorf("clip kept %d runes", len([]rune(got)))
	}
	if clip("short") != "short" {
		t.Error("clip changed a short string")
	}
}
