// Package copilot reads GitHub Copilot CLI session logs
// (~/.copilot/session-state/<sessionId>/events.jsonl, or under
// $COPILOT_HOME) as a stream of backend/session entries, losslessly: every
// line is an entry with its exact bytes (Raw), line and byte offset;
// malformed lines and a half-written last line are reported, never dropped
// silently; unknown event types and fields are kept.
//
// See testdata/generate/README.md for the format as Copilot CLI 1.0.102
// writes it (the official shapes: its schemas/session-events.schema.json).
// Each line is an event {type, data, id, timestamp, parentId, agentId?};
// events map to entries with pi's version 3 meaning, so that the segmenter,
// the analyzer and the store read them as they read pi, Claude Code and
// Codex sessions:
//
//	event                        Entry.Type             Message.Role / notes
//	user.message                 message                user: content as text, then the attachments: an image
//	                                                    (its bytes from the session.binary_asset lines just
//	                                                    before, else MimeType only), any other kind a
//	                                                    "copilot:attachment" block (Text = path or name);
//	                                                    Subtype = source (a sub-agent's task prompt:
//	                                                    "agent-<sessionId>"); Rewind when written under an
//	                                                    earlier event than the last one
//	assistant.message            message                assistant: thinking (reasoningText; reasoningOpaque
//	                                                    alone: one redacted block), text (content), toolCall
//	                                                    per toolRequests {toolCallId, name, arguments}; Model;
//	                                                    Usage, Provider, API and StopReason from the call's
//	                                                    session.usage_record (same apiCallId)
//	tool.execution_complete      message                toolResult: ToolCallID, ToolName (from the call),
//	                                                    content = result.content (images of result.contents
//	                                                    and binaryResultsForLlm), or error.message; IsError
//	                                                    when success is false or the shell exit code is not
//	                                                    0; Details = {detailedContent (an edit's diff),
//	                                                    fileEdits, exitCode, error}; a task call's SubagentID
//	system.message               message                custom, CustomType "copilot:system" (the system
//	                                                    prompt)
//	session.error                message                assistant, StopReason error, ErrorMessage = message,
//	                                                    Subtype = errorType: the only record of a failed call
//	session.compaction_complete  compaction             Summary = summaryContent, TokensBefore =
//	  (applied)                                         preCompactionTokens, Subtype = trigger ("threshold",
//	                                                    "manual"); ParentID its compaction_start
//	session.model_change         model_change           ModelID = newModel, ThinkingLevel = reasoningEffort,
//	                                                    Subtype = source
//	session.title_changed        session_info           Name = title
//	session.start, .resume       copilot:session.start  ModelID = selectedModel (the header is the start's)
//	session.usage_record         copilot:...            Subtype = initiator (user, agent, sub-agent); its
//	                                                    usage goes on the call's assistant message
//	tool.execution_start         copilot:...            Subtype = toolName
//	session.compaction_start     copilot:...            Subtype = trigger (a compaction not applied:
//	                                                    compaction_complete, Subtype = outcome)
//	session.shutdown             copilot:...            Subtype = shutdownType
//	session.binary_asset         copilot:...            Subtype = the asset's type ("image")
//	subagent.*                   copilot:...            SubagentID = agentId, Subtype = agentName
//	any other type T             copilot:T              (assistant.turn_start/turn_end, model.* traces, ...)
//
// Ids: an event's id, its parentId as ParentID (the file is one chain: each
// event's parent is the line before, except the model.* trace of a manual
// compaction and its compaction_complete, whose parent is its
// compaction_start); objects without an id get "L<line>" ("L<line>.<k>"
// for the k-th object of a line). TurnID is the interactionId of the user
// message being answered (an event without one takes its agent's current
// one). Sub-agents run inline: an event with an agentId is Sidechain, and
// TargetID names the task tool call it runs under (parentToolCallId) —
// except subagent.started/completed/failed, the parent's record of the
// spawn. Usage is counted once per model call (each session.usage_record),
// on the call's assistant message; a compaction's call is in its
// compactionTokensUsed only (Metadata.CompactionUsage).
package copilot

import (
	"fmt"
	"io"
	"os"
	"slices"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// ErrNoHeader matches (errors.Is) the error Header and Next return when the
// input is not a Copilot CLI session log; it is session.ErrNoHeader.
var ErrNoHeader = session.ErrNoHeader

// Metadata is what the events read so far say about the session as a
// whole (the title and git context last one wins), with counts.
type Metadata struct {
	// Title is the last session.title_changed's title; "" when none (the
	// session's name is then in workspace.yaml: ReadWorkspace).
	Title string `json:"title,omitempty"`
	// Producer is session.start's producer ("copilot-agent").
	Producer string `json:"producer,omitempty"`
	// GitRoot, Branch and HeadCommit are the last session.start or
	// session.resume context's.
	GitRoot    string `json:"gitRoot,omitempty"`
	Branch     string `json:"branch,omitempty"`
	HeadCommit string `json:"headCommit,omitempty"`

	// Models lists the models that answered (assistant messages, usage
	// records, compactions), in order of first use.
	Models         []string `json:"models,omitempty"`
	FirstTimestamp string   `json:"firstTimestamp,omitempty"`
	LastTimestamp  string   `json:"lastTimestamp,omitempty"`

	Resumes           int `json:"resumes,omitempty"`           // session.resume events: the processes after the first
	Shutdowns         int `json:"shutdowns,omitempty"`         // session.shutdown events
	Compactions       int `json:"compactions,omitempty"`       // compactions applied
	FailedCompactions int `json:"failedCompactions,omitempty"` // compaction_complete not applied (cancelled, failed)
	Errors            int `json:"errors,omitempty"`            // session.error events
	ToolErrors        int `json:"toolErrors,omitempty"`        // tool results that are errors
	Subagents         int `json:"subagents,omitempty"`         // subagent.started events
	Rewinds           int `json:"rewinds,omitempty"`

	// Usage sums every model call's usage record (sub-agents' included);
	// UnattachedUsage the part no assistant message took (in Usage too).
	// CompactionUsage sums the compactions' calls (compactionTokensUsed),
	// which have no usage record.
	Usage           Totals `json:"usage"`
	UnattachedUsage Totals `json:"unattachedUsage"`
	CompactionUsage Totals `json:"compactionUsage"`
}

func (m *Metadata) addModel(model string) {
	if model != "" && !slices.Contains(m.Models, model) {
		m.Models = append(m.Models, model)
	}
}

// Reader reads a Copilot CLI events.jsonl as a stream of entries in file
// order (see the package comment for the mapping). It has the surface and
// tolerance of claudecode.Reader: lines holding several objects, malformed
// lines reported with their line, byte offset and reason and skipped, a
// half-written last line pending, blank lines, CRLF, a byte order mark,
// lines up to sessionlog.MaxLineBytes. Its memory does not grow with the
// file: session.binary_asset entries are held back only until the line
// after them (the user message whose attachment they hold), at most
// sessionlog.MaxHeld. Not safe for concurrent use.
type Reader struct {
	*sessionlog.Reader[parseState]
}

// NewReader returns a Reader over r, a whole events.jsonl from its first
// byte; file names it in problems and errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{sessionlog.NewReader[parseState](r, file, newFormat(file))}
}

// State is where a read stopped, for an append import to resume from it
// (NewReaderAt; see sessionlog.State). It serialises to JSON (a few KB).
type State = sessionlog.State[parseState]

// NewReaderAt returns a Reader that resumes a read from st (a State a
// previous Reader returned): r must be positioned at byte st.Offset of the
// file. Lines, offsets, Seq, ids, turns and usage continue as in a full
// read. A State holding only a header (to decode stored events) takes the
// header's model as the session's current one, and its first event may be
// of any type: the file was recognised when the header was made.
func NewReaderAt(r io.Reader, file string, st State) *Reader {
	if st.Parse.SessionID == "" && st.Parse.Model == "" {
		st.Parse.Model = st.Header.ModelID
	}
	st.Parse.Seen = true
	return &Reader{sessionlog.ResumeAt[parseState](r, file, newFormat(file), st)}
}

// Header returns the session header, from the session.start event (read
// among the first sessionlog.HeaderScanLines lines, whose entries are kept
// for Next): ID is data.sessionId, Timestamp data.startTime (else the
// event's), Cwd data.context.cwd, ModelID data.selectedModel, AgentVersion
// data.copilotVersion, Format "copilot-cli". Provider is left empty: each
// call names its own (Message.Provider). Raw is nil: every line is an
// entry. The error matches ErrNoHeader and says what the file is when it
// is not a Copilot CLI session log (a Claude Code session, a Codex
// rollout, other JSON), or that no session.start came.
func (r *Reader) Header() (*session.Header, error) { return r.Reader.Header() }

// Metadata returns what the events read so far say; complete after Next
// returned io.EOF.
func (r *Reader) Metadata() Metadata { return r.Live().Meta }

// Session is a whole events.jsonl read into memory.
type Session = sessionlog.Session[Metadata, parseState]

// Read reads a whole session log from r; file names it in problems and
// errors. It returns the Header error (matching ErrNoHeader) or a read
// error; malformed lines are not errors. For large files prefer NewReader.
func Read(r io.Reader, file string) (*Session, error) {
	return sessionlog.ReadAll(NewReader(r, file).Reader, func(st *parseState) Metadata { return st.Meta })
}

// ReadFile opens path and reads it with Read; errors name the path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("copilot: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}
