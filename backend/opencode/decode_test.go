package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"rhizome/backend/session"
)

// TestDecodeStoredReadsEachRowAlone: every entry of the real sessions,
// decoded from its Raw alone as the import stores it, is the entry
// ParseDocument gave (type, id, role, content, usage, model, tool result,
// sub-agent, sidechain), but for what only other rows say (DecodeStored).
func TestDecodeStoredReadsEachRowAlone(t *testing.T) {
	docs, ss := realDocs(t)
	for _, s := range ss {
		p := parse(t, docs[s.ID], s.ID)
		raws := make([][]byte, len(p.Entries))
		for i := range p.Entries {
			raws[i] = p.Entries[i].Raw
		}
		hdr := *p.Header
		hdr.Raw = nil
		got, err := DecodeStored(hdr, s.ID, 0, raws)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		for i, g := range got {
			w := &p.Entries[i]
			if g.Seq != i || g.Type != w.Type || g.ID != w.ID || g.Sidechain != w.Sidechain || g.SubagentID != w.SubagentID ||
				g.Summary != w.Summary || g.Subtype != w.Subtype && w.Type != session.TypeCompaction || !g.Timestamp.Equal(w.Timestamp) {
				t.Errorf("%s entry %d: %s %s %v %q, parsed %s %s %v %q", s.ID, i, g.Type, g.ID, g.Sidechain, g.SubagentID, w.Type, w.ID, w.Sidechain, w.SubagentID)
				continue
			}
			if (g.Message == nil) != (w.Message == nil) {
				t.Errorf("%s entry %d: message %v, parsed %v", s.ID, i, g.Message != nil, w.Message != nil)
				continue
			}
			if w.Message == nil {
				continue
			}
			gm, wm := g.Message, w.Message
			if gm.Role != wm.Role || gm.CustomType != wm.CustomType || session.EntryText(g) != session.EntryText(w) || gm.Model != wm.Model ||
				gm.Provider != wm.Provider || gm.IsError != wm.IsError || gm.ToolCallID != wm.ToolCallID || gm.StopReason != wm.StopReason {
				t.Errorf("%s entry %d (%s): decoded %+v, parsed %+v", s.ID, i, w.ID, gm, wm)
			}
			gu, _ := json.Marshal(gm.Usage)
			wu, _ := json.Marshal(wm.Usage)
			if !bytes.Equal(gu, wu) {
				t.Errorf("%s entry %d: usage %s, parsed %s", s.ID, i, gu, wu)
			}
			if wm.Role == session.RoleToolResult && !bytes.Equal(gm.Details, wm.Details) &&
				!bytes.Contains(wm.Details, []byte(`"fullOutputBytes"`)) {
				t.Errorf("%s entry %d: details %s, parsed %s", s.ID, i, gm.Details, wm.Details)
			}
		}
	}
	if _, err := DecodeStored(session.Header{ID: "s"}, "f", 3, [][]byte{[]byte(`"text"`)}); err == nil ||
		!strings.Contains(err.Error(), "f: the stored entry 3") {
		t.Errorf("a string decoded: %v", err)
	}
}

// TestKeyStableAcrossRewrites: a user message whose turn's diffs OpenCode
// writes again, or a tool part a compaction pruned later, keeps its key; a
// message with another part, or a tool call that ran, gets a new one.
func TestKeyStableAcrossRewrites(t *testing.T) {
	x := readExpected(t)
	path := copyHome(t, false)
	d := openDB(t, path)
	before := parse(t, mustExport(t, d, x.Session), "before")
	w := writer(t, path, "")
	ctx := context.Background()
	for _, q := range []string{
		`UPDATE message SET time_updated = time_updated + 5, data = json_set(data, '$.summary', json('{"diffs":[{"file":"x.go","additions":1}]}')) WHERE session_id = '` + x.Session + `' AND json_extract(data, '$.role') = 'user'`,
		`UPDATE part SET time_updated = time_updated + 5, data = json_set(data, '$.state.time.compacted', 1796299999999) WHERE session_id = '` + x.Session + `' AND json_extract(data, '$.type') = 'tool'`,
	} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	after := parse(t, mustExport(t, d, x.Session), "after")
	if len(after.Entries) != len(before.Entries) {
		t.Fatalf("%d entries, before %d", len(after.Entries), len(before.Entries))
	}
	changed := 0
	for i := range after.Entries {
		a, b := &after.Entries[i], &before.Entries[i]
		if !bytes.Equal(a.Raw, b.Raw) {
			changed++
		}
		if Key(a, i) != Key(b, i) {
			t.Errorf("entry %d %s: key %s, before %s", i, a.ID, Key(a, i), Key(b, i))
		}
	}
	if changed < 10 {
		t.Fatalf("only %d rows rewritten", changed)
	}
	if _, err := w.ExecContext(ctx, `UPDATE part SET data = json_set(data, '$.state.output', 'other') WHERE session_id = ? AND json_extract(data, '$.type') = 'tool'`, x.Session); err != nil {
		t.Fatal(err)
	}
	again := parse(t, mustExport(t, d, x.Session), "again")
	for i := range again.Entries {
		e := &again.Entries[i]
		if e.Message != nil && e.Message.Role == session.RoleToolResult && Key(e, i) == Key(&after.Entries[i], i) {
			t.Errorf("entry %d %s: a new output keeps the key", i, e.ID)
		}
	}
}
