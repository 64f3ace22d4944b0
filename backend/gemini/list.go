package gemini

// Gemini's message list as the reader follows it: which records add a
// message, replace one, repeat one (a copy) or drop some, and what that
// makes of their entries (see the package comment, "How supersession maps
// to entries").

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// liveMsg is one message of Gemini's current list, as the reader keeps it:
// its id, the entry that stands for it when that is not an entry with its
// id (a copy under a new id: the original's; a tool-result message: its
// last result's call id), its content's fingerprint, whether it is a
// prompt (a turn starts at it) or an aside.
type liveMsg struct {
	ID     string `json:"id"`
	Entry  string `json:"entry,omitempty"`
	Sum    uint64 `json:"sum"`
	Prompt bool   `json:"prompt,omitempty"`
	Aside  bool   `json:"aside,omitempty"` // not user or gemini (info, warning, error): shown, not sent; a rewrite leaves them out
}

func (m liveMsg) entry() string {
	if m.Entry != "" {
		return m.Entry
	}
	return m.ID
}

// call is a tool call met in a gemini message: its tool, the entry of the
// message that made it, and once the tools ran its status and (for
// invoke_agent) the sub-agent's session id.
type call struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name,omitempty"`
	Msg    string `json:"msg,omitempty"`
	Status string `json:"status,omitempty"`
	Agent  string `json:"agent,omitempty"`
}

// drop counts the messages of old that a rewrite or rewind drops (kept
// false) and returns the turns whose prompt it drops: those are rolled
// back.
func (st *parseState) drop(old []liveMsg, kept []bool) []string {
	var turns []string
	for i, m := range old {
		if kept[i] || m.Aside {
			continue
		}
		st.Meta.Dropped++
		if m.Prompt {
			turns = append(turns, m.entry())
		}
	}
	return turns
}

// item is one message of a $set's list as the reader classified it.
type item struct {
	msg     msgInfo
	lm      liveMsg
	copyOf  string // the entry it repeats ("" for a new message)
	copyMsg string // the id of the message it repeats
	revised bool   // a known id with new content
}

// rewrite maps a $set whose messages list replaces Gemini's whole list: one
// entry per message (a tool-result message: per result), at the message's
// own bytes. A message whose id Gemini's list held with the same content,
// or whose content a message of the list held under another id (the tail a
// compression keeps, re-created), is a copy (DuplicateOf the entry that
// stands for it); a known id with new content is a revision; any other is
// new. What the list no longer holds is dropped: a rewrite that drops
// messages and brings a new user message is a compression (that message,
// its summary, is the compaction entry; a new <state_snapshot> is one in
// any case), one that drops prompts without a summary rolls their turns
// back (RolledBackTurns, on the line's first entry). A list of the session
// context alone right after a metadata record is the stub every run writes
// when it starts (README "Resume"): it drops nothing. Elements that are no
// message (not an object, or without an id and a type) are warnings;
// rewrite reports false, having changed nothing, when no element is a
// message.
func (f format) rewrite(st *parseState, obj []byte, at sessionlog.Pos, base int, elems []span, lastUpdated string, afterMeta bool, em *sessionlog.Emitter) bool {
	old := st.Live
	byID := make(map[string]int, len(old))
	bySum := make(map[uint64]int, len(old))
	for i, m := range old {
		byID[m.ID] = i
		bySum[m.Sum] = i
	}
	kept := make([]bool, len(old))
	inList := map[string]int{}
	items := make([]item, 0, len(elems))
	for k, el := range elems {
		b := obj[base+el.Start : base+el.End]
		field := fmt.Sprintf("$set.messages[%d]", k)
		pos := sessionlog.Pos{Line: at.Line, Offset: at.Offset + int64(base+el.Start)}
		if b[0] != '{' {
			em.Warn(pos, fmt.Sprintf("field %q: %s where a message object is expected; skipped", field, sessionlog.Kind(b[0])))
			continue
		}
		el := f.el
		if el == nil {
			el = new(wireRecord)
		}
		*el = wireRecord{}
		if err := json.Unmarshal(b, el); err != nil {
			em.Warn(pos, fieldWarning(field, err))
		}
		if el.ID == "" && el.Type == "" {
			em.Warn(pos, fmt.Sprintf("field %q: an object without an id and a type, not a message; skipped", field))
			continue
		}
		mi := f.message(st, el, b, pos, em, field, nil, st.lineID(at)+"#"+strconv.Itoa(k+1))
		it := item{msg: mi, lm: liveMsg{ID: mi.id, Sum: mi.sum, Prompt: mi.prompt, Aside: mi.aside}}
		j, inSet := inList[mi.id]
		oi, known := byID[mi.id]
		si, sameContent := bySum[mi.sum]
		switch {
		case inSet && items[j].lm.Sum == mi.sum:
			it.copyOf, it.copyMsg = items[j].lm.entry(), items[j].lm.ID
		case known && old[oi].Sum == mi.sum:
			it.copyOf, it.copyMsg = old[oi].entry(), old[oi].ID
			kept[oi] = true
		case sameContent && !mi.empty:
			it.copyOf, it.copyMsg = old[si].entry(), old[si].ID
			kept[si] = true
		case known:
			it.revised = true
			kept[oi] = true
		}
		if it.copyOf != "" && it.copyOf != mi.id {
			it.lm.Entry = it.copyOf
		}
		inList[mi.id] = len(items)
		items = append(items, it)
	}
	if len(items) == 0 {
		return false
	}
	setTime := when(lastUpdated, at, em, "$set.lastUpdated")

	contextOnly := true
	for _, it := range items {
		contextOnly = contextOnly && it.msg.context
	}
	// The list a recording starts with: over a list the file already has,
	// the stub of a resume.
	start := afterMeta && contextOnly
	stub := start && len(old) > 0
	// The summaries: a new <state_snapshot> (also alone: its text says
	// it); else, when the rewrite drops messages, its first new user text
	// (decoded alone, that one is the user message it looks like).
	var rolled []string
	summaries := map[int]bool{}
	if !start {
		dropped := false
		for i, m := range old {
			dropped = dropped || !kept[i] && !m.Aside
		}
		for i, it := range items {
			if it.copyOf == "" && it.msg.snapshot {
				summaries[i] = true
			}
		}
		for i, it := range items {
			if len(summaries) == 0 && dropped && it.copyOf == "" && !it.revised && it.msg.userText && !it.msg.context {
				summaries[i] = true
			}
		}
		before := st.Meta.Dropped
		rolled = st.drop(old, kept)
		if len(summaries) == 0 && len(rolled) > 0 {
			st.Meta.Rollbacks++
		}
		if len(summaries) > 0 && st.Meta.Dropped > before {
			// What a compression summarised is history, not rolled back.
			rolled = nil
		}
		st.Meta.Rewrites++
	}

	// Emit, chaining the list's entries in its order.
	tipBefore := st.Tip
	prev, turn := "", ""
	first := true
	live := make([]liveMsg, 0, len(items))
	var results []uint64 // the list's results: what later copies may repeat
	for i := range items {
		it := &items[i]
		mi := &it.msg
		standsFor := it.lm.entry()
		if mi.prompt {
			turn = standsFor
		}
		for _, e := range mi.entries {
			e.ParentID, e.TurnID = prev, turn
			if first {
				e.RolledBackTurns = rolled
				first = false
			}
		}
		switch {
		case mi.results:
			// A copy of a known tool-result message repeats its results;
			// another message's results are copies by call id.
			last := ""
			for k, e := range mi.entries {
				id := e.Message.ToolCallID
				if id != "" {
					results = append(results, idSum(id))
				}
				if it.copyOf != "" || id != "" && st.knownResult(id) {
					e.DuplicateOf = e.ID
					if id == "" && it.copyMsg != "" {
						e.DuplicateOf = it.copyMsg + "#" + strconv.Itoa(k+1) // the original's result at the same place
					}
					st.Meta.Copies++
				} else {
					if id != "" {
						st.addResult(id)
					}
					st.counted(e, mi)
				}
				last = e.ID
				copyTime(e, setTime)
			}
			if last != "" && last != it.lm.ID {
				it.lm.Entry, standsFor = last, last
			}
		case it.copyOf != "":
			for _, e := range mi.entries {
				e.DuplicateOf = it.copyOf
				copyTime(e, setTime)
			}
			st.Meta.Copies++
		default:
			if it.revised {
				st.Meta.Revisions++
			}
			e := mi.entries[0]
			if summaries[i] {
				st.compaction(e, tipBefore, items[i+1:])
			}
			if e.Timestamp.IsZero() {
				e.Timestamp = setTime
			}
			st.counted(e, mi)
		}
		for _, e := range mi.entries {
			st.emit(em, e)
		}
		if len(mi.entries) > 0 {
			prev = standsFor
		}
		live = append(live, it.lm)
	}
	if stub {
		// Gemini's list is written back in full right after: the list
		// stands, with the session context as the stub has it.
		for _, m := range live {
			if i := st.findLive(m.ID); i >= 0 && st.Live[i] != m {
				st.setLive(i, m)
			}
		}
		return true
	}
	if len(live) > maxLive {
		live = live[len(live)-maxLive:]
	}
	slices.Sort(results)
	st.Live, st.Tip, st.Turn, st.Results = live, prev, turn, slices.Compact(results)
	return true
}

// copyTime gives a copy the time of the rewrite that wrote it (its own is
// the original's, in Message.Timestamp): the conversation did not go back
// in time.
func copyTime(e *session.Entry, t time.Time) {
	if !t.IsZero() {
		e.Timestamp = t
	}
}

// compaction makes the summary message of a compression a compaction entry:
// Summary its text, FirstKeptEntryID the first message the compression
// kept (after the model's acknowledgement), TokensBefore the prompt tokens
// of the last response before it, under the last message before it.
func (st *parseState) compaction(e *session.Entry, tip string, rest []item) {
	e.Type, e.Summary, e.TokensBefore, e.ParentID = session.TypeCompaction, session.JoinText(e.Message.Content), st.LastInput, tip
	e.Message = nil
	for _, it := range rest {
		if it.copyOf != "" {
			e.FirstKeptEntryID = it.copyOf
			break
		}
	}
	st.Meta.Compressions++
}

// counted notes a message entry that counts (not a copy): its model and
// usage, prompts and responses.
func (st *parseState) counted(e *session.Entry, mi *msgInfo) {
	if e.Replayed {
		st.Meta.Replayed++
		return
	}
	m := e.Message
	if m == nil {
		return
	}
	switch {
	case mi.prompt:
		st.Meta.Prompts++
	case m.Role == session.RoleAssistant && mi.typ == "gemini":
		st.Meta.Responses++
		if m.Model != "" {
			st.Meta.addModel(m.Model)
			st.Model = m.Model
			if st.FirstModel == "" {
				st.FirstModel = m.Model
			}
		}
		if m.Usage != nil {
			st.Meta.Usage.add(m.Usage, 1)
			st.LastInput = mi.tokens.Input
		}
	case m.Role == session.RoleToolResult:
		if m.IsError {
			st.Meta.ToolErrors++
		}
		if e.SubagentID != "" {
			st.Meta.Subagents++
		}
	}
}

// findLive returns the index of the message id in Gemini's current list
// (the last one with it), -1 when it is not there.
func (st *parseState) findLive(id string) int {
	for i := len(st.Live) - 1; i >= 0; i-- {
		if st.Live[i].ID == id {
			return i
		}
	}
	return -1
}

// setLive replaces message i of the list (a copy of it: earlier states
// keep theirs).
func (st *parseState) setLive(i int, m liveMsg) {
	st.Live = slices.Clone(st.Live)
	st.Live[i] = m
}

func (st *parseState) appendLive(m liveMsg) {
	if len(st.Live) >= maxLive {
		st.Live = slices.Clone(st.Live[len(st.Live)-maxLive+1:])
	}
	st.Live = append(st.Live, m)
}

// messageLine maps a message record written as a line. A gemini message's
// entry is held until the next message record: Gemini CLI writes a
// response that calls tools twice with one id, before the tools run and
// after, with toolCalls; the later copy wins (README "Records"). The held
// first copy then names the later one (DuplicateOf: counted once, with its
// tool calls). Another line with a known id repeats it (a copy) or revises
// it; tool results of calls whose result has an entry are copies. After an
// "Imported session from" info message, the messages up to the first $set
// are the imported session's (Replayed).
func (f format) messageLine(st *parseState, rec *wireRecord, obj []byte, at sessionlog.Pos, em *sessionlog.Emitter) {
	heldID := st.Held
	held := heldID != "" && heldID == rec.ID && rec.Type == "gemini"
	var patch *session.Entry
	if held {
		for _, h := range slices.Backward(em.Held()) {
			if h.ID == heldID && h.DuplicateOf == "" && h.Message != nil && h.Message.Role == session.RoleAssistant {
				patch = h
				break
			}
		}
	}
	mi := f.message(st, rec, obj, at, em, "", em, st.lineID(at))
	lm := liveMsg{ID: mi.id, Sum: mi.sum, Prompt: mi.prompt, Aside: mi.aside}
	idx := st.findLive(mi.id)
	if mi.results {
		copied := idx >= 0 && st.Live[idx].Sum == mi.sum
		for _, e := range mi.entries {
			e.TurnID = st.Turn
			id := e.Message.ToolCallID
			e.ParentID = st.callMsg(id)
			if e.ParentID == "" {
				e.ParentID = st.Tip
			}
			switch {
			case st.Importing:
				e.Replayed = true
				if id != "" {
					st.addResult(id)
				}
				st.counted(e, &mi)
			case copied || id != "" && st.knownResult(id):
				e.DuplicateOf = e.ID
				st.Meta.Copies++
			default:
				if id != "" {
					st.addResult(id)
				}
				st.counted(e, &mi)
				st.Tip = e.ID
			}
			lm.Entry = e.ID
		}
		if lm.Entry == lm.ID {
			lm.Entry = ""
		}
		if idx < 0 {
			st.appendLive(lm)
		}
		st.release(em)
		for _, e := range mi.entries {
			st.emit(em, e)
		}
		return
	}

	e := mi.entries[0]
	if mi.prompt && (idx < 0 || st.Live[idx].Sum != mi.sum || st.Importing) {
		st.Turn = e.ID // a prompt starts its turn
	}
	e.ParentID, e.TurnID = st.Tip, st.Turn
	switch {
	case held && st.HeldCounts:
		// The later copy of the held response: it stands for both.
		e.ParentID = st.HeldParent
		if patch != nil {
			patch.DuplicateOf = mi.id
		}
		st.Meta.Superseded++
		st.Meta.Responses--
		if st.HeldUsage != nil {
			st.Meta.Usage.add(st.HeldUsage.Usage(), -1)
		}
		st.counted(e, &mi)
		if idx >= 0 {
			st.setLive(idx, lm)
		} else {
			st.appendLive(lm)
		}
		st.Tip = e.ID
	case st.Importing:
		e.Replayed = true
		st.counted(e, &mi)
		if idx < 0 {
			st.appendLive(lm)
		}
		st.Tip = e.ID
	case idx >= 0 && st.Live[idx].Sum == mi.sum:
		e.DuplicateOf = st.Live[idx].entry()
		st.Meta.Copies++
	default:
		if idx >= 0 {
			st.Meta.Revisions++
			st.setLive(idx, lm)
		} else {
			st.appendLive(lm)
		}
		if mi.snapshot {
			st.compaction(e, st.Tip, nil)
		}
		st.counted(e, &mi)
		st.Tip = e.ID
	}
	if mi.importedFrom != "" {
		st.Importing = true
		st.Meta.ImportedFrom = mi.importedFrom
		if st.ParentSession == "" {
			st.ParentSession = mi.importedFrom
		}
	}
	countsNow := e.DuplicateOf == "" && !e.Replayed
	st.release(em)
	st.emit(em, e)
	if mi.typ == "gemini" && e.Type == session.TypeMessage {
		st.Held, st.HeldParent, st.HeldCounts = mi.id, e.ParentID, countsNow
		if countsNow {
			st.HeldUsage = mi.tokens // never changed after: copies of the state share it
		}
		em.Hold()
	}
}

// fingerprint is the FNV-64a hash of what a copy of a message repeats
// whatever form Gemini CLI wrote it in (a line: a string and toolCalls; a
// rewrite: a list of parts): its kind, its text without the thoughts, and
// its tool call ids.
func fingerprint(kind, text string, ids []string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(text))
	for _, id := range ids {
		h.Write([]byte{0})
		h.Write([]byte(id))
	}
	return h.Sum64()
}

func idSum(id string) uint64 { return fingerprint("call", id, nil) }

// knownResult reports whether the result of call id has an entry.
func (st *parseState) knownResult(id string) bool {
	_, ok := slices.BinarySearch(st.Results, idSum(id))
	return ok
}

func (st *parseState) addResult(id string) {
	s := idSum(id)
	i, ok := slices.BinarySearch(st.Results, s)
	if ok {
		return
	}
	st.Results = slices.Insert(slices.Clip(st.Results), i, s)
}

// addCall notes a tool call; a call already noted takes the fields c
// brings.
func (st *parseState) addCall(c call) {
	if c.ID == "" {
		return
	}
	for i := range st.Calls {
		if p := &st.Calls[i]; p.ID == c.ID {
			if c.Name != "" {
				p.Name = c.Name
			}
			if p.Msg == "" {
				p.Msg = c.Msg // the message that made the call, not a copy's
			}
			if c.Status != "" {
				p.Status = c.Status
			}
			if c.Agent != "" {
				p.Agent = c.Agent
			}
			return
		}
	}
	st.Calls[st.CallsAt] = c
	st.CallsAt = (st.CallsAt + 1) % callSlots
}

func (st *parseState) call(id string) call {
	if id == "" {
		return call{}
	}
	for _, c := range st.Calls {
		if c.ID == id {
			return c
		}
	}
	return call{}
}

// callMsg is the entry of the message that made call id, "" when unknown.
func (st *parseState) callMsg(id string) string { return st.call(id).Msg }
