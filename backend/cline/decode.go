package cline

import (
	"encoding/json"
	"fmt"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
)

// DecodeStored decodes entries the import stored from a Cline conversation,
// each from its Raw alone (a message, or a whole compaction document), in
// order: the first gets Seq firstSeq; hdr is the stored header (a
// sub-agent's AgentID makes them Sidechain), file names the conversation in
// errors. A decode alone gives the entry Read gave but for what other
// messages said: the first one's ParentID and TurnID, a tool result's
// SubagentID (the import stored it beside the entry), and its Line and
// Offset in the document.
func DecodeStored(hdr session.Header, file string, firstSeq int, raws [][]byte) ([]*session.Entry, error) {
	d := &decoder{file: file, calls: map[string]call{}, used: map[string]bool{}}
	if hdr.AgentID != "" {
		d.sub, d.agentID, d.rootID = true, hdr.AgentID, hdr.ParentSession
	}
	out := make([]*session.Entry, 0, len(raws))
	for i, raw := range raws {
		var e *session.Entry
		if isCompaction(raw) {
			var c wireCompaction
			if err := json.Unmarshal(raw, &c); err != nil {
				return nil, fmt.Errorf("cline: %s: the stored entry %d: %w", file, firstSeq+i, err)
			}
			c.Raw = raw
			e = d.compaction(&c, nil, nil, file).Entry
		} else {
			it, reason := d.message(raw, 0, 0, 0)
			if reason != "" {
				return nil, fmt.Errorf("cline: %s: the stored entry %d: %s", file, firstSeq+i, reason)
			}
			e = it.Entry
		}
		e.Seq = firstSeq + i
		out = append(out, e)
	}
	return out, nil
}

// isCompaction reports whether a stored Raw is a compaction document (its
// top level has source_message_count), not a message.
func isCompaction(raw []byte) bool {
	ms, ok := sessiondoc.Members(raw, sessiondoc.Span{Start: 0, End: len(raw)})
	if !ok {
		return false
	}
	_, has := sessiondoc.Find(ms, "source_message_count")
	return has
}
