// Package qwen reads Qwen Code session files (JSON Lines under
// ~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl, forks beside
// them, and sub-agent transcripts under
// subagents/<parent sessionId>/agent-<agentId>.jsonl) as a stream of
// backend/session entries, losslessly: every line is an entry with its
// exact bytes (Raw), line and byte offset; malformed lines and a
// half-written last line are reported, never dropped silently; unknown
// record types, subtypes, parts and fields are kept.
//
// See testdata/generate/README.md for the format as Qwen Code 0.24.4 writes
// it. Records map to entries with pi's version 3 meaning, so that the
// segmenter, the analyzer and the store read them as they read pi and
// Claude Code sessions:
//
//	record                                 Entry.Type          Message.Role / notes
//	user (a prompt; the text parts Qwen    message             user: text blocks (inlineData: image); Rewind
//	  Code adds included)                                      when written under an earlier record than the last
//	user, subtype notification             message             custom, CustomType "qwen:notification": a background
//	                                                           agent's <task-notification>; SubagentID its <task-id>
//	assistant                              message             assistant: text, thinking (thought parts), toolCall
//	                                                           (functionCall id, name, args); Model (the record's,
//	                                                           else the session's: a sub-agent's names none);
//	                                                           Usage from usageMetadata; StopReason toolUse when
//	                                                           it calls tools
//	tool_result                            message             toolResult: ToolCallID, ToolName (functionResponse
//	                                                           id, name), content = response.output or .error,
//	                                                           IsError (status "error" or an error response),
//	                                                           Details = toolCallResult (resultDisplay: a diff,
//	                                                           a shell result); an agent call's SubagentID
//	                                                           <subagentName>-<call id>
//	system, chat_compression               compaction          Summary (the rewritten history's first message),
//	                                                           TokensBefore = originalTokenCount, Subtype =
//	                                                           triggerReason, Details = info
//	system, custom_title                   session_info        Name = customTitle
//	system, ui_telemetry                   qwen:ui_telemetry   Subtype = event.name (api_response, tool_call, ...)
//	system, ui_telemetry api_error         message             assistant, StopReason error, ErrorMessage, Model:
//	                                                           the only record of a failed request
//	system, other subtype S                qwen:S              (attribution_snapshot, slash_command, rewind, ...)
//	any other type T                       qwen:T
//
// Ids: a record's uuid, its parentUuid as ParentID; objects without a uuid
// get "L<line>" ("L<line>.<k>" for the k-th object of a line). A record
// repeating a uuid among the last 64 has DuplicateOf set (Qwen Code keeps
// the first). Sidechain is isSidechain (a sub-agent's records). A record a
// fork copied from its source (forkedFrom) is Replayed: its source holds it
// with the same uuid. TurnID is the record's promptId where it has one
// (newer versions). Usage is on the assistant record of each response, once;
// the requests without one (the summary request of a compression; a failed
// request) are only in the ui_telemetry records, kept raw and not counted.
package qwen

import (
	"fmt"
	"io"
	"os"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// ErrNoHeader matches (errors.Is) the error Header and Next return when the
// input is not a Qwen Code session; it is session.ErrNoHeader.
var ErrNoHeader = session.ErrNoHeader

// Metadata is what the records of a session say about it as a whole (the
// title last one wins), with counts over the records read so far.
type Metadata struct {
	// Title is the last custom_title's customTitle (/rename, or the
	// interactive auto-title).
	Title     string `json:"title,omitempty"`
	GitBranch string `json:"gitBranch,omitempty"` // the last record's

	// Models lists the models of the assistant records, in order of first
	// use.
	Models         []string `json:"models,omitempty"`
	FirstTimestamp string   `json:"firstTimestamp,omitempty"`
	LastTimestamp  string   `json:"lastTimestamp,omitempty"`

	Compressions int `json:"compressions,omitempty"` // chat_compression records
	Rewinds      int `json:"rewinds,omitempty"`
	Duplicates   int `json:"duplicates,omitempty"` // records with DuplicateOf
	Subagents    int `json:"subagents,omitempty"`  // agent tool results that name a sub-agent
	APIErrors    int `json:"apiErrors,omitempty"`  // failed requests (ui_telemetry api_error)
	ToolErrors   int `json:"toolErrors,omitempty"` // tool results that are errors
	// ForkedFrom is the session a fork copied its first records from
	// (forkedFrom.sessionId); ForkPoint the uuid of the last record it
	// copied (forkedFrom.messageUuid): where the fork leaves it.
	ForkedFrom string `json:"forkedFrom,omitempty"`
	ForkPoint  string `json:"forkPoint,omitempty"`
	// ForeignLines counts records whose sessionId is not the first
	// record's (a fork's copies carry its own id).
	ForeignLines int `json:"foreignLines,omitempty"`
}

func (m *Metadata) addModel(model string) {
	for _, x := range m.Models {
		if x == model {
			return
		}
	}
	m.Models = append(m.Models, model)
}

// Reader reads a Qwen Code session file as a stream of entries in file
// order (see the package comment for the mapping). It has the surface and
// tolerance of claudecode.Reader: lines holding several objects, malformed
// lines reported with their line, byte offset and reason and skipped, a
// half-written last line pending, blank lines, CRLF, a byte order mark,
// lines up to sessionlog.MaxLineBytes. Its memory does not grow with the
// file. Not safe for concurrent use.
type Reader struct {
	*sessionlog.Reader[parseState]
}

// NewReader returns a Reader over r, a whole session file from its first
// byte; file names it in problems and errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{sessionlog.NewReader[parseState](r, file, format{file: file, rec: new(wireRecord)})}
}

// State is where a read stopped, for an append import to resume from it
// (NewReaderAt; see sessionlog.State). It serialises to JSON.
type State = sessionlog.State[parseState]

// NewReaderAt returns a Reader that resumes a read from st (a State a
// previous Reader returned): r must be positioned at byte st.Offset of the
// file. Lines, offsets, Seq, ids and the tree continue as in a full read.
// A State holding only a header (to decode stored records) takes the
// header's model as the session's.
func NewReaderAt(r io.Reader, file string, st State) *Reader {
	if st.Parse.Model == "" {
		st.Parse.Model = st.Header.ModelID
	}
	return &Reader{sessionlog.ResumeAt[parseState](r, file, format{file: file, rec: new(wireRecord)}, st)}
}

// SetAgentModel gives the records of a sub-agent transcript, which name no
// model, the model its sidecar names (AgentMeta.Model): the header's
// ModelID and the assistant entries' Model. Call it before Header or Next;
// a model the records name wins.
func (r *Reader) SetAgentModel(model string) {
	if st := r.Live(); st.Model == "" {
		st.Model = model
	}
}

// Header returns the session header, synthesised from the first records
// (at most sessionlog.HeaderScanLines, whose entries are kept for Next): ID
// is the sessionId ("agent-<agentId>" for a sub-agent transcript, whose
// ParentSession is then the parent's sessionId and AgentID its agentId; a
// fork's ParentSession is the session it was forked from), Timestamp the
// first record's, Cwd the first cwd, ModelID the first model, AgentVersion
// Qwen Code's version, Format "qwen-code". Raw is nil: every line is an
// entry. The error matches ErrNoHeader and says what the file is when it is
// not a Qwen Code session (a Claude Code session, a pi session, other
// JSON).
func (r *Reader) Header() (*session.Header, error) { return r.Reader.Header() }

// Metadata returns what the records read so far say; complete after Next
// returned io.EOF.
func (r *Reader) Metadata() Metadata { return r.Live().Meta }

// Session is a whole Qwen Code file read into memory.
type Session = sessionlog.Session[Metadata, parseState]

// Read reads a whole session from r; file names it in problems and errors.
// It returns the Header error (matching ErrNoHeader) or a read error;
// malformed lines are not errors. For large files prefer NewReader.
func Read(r io.Reader, file string) (*Session, error) {
	return sessionlog.ReadAll(NewReader(r, file).Reader, func(st *parseState) Metadata { return st.Meta })
}

// ReadFile opens path and reads it with Read; errors name the path. A
// sub-agent transcript's assistant entries take its sidecar's model
// (AgentMetaOf, SetAgentModel).
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("qwen: %w", err)
	}
	defer f.Close()
	r := NewReader(f, path)
	if am, ok := AgentMetaOf(path); ok {
		r.SetAgentModel(am.Model)
	}
	return sessionlog.ReadAll(r.Reader, func(st *parseState) Metadata { return st.Meta })
}
