// Package cline reads Cline CLI sessions (~/.cline/data/sessions/<id>/, as
// Cline CLI 3.0.65 writes them: see testdata/generate/README.md) as
// backend/session entries, through the document seam (backend/sessiondoc):
// a session's conversation, <id>.messages.json, is one JSON document Cline
// rewrites whole after every step, read whole into a sessiondoc.Doc. What
// lies beside it says the rest (Side): the manifest <id>.json (title,
// working directory, provider and model, status), the compacted view
// <id>.compaction.json, a sub-agent's conversation
// <agentId>.messages.json in its root session's folder, and the row of
// the session in the SQLite index db/sessions.db (ReadIndex, opened
// read-only).
//
//	document                                  entry (Entry.Type)   Message.Role / notes
//
//	message role "user", text blocks         message              user: the prompt, its <user_input mode="…">
//	                                                               wrapper taken off (Raw keeps it); TurnID its id
//	message role "user", tool_result blocks  message              toolResult: ToolCallID, ToolName, content = the
//	                                                               result's text (a list of {query, result,
//	                                                               success, error} items, or a JSON string of one),
//	                                                               IsError (is_error, or an item that did not
//	                                                               succeed), Details = the block's content;
//	                                                               SubagentID = the sub-agent a spawn_agent call
//	                                                               started (by its task, Side.Subagents)
//	message role "assistant"                 message              assistant: thinking, text, toolCall (tool_use
//	                                                               id, name, input); Model and Provider
//	                                                               (modelInfo); Usage (metrics; Cost when Cline
//	                                                               priced it); StopReason toolUse or stop
//	message with metadata.displayRole error  message              assistant, StopReason error, ErrorMessage
//	message with metadata.kind compaction    compaction           Summary (metadata.summary, else its text),
//	  or compaction_summary                                       TokensBefore, Details
//	<id>.compaction.json                     compaction           placed before message source_message_count
//	                                                               (none while the document holds fewer):
//	                                                               Raw the whole compaction document, Summary the
//	                                                               summary message's, FirstKeptEntryID the first
//	                                                               message of the compacted view with an id,
//	                                                               TokensBefore (tokensBefore, or the overflow's
//	                                                               usageBefore.inputTokens)
//	message of another role R                message              custom, CustomType "cline:R"
//
// Ids: a message's id (a UUID for a typed prompt, msg_… for the others,
// error_… for an API error); a message without one "m-<hash>" (its key
// has its index too: sessiondoc.Key); a compaction
// "compaction-<source_message_count>-<hash>". Each entry's
// ParentID is the entry before it, its TurnID the prompt being answered.
// A sub-agent's file is Sidechain throughout: its header's AgentID is the
// agent id and ParentSession the root session's id.
//
// A re-read against what the library holds (ReadKnown with the State's
// sessiondoc.Known) decodes only the new messages: a stored one keeps its
// key and no entry, and is only scanned for what the messages after it
// depend on (known.go).
//
// A message with a wrong type in one of its fields is left out, reported
// as a problem naming the document, the line, the byte, the message's
// index and the field; the others are read. A document that breaks off is
// sessiondoc.ErrIncomplete; one that is not JSON, or whose top level or
// "messages" has the wrong type, a *sessiondoc.SyntaxError.
//
// The package's files: reader.go (Read, ReadKnown), message.go (a message
// to an entry), known.go (a stored message scanned, not decoded), side.go
// (what lies beside the document), index.go (db/sessions.db), wire.go (the
// JSON shapes).
package cline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
)

// Format is the format's name, as backend/sessionformat names it.
const Format = "cline"

// CustomPrefix starts the CustomType of a message of a role Cline has and
// Rhizome's model has not ("cline:system").
const CustomPrefix = "cline:"

// Read reads the Cline conversation document doc (its <id>.messages.json
// bytes), named name in problems and errors, with what lies beside it
// (side; the zero Side for a document alone). The error matches
// sessiondoc.ErrIncomplete for a document that breaks off (the Doc then
// has the header's id when the document got that far), or is a
// *sessiondoc.SyntaxError. Read is ReadKnown knowing nothing.
func Read(doc []byte, name string, side Side) (*sessiondoc.Doc, error) {
	return ReadKnown(doc, name, side, nil)
}

// ReadKnown is Read of a document the library holds some of (known, from
// the State it holds: sessiondoc.State.Known): a known item (a message or
// compaction whose key known says is stored) has its Key and a nil Entry,
// and a known message is not decoded, only scanned for what the messages
// after it depend on (known.go); everything else (the header, title,
// models, record, fingerprint, problems, and every other item's Entry) is
// what Read gives. known nil knows nothing: every item is decoded.
func ReadKnown(doc []byte, name string, side Side, known *sessiondoc.Known) (*sessiondoc.Doc, error) {
	if len(doc) > sessiondoc.MaxBytes {
		return nil, &sessiondoc.SyntaxError{File: name, Line: 1, Msg: fmt.Sprintf("a document of %d MB: the largest Rhizome reads is %d MB", len(doc)>>20, sessiondoc.MaxBytes>>20)}
	}
	top, err := sessiondoc.CheckOutline(doc, name)
	if err != nil {
		out := &sessiondoc.Doc{}
		out.Header.ID, _ = partialID(doc)
		out.Header.Format = Format
		return out, err
	}
	env, msgs, err := envelope(doc, name, top)
	if err != nil {
		return nil, err
	}
	d := newDecoder(name, env, side)
	out := &sessiondoc.Doc{Record: side.Manifest}
	comp := side.compaction()
	lines := sessiondoc.NewLines(doc)
	placed := false
	placeCompaction := func() {
		it := d.compaction(comp, msgs, doc, side.CompactionName)
		if known.Next(it.Key) {
			it.Entry = nil
		}
		out.Items = append(out.Items, it)
		placed = true
	}
	for i, sp := range msgs {
		if comp != nil && !placed && i >= comp.SourceMessageCount {
			placeCompaction()
		}
		raw := doc[sp.Start:sp.End]
		line := lines.At(sp.Start)
		asked := false
		if known != nil {
			key, a, stored := d.known(raw, i, known)
			if stored {
				out.Items = append(out.Items, sessiondoc.Item{Key: key})
				continue
			}
			asked = a
		}
		it, reason := d.message(raw, i, int64(sp.Start), line)
		if reason != "" {
			out.Problems = append(out.Problems, session.Problem{File: name, Line: line, Offset: int64(sp.Start),
				Reason: fmt.Sprintf("messages[%d]: %s; the message is left out", i, reason)})
			continue
		}
		if !asked && known.Next(it.Key) {
			it.Entry = nil // stored, but it did not scan: decoded for the state
		}
		out.Items = append(out.Items, it)
	}
	if comp != nil && !placed && comp.SourceMessageCount <= len(msgs) {
		// Compacted after the last message (a compaction that names more
		// messages than the document holds is not this document's).
		placeCompaction()
	}
	out.Header = d.header(env, side) // after the messages: the first one's time
	out.Title = side.title(d.sub)
	out.Models = d.models
	out.Fingerprint = fingerprint(doc, side)
	return out, nil
}

// ReadFile reads the conversation document at path with what lies beside
// it on disk (SideOf; the index row is left out).
func ReadFile(path string) (*sessiondoc.Doc, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cline: %w", err)
	}
	return Read(doc, path, SideOf(path))
}

// env is the envelope of a messages document: everything but its messages
// and system prompt.
type env struct {
	Version   int        `json:"version"`
	UpdatedAt string     `json:"updated_at"`
	Agent     string     `json:"agent"`
	SessionID string     `json:"sessionId"`
	TaskType  string     `json:"taskType"`
	Origin    wireOrigin `json:"origin"`
}

// envelope decodes the document's top level (a checked document, top its
// outline), member by member: the messages are not decoded here (their
// spans are returned), the system prompt not at all. A top level that is
// not an object, a "messages" that is not a list, or an envelope field of
// the wrong type is a *sessiondoc.SyntaxError naming it.
func envelope(doc []byte, name string, top *sessiondoc.Outline) (env, []sessiondoc.Span, error) {
	var e env
	if !top.Object {
		at := int64(len(doc) - len(bytes.TrimLeft(doc, " \t\r\n\ufeff")))
		kind := "nothing"
		if at < int64(len(doc)) {
			kind = sessiondoc.Kind(doc[at])
		}
		return e, nil, &sessiondoc.SyntaxError{File: name, Offset: at, Line: sessiondoc.LineOf(doc, at),
			Msg: "not a Cline conversation: a " + kind + " where an object {sessionId, messages, …} is expected"}
	}
	bad := func(key string, v sessiondoc.Span, want string) error {
		return &sessiondoc.SyntaxError{File: name, Offset: int64(v.Start), Line: sessiondoc.LineOf(doc, int64(v.Start)),
			Msg: fmt.Sprintf("field %q: %s where %s is expected", key, sessiondoc.Kind(doc[v.Start]), want)}
	}
	var msgs []sessiondoc.Span
	hasMsgs := false
	for j, m := range top.Members {
		v := doc[m.Val.Start:m.Val.End]
		var dst any
		want := "a string"
		switch m.Key {
		case "messages":
			if string(v) == "null" {
				continue
			}
			if v[0] != '[' {
				return e, nil, bad(m.Key, m.Val, "a list of messages")
			}
			msgs, hasMsgs = top.Elements[j], true
			continue
		case "version":
			dst, want = &e.Version, "a number"
		case "updated_at":
			dst = &e.UpdatedAt
		case "agent":
			dst = &e.Agent
		case "sessionId":
			dst = &e.SessionID
		case "taskType":
			dst = &e.TaskType
		case "origin":
			dst, want = &e.Origin, "an object {source, mode, sessionId, version}"
		}
		if dst != nil && string(v) != "null" && json.Unmarshal(v, dst) != nil {
			return e, nil, bad(m.Key, m.Val, want)
		}
	}
	if e.SessionID == "" {
		e.SessionID = e.Origin.SessionID
	}
	if e.SessionID == "" {
		return e, nil, &sessiondoc.SyntaxError{File: name, Line: 1, Msg: `not a Cline conversation: no "sessionId"`}
	}
	if !hasMsgs && e.Agent == "" {
		return e, nil, &sessiondoc.SyntaxError{File: name, Line: 1, Msg: `not a Cline conversation: no "messages" and no "agent"`}
	}
	return e, msgs, nil
}

// partialID is the "sessionId" of a document that breaks off, when it got
// that far (Cline writes it before the messages).
func partialID(doc []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := t.(string)
		if key == "messages" {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if key == "sessionId" {
			var id string
			if json.Unmarshal(v, &id) == nil && id != "" {
				return id, true
			}
		}
	}
	return "", false
}

// header is the session's header: its id, when it started, its working
// directory, provider and first model (the manifest, else the index row),
// and for a sub-agent its agent id and root session.
func (d *decoder) header(e env, side Side) session.Header {
	h := session.Header{Type: "session", Version: e.Version, ID: e.SessionID, Format: Format, AgentVersion: e.Origin.Version}
	man := side.manifest()
	row := side.Row
	switch {
	case man != nil && man.StartedAt != "" && !d.sub:
		h.Timestamp = man.StartedAt
	case row != nil && row.StartedAt != "":
		h.Timestamp = row.StartedAt
	case d.firstTS != 0:
		h.Timestamp = time.UnixMilli(d.firstTS).UTC().Format("2006-01-02T15:04:05.000Z")
	default:
		h.Timestamp = e.UpdatedAt
	}
	switch {
	case man != nil && man.Cwd != "":
		h.Cwd = man.Cwd
	case man != nil && man.WorkspaceRoot != "":
		h.Cwd = man.WorkspaceRoot
	case row != nil && row.Cwd != "":
		h.Cwd = row.Cwd
	}
	if man != nil && !d.sub {
		h.Provider, h.ModelID = man.Provider, man.Model
	} else if row != nil {
		h.Provider, h.ModelID = row.Provider, row.Model
	}
	if d.sub {
		h.AgentID, h.ParentSession = d.agentID, d.rootID
	}
	return h
}

// Fingerprint is the Doc.Fingerprint Read gives the conversation doc read
// with side, without reading it: the same as a stored reading's, the
// reading would be the same.
func Fingerprint(doc []byte, side Side) string { return fingerprint(doc, side) }

// fingerprint is the hex SHA-256 of the document and what was read beside
// it.
func fingerprint(doc []byte, side Side) string {
	h := sha256.New()
	h.Write(doc)
	for _, part := range [][]byte{side.Manifest, side.Compaction} {
		fmt.Fprintf(h, "\x00%d\x00", len(part))
		h.Write(part)
	}
	if side.Row != nil {
		b, _ := json.Marshal(side.Row)
		h.Write(b)
	}
	for _, s := range side.Subagents {
		fmt.Fprintf(h, "\x00%s\x00%s", s.AgentID, s.Task)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// addModel notes a model in order of first use.
func (d *decoder) addModel(m string) {
	if m != "" && !slices.Contains(d.models, m) {
		d.models = append(d.models, m)
	}
}

// splitAgentSession splits a sub-agent's session id "<root>__<agentId>".
func splitAgentSession(id string) (root, agent string, ok bool) {
	return strings.Cut(id, "__")
}
