package opencode

// Stored entries: what the import keeps of an entry (its Raw, a row of the
// document) decoded again alone, and the key that names an entry across
// exports (the document seam's, backend/sessiondoc).

import (
	"encoding/json"
	"fmt"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
	"rhizome/backend/sessionlog"
)

// DecodeStored decodes entries the import stored from OpenCode session
// documents, each from its Raw alone (a message row with its parts and
// files, a tool part row, or the todo list), in order: the first gets Seq
// firstSeq, each ParentID is the one before it; hdr is the stored header
// (a sub-agent's AgentID makes them Sidechain), file names the session in
// errors. A decode alone gives the entry ParseDocument gave but for what
// other rows said: the first one's ParentID, a tool result's TurnID (taken
// from the entry before it) and the size of its full output's file (its
// name is kept), a compaction's Subtype and TokensBefore (its request
// and the response before it said), a fork's Replayed and a
// replayed prompt's DuplicateOf (the import keeps those beside the entry),
// and the Line and Offset in the document.
func DecodeStored(hdr session.Header, file string, firstSeq int, raws [][]byte) ([]*session.Entry, error) {
	out := make([]*session.Entry, 0, len(raws))
	prev, turn := "", ""
	for i, raw := range raws {
		e, err := decodeRow(hdr, file, raw)
		if err != nil {
			return nil, fmt.Errorf("opencode: %s: the stored entry %d: %w", file, firstSeq+i, err)
		}
		e.Seq = firstSeq + i
		e.ParentID, prev = prev, e.ID
		if e.TurnID == "" {
			e.TurnID = turn
		}
		turn = e.TurnID
		out = append(out, e)
	}
	return out, nil
}

// decodeRow decodes one stored row: it is read as the only row of a
// document of session hdr.
func decodeRow(hdr session.Header, file string, raw []byte) (*session.Entry, error) {
	w := &walker{doc: raw, name: file}
	s := &wireSession{ID: hdr.ID}
	if hdr.AgentID != "" && hdr.ParentSession != "" {
		parent := hdr.ParentSession
		s.ParentID = &parent
	}
	d := &document{formatSeen: true, format: DocumentFormat, session: s}
	at, c := w.next()
	want := ""
	switch c {
	case '[':
		var todos []wireTodo
		if err := json.Unmarshal(raw, &todos); err != nil {
			return nil, fmt.Errorf("the todo list: %v", err)
		}
		d.todos, d.todosAt, want = todos, span{at, int64(len(raw))}, TodosID
	case '{':
		var row struct {
			ID        string `json:"id"`
			MessageID string `json:"message_id"`
		}
		if err := json.Unmarshal(raw, &row); err != nil {
			return nil, fmt.Errorf("not a row: %v", err)
		}
		if row.MessageID != "" {
			// A tool part: its result, read in an assistant message of
			// its own.
			var pr wirePartRow
			if err := json.Unmarshal(raw, &pr); err != nil {
				return nil, fmt.Errorf("part %s: %v", row.ID, err)
			}
			sp := span{at, int64(len(raw))}
			d.messages = []docMessage{{at: sp, id: pr.MessageID, hasData: true, data: wireMessage{Role: "assistant"},
				parts: []docPart{{at: sp, row: pr}}}}
			want = pr.ID
			break
		}
		m, err := w.message(0, at, c)
		if err != nil {
			return nil, fmt.Errorf("message %s: %v", row.ID, err)
		}
		if m == nil || m.bad != "" {
			why := "not a message row"
			if m != nil {
				why = m.bad
			}
			return nil, fmt.Errorf("message %s: %s", row.ID, why)
		}
		d.messages, want = []docMessage{*m}, m.id
	default:
		return nil, fmt.Errorf("%s, not a row", sessionlog.Kind(c))
	}
	mp := newMapper(w, d)
	mp.alone = true
	p := mp.run()
	for i := range p.Entries {
		if e := &p.Entries[i]; e.ID == want {
			out := *e
			return &out, nil
		}
	}
	if len(p.Problems) > 0 {
		return nil, fmt.Errorf("%s", p.Problems[0].Reason)
	}
	return nil, fmt.Errorf("row %s gives no entry", want)
}

// Key is the key of entry e, the index-th of its document, across exports
// (sessiondoc.Key): its id and a hash of its Raw without what OpenCode
// writes again in a row it has finished: the rows' time_updated, a user
// message's summary (the files its turn changed, written again after each
// step of the turn) and a tool part's state.time.compacted (set when a
// later compaction prunes the output). A message whose content changed (a
// part added, a tool call that ran, a new answer) gets another key, so
// that the import keeps both versions; one whose summary moved keeps its
// key, and the entry keeps the bytes first read (the document kept whole
// has the latest).
func Key(e *session.Entry, index int) string {
	return sessiondoc.Key(e.ID, index, stableRaw(e.Raw))
}

// stableRaw is raw, a row as the document holds it, without the members
// Key leaves out: the bytes Key hashes, each kept member as its key and
// value (raw itself when it is not a row). It reads the row's structure by
// byte spans, without decoding it: a re-read computes every entry's key.
func stableRaw(raw []byte) []byte {
	whole := sessiondoc.Span{Start: 0, End: len(raw)}
	top, ok := sessiondoc.Members(raw, whole)
	if !ok {
		return raw // the todo list: every change is a new list
	}
	out := make([]byte, 0, len(raw))
	if !stripRow(&out, raw, top) {
		return raw
	}
	return out
}

// stripRow appends to out the members of a message or part row (ms, in
// raw) but those OpenCode writes again once the row is finished (Key): its
// time_updated, a user message's data.summary, a tool part's
// data.state.time.compacted; a message's parts the same way. ok is false
// for a row not shaped as OpenCode writes it.
func stripRow(out *[]byte, raw []byte, ms []sessiondoc.Member) bool {
	for _, m := range ms {
		switch m.Key {
		case "time_updated":
			continue
		case "data":
			data, ok := sessiondoc.Members(raw, m.Val)
			if !ok {
				break // not an object: kept as it is
			}
			appendKey(out, m.Key)
			role, _ := sessiondoc.Find(data, "role")
			user := string(raw[role.Start:role.End]) == `"user"`
			for _, d := range data {
				switch {
				case d.Key == "summary" && user:
					continue
				case d.Key == "state":
					if st, ok := sessiondoc.Members(raw, d.Val); ok {
						appendKey(out, d.Key)
						for _, x := range st {
							if x.Key == "time" {
								if tm, ok := sessiondoc.Members(raw, x.Val); ok {
									appendKey(out, x.Key)
									for _, y := range tm {
										if y.Key != "compacted" {
											appendMember(out, raw, y)
										}
									}
									continue
								}
							}
							appendMember(out, raw, x)
						}
						continue
					}
				}
				appendMember(out, raw, d)
			}
			continue
		case "parts":
			parts, ok := sessiondoc.Elements(raw, m.Val)
			if !ok {
				break
			}
			appendKey(out, m.Key)
			for _, sp := range parts {
				pm, ok := sessiondoc.Members(raw, sp)
				if !ok || !stripRow(out, raw, pm) {
					*out = append(*out, raw[sp.Start:sp.End]...)
				}
				*out = append(*out, ',')
			}
			continue
		}
		appendMember(out, raw, m)
	}
	return true
}

// appendKey appends a member's key, as the hash's input names it.
func appendKey(out *[]byte, key string) {
	*out = append(*out, '"')
	*out = append(*out, key...)
	*out = append(*out, '"', ':')
}

// appendMember appends a member: its key and its value's bytes.
func appendMember(out *[]byte, raw []byte, m sessiondoc.Member) {
	appendKey(out, m.Key)
	*out = append(*out, raw[m.Val.Start:m.Val.End]...)
	*out = append(*out, ',')
}
