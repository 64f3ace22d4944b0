package cline

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
)

// FuzzRead reads arbitrary input as a conversation (and as the compaction
// beside one) and checks the reader's promises: no panic; an error is
// sessiondoc.ErrIncomplete or a *sessiondoc.SyntaxError; a message entry's
// Raw is the input at its Offset; problems lie inside the input; each
// entry's Raw decodes alone (DecodeStored) into one entry of the same type
// and id; a second read of the same document adds nothing and drops
// nothing (sessiondoc.Diff); a read against the state stored from the
// document's first messages, or from all, gives what Read gives but the
// entries of the items stored (ReadKnown, rereadAgrees).
func FuzzRead(f *testing.F) {
	for _, p := range realDocs(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	for _, s := range []string{"", "{", "[]", "\x00\xff", envelopeOf(prompt + ",\n" + answer), envelopeOf(`5, {"role": 1}, {"role": "user", "content": "x"}`),
		`{"sessionId":"s","agent":"lead","messages":[{"role":"user","content":[{"type":"tool_result","content":"{\"result\":1}"}]}]}`,
		`{"conversation_id":"c","source_message_count":0,"messages":[{"role":"user","content":"s","metadata":{"kind":"compaction"}}]}`} {
		f.Add([]byte(s))
	}
	f.Add([]byte(envelopeOf(strings.Join(oddMessages, ",\n"))))
	comp, _ := os.ReadFile("testdata/cline-home/sessions/" + auto + "/" + auto + ".compaction.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data, Side{})
		check(t, data, Side{Compaction: data})
		check(t, data, Side{Subagents: oddSubagents})
		if d, err := Read(comp, "c", Side{Compaction: data}); err == nil && d == nil {
			t.Fatal("no document")
		}
	})
}

func check(t *testing.T, data []byte, side Side) {
	d, err := Read(data, "f", side)
	if err != nil {
		var se *sessiondoc.SyntaxError
		if !errors.Is(err, sessiondoc.ErrIncomplete) && !errors.As(err, &se) {
			t.Fatalf("error %v (%T)", err, err)
		}
		return
	}
	raws := make([][]byte, len(d.Items))
	for i, it := range d.Items {
		e := it.Entry
		raws[i] = e.Raw
		if e.Type == session.TypeMessage && (e.Offset < 0 || e.Offset+int64(len(e.Raw)) > int64(len(data)) || !bytes.Equal(data[e.Offset:e.Offset+int64(len(e.Raw))], e.Raw)) {
			t.Fatalf("item %d: Raw is not the input at %d", i, e.Offset)
		}
	}
	for _, p := range d.Problems {
		if p.Offset < 0 || p.Offset >= int64(len(data)) || p.Line < 1 {
			t.Fatalf("problem outside the input: %+v", p)
		}
	}
	got, err := DecodeStored(d.Header, "f", 0, raws)
	if err != nil {
		t.Fatalf("stored entries: %v", err)
	}
	for i, g := range got {
		if w := d.Items[i].Entry; g.Type != w.Type || g.ID != w.ID {
			t.Fatalf("entry %d: %s %s decodes alone as %s %s", i, w.Type, w.ID, g.Type, g.ID)
		}
	}
	ch := sessiondoc.State{}.Diff(d)
	d2, err := Read(data, "f", side)
	if err != nil {
		t.Fatal(err)
	}
	if again := ch.Next.Diff(d2); len(again.Fresh)+len(again.Dropped)+len(again.Back) != 0 || len(ch.Fresh) != len(d.Items) {
		t.Fatalf("read again: %d fresh, %d dropped", len(again.Fresh), len(again.Dropped))
	}
	for _, k := range []int{0, len(d.Items) / 2, len(d.Items) + len(d.Problems)} {
		rereadAgrees(t, fmt.Sprintf("the first %d messages then all", k), rewrite(t, data, firstMessages(k)), side, data, side)
	}
}
