// Package codex reads OpenAI Codex CLI rollouts (JSON Lines under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/), of
// every era (bare, wrapped, 2026, and the paginated history of Codex 0.169),
// as a stream of backend/session entries, losslessly: every line is an entry with
// its exact bytes (Raw), line and byte offset; malformed lines and a
// half-written last line are reported; unknown types and fields are kept.
//
// See ../shared/specs/claude-code-codex-formats.md §2. Lines map to entries
// with pi's version 3 meaning:
//
//	line                                      Entry.Type           Message.Role / notes
//	response_item message user                message              user (input_text, input_image); harness context
//	                                                               (AGENTS.md, <environment_context>, ...) is custom
//	                                                               with CustomType "codex:context"
//	response_item message assistant           message              assistant (output_text); Model = turn_context.model
//	response_item message developer / system  message              custom, "codex:developer" / "codex:system"
//	response_item reasoning                   message              assistant, thinking (summary, content; encrypted
//	                                                               only: one redacted block)
//	response_item function_call               message              assistant, toolCall {call_id, namespace.name,
//	                                                               arguments decoded from their JSON string}
//	response_item custom_tool_call            message              assistant, toolCall (input: apply_patch's patch)
//	response_item local_shell_call, web_search_call  message       assistant, toolCall local_shell / web_search
//	response_item *_output                    message              toolResult {ToolCallID, ToolName, IsError from the
//	                                                               exit code or success}; spawn_agent: SubagentID
//	response_item other types                 codex:response_item  Subtype = payload.type
//	compacted                                 compaction           Summary = message (replacement_history in Raw)
//	session_meta                              codex:session_meta   header; a later one: resume, or a replayed parent
//	turn_context                              codex:turn_context   TurnID, ModelID
//	event_msg                                 codex:event_msg      Subtype = payload.type; echoes of messages
//	                                                               (user_message, agent_message, item_completed
//	                                                               UserMessage/AgentMessage/Reasoning) get
//	                                                               DuplicateOf = their response item;
//	                                                               thread_rolled_back: RolledBackTurns
//	token_usage_record, world_state, ...      codex:<type>
//	bare era: header {id, instructions}       codex:session_meta   bare response items as above; {"record_type":
//	                                                               "state"} is codex:state
//
// Ids: "L<line>" ("L<line>.<k>" for the k-th object of a line), each entry's
// parent the entry before it (a rollout is linear); TurnID the turn_id of
// the line or of the turn it is in. Usage is counted once per model request:
// token_usage_record (Codex 0.169, by response_id) or, in files without
// them, token_count's last_token_usage (repeats and fill-only counts
// skipped), put on the last assistant entry of the response it measures.
// Entries a legacy fork or sub-agent file replays from its parent are
// Replayed and not counted. Read flags the entries of rolled-back turns.
package codex

import (
	"fmt"
	"io"
	"os"
	"slices"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// ErrNoHeader matches (errors.Is) the error Header and Next return when the
// input is not a Codex rollout; it is session.ErrNoHeader.
var ErrNoHeader = session.ErrNoHeader

// Totals sums usage: the requests counted and their tokens.
type Totals struct {
	Requests   int   `json:"requests,omitempty"`
	Input      int64 `json:"input,omitempty"` // uncached
	CacheRead  int64 `json:"cacheRead,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	Output     int64 `json:"output,omitempty"` // including reasoning
	Reasoning  int64 `json:"reasoning,omitempty"`
}

func (t *Totals) add(u *session.Usage) {
	t.Requests++
	t.Input += u.Input
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Output += u.Output
	t.Reasoning += u.Reasoning
}

// Metadata is what the lines read so far say about the thread.
type Metadata struct {
	Source        string       `json:"source,omitempty"` // "cli", "exec", "vscode", "subagent", ...
	Originator    string       `json:"originator,omitempty"`
	HistoryMode   string       `json:"historyMode,omitempty"` // "legacy" | "paginated"
	WindowID      string       `json:"windowId,omitempty"`
	HistoryBase   *HistoryBase `json:"historyBase,omitempty"` // a 0.169 fork's history, in another file
	ForkedFrom    string       `json:"forkedFrom,omitempty"`
	AgentNickname string       `json:"agentNickname,omitempty"`
	AgentRole     string       `json:"agentRole,omitempty"`
	SpawnDepth    int          `json:"spawnDepth,omitempty"`

	Models         []string `json:"models,omitempty"` // models (turn_context, thread_settings_applied), in order of first use
	FirstTimestamp string   `json:"firstTimestamp,omitempty"`
	LastTimestamp  string   `json:"lastTimestamp,omitempty"`
	SessionMetas   int      `json:"sessionMetas,omitempty"`
	Resumes        int      `json:"resumes,omitempty"` // later session_meta lines of this thread
	Compactions    int      `json:"compactions,omitempty"`
	// RolledBackTurns lists the turns thread_rolled_back lines superseded.
	RolledBackTurns []string `json:"rolledBackTurns,omitempty"`
	// Usage sums the usage counted; UnattachedUsage the part no response
	// entry was waiting for (it is in Usage too).
	Usage           Totals `json:"usage"`
	UnattachedUsage Totals `json:"unattachedUsage"`
}

func (m *Metadata) addModel(model string) {
	if !slices.Contains(m.Models, model) {
		m.Models = append(m.Models, model)
	}
}

// Reader reads a Codex rollout as a stream of entries in file order (see
// the package comment). It has the surface and tolerance of
// pisession.Reader; a response's entries are held until the line with its
// usage, and an echo event until its twin, at most sessionlog.MaxHeld. Not
// safe for concurrent use.
type Reader struct {
	*sessionlog.Reader[parseState]
	parent *parentTurns // shared with the reader's format
}

// NewReader returns a Reader over r, a whole rollout from its first byte;
// file names it in problems and errors (its base name also tells a 0.169
// history window file, rollout-...-<thread>_<window>.jsonl).
func NewReader(r io.Reader, file string) *Reader {
	p := new(parentTurns)
	return &Reader{sessionlog.NewReader[parseState](r, file, format{file: file, w: new(wire), parent: p}), p}
}

// State is where a read stopped, for an append import to resume from it
// (NewReaderAt; see sessionlog.State). It serialises to JSON.
type State = sessionlog.State[parseState]

// NewReaderAt returns a Reader that resumes a read from st (a State a
// previous Reader returned): r must be positioned at byte st.Offset of the
// file. Lines, offsets, Seq, ids and usage continue as in a full read.
func NewReaderAt(r io.Reader, file string, st State) *Reader {
	if st.Parse.ThreadID == "" {
		// Entries read back with their stored header alone, from the
		// middle of a rollout: their requests are the header's provider's
		// and model's until a line says otherwise.
		st.Parse.Provider, st.Parse.Model = st.Header.Provider, st.Header.ModelID
	}
	p := new(parentTurns)
	return &Reader{sessionlog.ResumeAt[parseState](r, file, format{file: file, w: new(wire), parent: p}, st), p}
}

// Header returns the header synthesised from the first lines (at most
// sessionlog.HeaderScanLines, whose entries are kept for Next): ID the
// thread id (a history window file: "<thread>_<window>", ParentSession the
// thread), Timestamp and Cwd from the first session_meta, AgentVersion its
// cli_version, Provider its model_provider, ModelID the first
// turn_context.model, ParentSession the thread it was forked from or the
// parent of a sub-agent (then AgentID is its own thread id), Format
// "codex". Raw is nil: every line is an entry. The error matches
// ErrNoHeader and says what the file is when it is not a rollout.
func (r *Reader) Header() (*session.Header, error) { return r.Reader.Header() }

// SetParentTurns gives the reader the turns of the threads a legacy fork or
// sub-agent file may replay (§2.4): lookup returns the turn ids of a thread
// (ok false when it does not know the thread), asked at most once per
// thread, from Next. The replay then ends at the first turn not among them,
// as the format says, whatever the turn ids look like; without it (or for
// a thread it does not know) the replay ends at the first turn whose
// UUIDv7 id is newer than this thread, and never for other ids. Lines read
// before the call (Header reads ahead) keep what they were decided as.
func (r *Reader) SetParentTurns(lookup func(threadID string) (turns map[string]bool, ok bool)) {
	r.parent.lookup = lookup
}

// Metadata returns what the lines read so far say; complete after Next
// returned io.EOF.
func (r *Reader) Metadata() Metadata { return r.Live().Meta }

// Session is a whole rollout read into memory.
type Session = sessionlog.Session[Metadata, parseState]

// Read reads a whole rollout from r and flags the entries of rolled-back
// turns (RolledBack). It returns the Header error (matching ErrNoHeader) or
// a read error; malformed lines are not errors.
func Read(r io.Reader, file string) (*Session, error) {
	s, err := sessionlog.ReadAll(NewReader(r, file).Reader, func(st *parseState) Metadata { return st.Meta })
	if err == nil {
		FlagRolledBack(s.Entries)
	}
	return s, err
}

// FlagRolledBack sets RolledBack on the entries of every turn a
// thread_rolled_back entry among them superseded (the entries before it of
// the turns it names). A streaming reader cannot: the rollback comes after
// the turns.
func FlagRolledBack(entries []session.Entry) {
	for i := range entries {
		turns := entries[i].RolledBackTurns
		if len(turns) == 0 {
			continue
		}
		for j := 0; j < i; j++ {
			if slices.Contains(turns, entries[j].TurnID) {
				entries[j].RolledBack = true
			}
		}
	}
}

// ReadFile opens path and reads it with Read; errors name the path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("codex: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}
