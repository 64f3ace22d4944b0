// Package gemini reads Gemini CLI chat recordings
// (~/.gemini/tmp/<project>/chats/session-*.jsonl, and sub-agents' under
// chats/<parent session id>/) as a stream of backend/session entries,
// losslessly: every record is kept with its exact bytes (Raw), line and
// byte offset; malformed lines and a half-written last line are reported,
// never dropped silently; unknown message types, parts and fields are kept.
//
// See testdata/generate/README.md for the format as Gemini CLI 0.61.0
// writes it. A recording is not a log of events but the journal of a
// mutable list: message lines add a message or replace the one with the
// same id, and a {"$set": {"messages": [...]}} replaces the whole list (on
// every resume, after a failed request, after a compression). The library
// is an archive, so every record becomes entries; the conversation a
// person sees is Gemini's latest list, so each entry says what it is to
// that list, with the marks the other readers use.
//
// An entry's Raw is always one JSON object of the file, at its own offset,
// and entries never overlap: the import stores each, hashes the bytes
// between them as gaps and writes the file back from both, and decodes a
// stored Raw alone (NewReaderAt with a State holding the header) into one
// entry. So a record is one entry, but for the two that hold several
// things: a rewrite is an entry per message it lists, and a user message of
// tool results an entry per result (its functionResponse part), the bytes
// around them the line's gaps. A tool call's result is taken from that
// message, not from the toolCalls of the gemini message that made the call
// (which is the assistant entry, whole): its status and resultDisplay come
// from there while that entry is held (see below). A call whose result was
// never sent back (complete_task, which ends a sub-agent) has no result
// entry; its result stays in the assistant entry's Raw.
//
//	record                          entries (Entry.Type)  Message.Role / notes
//
//	record                          entries (Entry.Type)  Message.Role / notes
//	metadata {sessionId, ...}       gemini:metadata       Subtype = kind; a recording starts (the first makes the header)
//	user message, a prompt          message               user: text (inlineData: image); TurnID its own id
//	user message, <session_context> message               custom, CustomType "gemini:session_context" (also
//	  or <hook_context>                                   "gemini:hook_context"): the CLI wrote it, not the person
//	user message of functionResponse  message, one per    toolResult: Raw = the part {"functionResponse": ...};
//	  parts only (tool results)       part                ID and ToolCallID the call id, ToolName, content =
//	                                                      response.output or .error; IsError (an error
//	                                                      response, the call's status "error", a shell exit
//	                                                      code not 0); Details {status, exitCode,
//	                                                      resultDisplay: a diff, a sub-agent's progress};
//	                                                      SubagentID = the invoke_agent call's agentId
//	user message, <state_snapshot>  compaction            a compression's summary (new): Summary its text,
//	  (or a compression's summary)                        FirstKeptEntryID, TokensBefore (the last response's
//	                                                      prompt tokens); a copy of it stays a user message
//	gemini message                  message               assistant: thinking (thoughts[], or thought parts),
//	                                                      text, toolCall per toolCalls[] (or functionCall
//	                                                      parts); Model; Usage from tokens; StopReason toolUse
//	                                                      when it calls tools, else stop
//	error message                   message               assistant, StopReason error, ErrorMessage = content
//	info, warning, other type T     message               custom, CustomType "gemini:info", "gemini:warning",
//	                                                      "gemini:T" (asides: shown, not sent to the model)
//	{"$set": {messages: [...]}}     one per message (per  each message's entry as above, at the message's own
//	                                result)               bytes; the bytes around them are the line's gaps
//	{"$set": {summary}}             session_info          Name = summary (the CLI's title of the session)
//	{"$set": {...}} other           gemini:set            Subtype = its keys ("lastUpdated", "sessionId": a
//	                                                      resume switching into this file)
//	{"$rewindTo": id}               gemini:rewind         TargetID = id; RolledBackTurns
//
// How supersession maps to entries (count the conversation once: without
// DuplicateOf and Replayed entries, as app/ingest does):
//
//   - A gemini message written again with its id (before its tools run,
//     then with toolCalls): the later copy wins. Every gemini message's
//     entry is held until the next message record (so a read that ends on
//     one is consumed up to its line, and an append import reads it again);
//     when that record is the later copy, the first one gets DuplicateOf =
//     the id: the later entry repeats it in full and is counted, with its
//     tool calls and usage. (DuplicateOf names a later entry there.)
//   - Another message line with a known id and the same content is a copy
//     (DuplicateOf); with new content, a revision (counted; the list takes
//     it).
//   - A rewrite ($set messages) is read against the list it replaces. A
//     message whose id the list held with the same content, or whose
//     content the list held under another id (the tail a compression keeps,
//     written again with new ids), is a copy: DuplicateOf the entry that
//     stands for it, its Timestamp the rewrite's (lastUpdated; the
//     message's own stays in Message.Timestamp). Results are copies by call
//     id. A message with new content is counted.
//   - What a rewrite drops: a rewrite that drops messages and brings a new
//     user message is a compression, that message (the summary) the
//     compaction entry the segmenter cuts at; a new <state_snapshot> is one
//     by its own text too (what 0.61.0 writes: it decodes alone as one; a
//     summary without it is one by its rewrite only). The messages it
//     summarised stay what they were: history before FirstKeptEntryID. The
//     info, warning and error messages a rewrite leaves out are not
//     dropped: Gemini sends them to no model. One that drops prompts
//     without a summary (the rollback after a failed request) rolls their
//     turns back: RolledBackTurns on the line's first entry (the import
//     marks the turns' entries RolledBack, the segmenter starts a branch).
//     A list of the session context alone right after a metadata record is
//     the stub every run starts with (README "Resume"): it drops nothing.
//   - After an "Imported session from <path>" info message (--session-file),
//     the messages up to the first $set are the imported session's:
//     Replayed; ParentSession is that path (the import links a fork).
//
// Ids: a message's id; a tool result's call id; records without one get
// "L<line>" ("L<line>.<k>" for the k-th object of a line). Gemini has no
// tree: ParentID chains each entry to the entry that stands for the
// previous live message (a tool result to the message that made the call;
// a copy to the message before it in its list; a record that is no message
// to the last live message, without moving it). TurnID is the entry of the
// prompt being answered. A sub-agent's file is Sidechain throughout; its
// header's AgentID is its session id and ParentSession its folder's name.
// Usage is counted once per response, on the gemini message that stands
// for it; the requests the CLI does not record (a compression's summary,
// the session summary, a failed request) are not in the file.
//
// What the lines do not say, the folders do (Layout, SetLayout): the
// project root (the header's Cwd), and whether a file is a later recording
// of a session another file holds: the stub a resume in a later minute
// leaves, metadata and session context only, with the session's id. The
// library holds one session per id, so a later recording's header id is
// LaterRecordingID(id, its startTime); the session's first file keeps the
// id its sub-agents' folder names.
//
// A decode of an entry's Raw alone (the import reading its stored entries
// back) gives the same entry but for what other records said: a copy's
// DuplicateOf, Replayed and the tool name (the import keeps those beside
// the entry), a result's Details and timestamp (its message's), a
// compression's summary without <state_snapshot> (a user message alone),
// and the "L<line>" ids of records without one (the lines it sees).
//
// The package's files: reader.go (the Reader), format.go (records),
// list.go (Gemini's list: copies, supersession, drops), message.go (a
// message to entries), wire.go (the JSON shapes and the byte spans of a
// rewrite's messages), usage.go, looks.go (detection), layout.go (the
// folders).
package gemini

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// ErrNoHeader matches (errors.Is) the error Header and Next return when the
// input is not a Gemini CLI chat recording; it is session.ErrNoHeader.
var ErrNoHeader = session.ErrNoHeader

// Metadata is what the records read so far say about the session as a
// whole (the title last one wins), with counts.
type Metadata struct {
	// Title is the last summary ($set summary: the one-line summary the CLI
	// asks the model for when it lists sessions; a sub-agent's report);
	// "" when none (see Name).
	Title       string   `json:"title,omitempty"`
	Kind        string   `json:"kind,omitempty"`        // "main" or "subagent"
	ProjectHash string   `json:"projectHash,omitempty"` // sha256 hex of the project root
	Directories []string `json:"directories,omitempty"` // a sub-agent's workspace folders

	// Models lists the models of the responses counted, in order of first
	// use.
	Models         []string `json:"models,omitempty"`
	FirstTimestamp string   `json:"firstTimestamp,omitempty"`
	LastTimestamp  string   `json:"lastTimestamp,omitempty"`

	Prompts   int `json:"prompts,omitempty"`   // prompts counted (not copies, not replayed)
	Responses int `json:"responses,omitempty"` // gemini messages counted

	Recordings        int `json:"recordings,omitempty"`        // metadata records: each CLI run that wrote to the file
	ForeignRecordings int `json:"foreignRecordings,omitempty"` // metadata records of another session id
	Resumes           int `json:"resumes,omitempty"`           // $set sessionId: a resume switched into this file
	Rewrites          int `json:"rewrites,omitempty"`          // $set messages read against the list (not a recording's first)
	Compressions      int `json:"compressions,omitempty"`      // compaction entries
	Rollbacks         int `json:"rollbacks,omitempty"`         // rewrites that rolled turns back
	Rewinds           int `json:"rewinds,omitempty"`           // $rewindTo records
	Dropped           int `json:"dropped,omitempty"`           // user and gemini messages rewrites and rewinds took out of the list
	Copies            int `json:"copies,omitempty"`            // entries repeating another (DuplicateOf), superseded first copies apart
	Superseded        int `json:"superseded,omitempty"`        // first copies of a message written again (DuplicateOf the later)
	Revisions         int `json:"revisions,omitempty"`         // known ids written with new content
	Replayed          int `json:"replayed,omitempty"`          // entries of an imported session's history
	ToolErrors        int `json:"toolErrors,omitempty"`        // tool results counted that are errors
	Subagents         int `json:"subagents,omitempty"`         // invoke_agent results counted that name a sub-agent

	// ImportedFrom is the file --session-file imported ("Imported session
	// from <path>").
	ImportedFrom string `json:"importedFrom,omitempty"`
	// EarlierRecording is the file holding the session this later
	// recording belongs to (Layout.EarlierRecording; set by SetLayout).
	EarlierRecording string `json:"earlierRecording,omitempty"`

	// Usage sums the responses counted.
	Usage Totals `json:"usage"`
}

func (m *Metadata) addModel(model string) {
	if model != "" && !slices.Contains(m.Models, model) {
		m.Models = append(m.Models, model)
	}
}

// Name is the session's title for a person: Title; else, for a file with
// no conversation, what it is (a later recording of a session: a resume
// stub; a session nobody prompted yet); else "" (the first prompt names
// it).
func (m Metadata) Name() string {
	switch {
	case m.Title != "":
		return m.Title
	case m.Prompts+m.Responses+m.Replayed > 0:
		return ""
	case m.EarlierRecording != "":
		return fmt.Sprintf("Gemini CLI resume stub: no conversation (the session is in %s)", filepath.Base(m.EarlierRecording))
	}
	return "Gemini CLI session with no conversation"
}

// Reader reads a Gemini CLI chat recording as a stream of entries in file
// order (see the package comment for the mapping). It has the surface and
// tolerance of claudecode.Reader: lines holding several objects, malformed
// lines reported with their line, byte offset and reason and skipped, a
// half-written last line pending, blank lines, CRLF, a byte order mark,
// lines up to sessionlog.MaxLineBytes. A gemini message's entry is held
// back until the next message record (at most sessionlog.MaxHeld entries);
// besides that its memory grows only with Gemini's current message list (a
// fingerprint per message, which compression keeps to the model's
// context), not with the file. Not safe for concurrent use.
type Reader struct {
	*sessionlog.Reader[parseState]
}

// NewReader returns a Reader over r, a whole recording from its first
// byte; file names it in problems and errors. A path in the layout
// chats/<parent>/<agent>.jsonl names the sub-agent's parent session
// (without reading the disk: see SetLayout for what the folders say).
func NewReader(r io.Reader, file string) *Reader {
	rd := &Reader{sessionlog.NewReader[parseState](r, file, newFormat(file))}
	if d := filepath.Dir(file); filepath.Base(filepath.Dir(d)) == "chats" {
		rd.Live().ParentSession = filepath.Base(d)
	}
	return rd
}

// SetLayout gives the reader what the folders around the file say (see
// LayoutOf): the header's Cwd (the project root, when no record names
// one), a sub-agent's ParentSession, and for a later recording of a
// session its own id (LaterRecordingID), since the library holds one
// session per id. Call it before Header or Next.
func (r *Reader) SetLayout(l Layout) {
	st := r.Live()
	if st.Cwd == "" {
		st.Cwd = l.ProjectRoot
	}
	if l.ParentSession != "" {
		st.ParentSession = l.ParentSession
	}
	if l.EarlierRecording != "" {
		st.Later = true
		st.Meta.EarlierRecording = l.EarlierRecording
	}
}

// State is where a read stopped, for an append import to resume from it
// (NewReaderAt; see sessionlog.State). It serialises to JSON: a few KB and
// about 80 bytes per message of Gemini's current list.
type State = sessionlog.State[parseState]

// NewReaderAt returns a Reader that resumes a read from st (a State a
// previous Reader returned): r must be positioned at byte st.Offset of the
// file. Lines, offsets, Seq, ids, the list and usage continue as in a full
// read. A State holding only a header (to decode stored entries) reads each
// record as it comes: any record may come first, a sub-agent's (AgentID)
// are Sidechain, and error messages name the header's model.
func NewReaderAt(r io.Reader, file string, st State) *Reader {
	if !st.Parse.Seen {
		st.Parse.Seen = true
		st.Parse.Objs = max(st.Parse.Objs, 2)
		if st.Parse.SessionID == "" {
			st.Parse.SessionID, st.Parse.Timestamp, st.Parse.Cwd = st.Header.ID, st.Header.Timestamp, st.Header.Cwd
			st.Parse.FirstModel, st.Parse.Model, st.Parse.ParentSession = st.Header.ModelID, st.Header.ModelID, st.Header.ParentSession
		}
		if st.Header.AgentID != "" {
			st.Parse.Kind = "subagent"
		}
	}
	return &Reader{sessionlog.ResumeAt[parseState](r, file, newFormat(file), st)}
}

// Header returns the session header, from the first metadata record (read
// with the record after it, among the first sessionlog.HeaderScanLines
// lines, whose entries are kept for Next): ID is its sessionId (a later
// recording's: LaterRecordingID), Timestamp its startTime, Cwd a
// sub-agent's first directory or the layout's project root, AgentID a
// sub-agent's session id, ParentSession a sub-agent's parent session or
// the file an imported session came from, ModelID the first model when a
// response came by then, Format "gemini-cli". AgentVersion is empty: the
// recording does not say. Raw is nil: every record is an entry. The error
// matches ErrNoHeader and says what the file is when it is not a Gemini
// CLI recording (a Claude Code session, a Codex rollout, other JSON), or
// that no metadata record came.
func (r *Reader) Header() (*session.Header, error) { return r.Reader.Header() }

// Metadata returns what the records read so far say; complete after Next
// returned io.EOF.
func (r *Reader) Metadata() Metadata { return r.Live().Meta }

// Session is a whole recording read into memory.
type Session = sessionlog.Session[Metadata, parseState]

// Read reads a whole recording from r; file names it in problems and
// errors. It returns the Header error (matching ErrNoHeader) or a read
// error; malformed lines are not errors. For large files prefer NewReader.
func Read(r io.Reader, file string) (*Session, error) {
	return sessionlog.ReadAll(NewReader(r, file).Reader, func(st *parseState) Metadata { return st.Meta })
}

// ReadFile opens path and reads it with Read, with the layout of its
// folders (LayoutOf, SetLayout); errors name the path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	defer f.Close()
	r := NewReader(f, path)
	r.SetLayout(LayoutOf(path))
	return sessionlog.ReadAll(r.Reader, func(st *parseState) Metadata { return st.Meta })
}
