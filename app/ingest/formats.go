package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rhizome/backend/analyze"
	"rhizome/backend/claudecode"
	"rhizome/backend/codex"
	"rhizome/backend/copilot"
	"rhizome/backend/gemini"
	"rhizome/backend/pisession"
	"rhizome/backend/qwen"
	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
	"rhizome/backend/sessionformat"
	"rhizome/store"
)

// The reader seam: every file is read through a sessionReader of its
// format, found by content (sessionformat.Detect), never by name. The
// formats stored as whole JSON documents (Cline CLI's conversations) go
// through the document seam (document.go), whose reader is one too. pi
// sessions (pisession.Reader), Claude Code sessions (claudecode.Reader), Qwen
// Code sessions (qwen.Reader), GitHub Copilot CLI session logs
// (copilot.Reader), Gemini CLI chat recordings (gemini.Reader) and Codex
// rollouts (codex.Reader) give the same entries;
// what differs is said here: how a read resumes when the file grows, what
// the format's metadata lines say, which entries are copies of others, and
// prices.

// Session formats the import reads, as sessionformat names them
// (TestFormatNames holds them to its constants).
const (
	formatPi         = "pi"
	formatClaudeCode = "claude-code"
	formatCodex      = "codex"
	formatQwen       = "qwen-code"
	formatCopilot    = "copilot-cli"
	formatGemini     = "gemini-cli"
	formatCline      = "cline"
	// formatOpenCode ("opencode") is in opencode.go.
)

// sessionReader reads a session file as a stream of entries in file order,
// with what it found wrong: the import reads every file through one.
type sessionReader interface {
	// Header reads and returns the session header (ErrNoHeader when none).
	Header() (*session.Header, error)
	// Next returns the next entry, io.EOF after the last one.
	Next() (*session.Entry, error)
	// Malformed returns the first session.MaxStoredProblems malformed lines.
	Malformed() []session.Problem
	// MalformedCount counts every malformed line.
	MalformedCount() int
	// Pending returns the half-written last line, or nil.
	Pending() *session.Problem
	// Consumed is the bytes up to the end of the last complete line whose
	// entries have all been returned and settled (the commit point).
	Consumed() int64
	// Lines is the number of complete lines up to Consumed.
	Lines() int
	// State returns, after Next returned io.EOF, where the read stands at
	// Consumed (JSON, for resumeSessionReader) and the number of entries
	// before that point.
	State() (json.RawMessage, int, error)
	// Meta returns what the format's metadata lines said (title, models).
	Meta() SessionMeta
}

// SessionMeta is what a session's metadata lines say, kept with the session
// (store.Session.Meta).
type SessionMeta struct {
	// Title: Claude Code custom-title, ai-title or summary; Qwen Code
	// custom_title; Copilot CLI session.title_changed, else the name in
	// the workspace.yaml beside its events.jsonl; Gemini CLI's $set
	// summary (or what a file with no conversation is); Codex
	// session_index.jsonl's thread name; pi's session_info name.
	Title string `json:"title,omitempty"`
	// Models used, in order of first use.
	Models []string `json:"models,omitempty"`
	// Unpriced lists the models whose usage has no price in Rhizome's table
	// (analyze.DefaultPrices): the session's cost leaves them out.
	Unpriced []string `json:"unpriced,omitempty"`
	// Duplicates counts entries that repeat one stored before (in this
	// file or another): kept, not counted twice.
	Duplicates int `json:"duplicates,omitempty"`
	// Rewinds counts the real branches of a Claude Code, Qwen Code or
	// Copilot CLI session (of a Gemini CLI one: its rewinds and rollbacks).
	Rewinds int `json:"rewinds,omitempty"`
	// RolledBackTurns lists the Codex turns a rollback superseded.
	RolledBackTurns []string `json:"rolledBackTurns,omitempty"`
	// SpawnedBy is the id of the Task/Agent tool call that spawned a
	// Claude Code sub-agent (or the agent call of a Qwen Code one), from
	// its sidecar (agent-<id>.meta.json, toolUseId): the call links it
	// when no result naming the agent came (an interrupted call). See
	// claude-code-codex-formats.md §1.4.
	SpawnedBy string `json:"spawnedBy,omitempty"`
	// HistoryThread and HistoryEnd say where a Codex 0.169 fork's history
	// ends in another thread's file (session_meta.history_base: its
	// thread_id, end_byte_offset in bytes): the fork point.
	HistoryThread string `json:"historyThread,omitempty"`
	HistoryEnd    int64  `json:"historyEnd,omitempty"`
	// Record is the agent's own record of the session beside its
	// conversation, as last read (Cline's <id>.json manifest: status,
	// usage totals, checkpoints), kept raw.
	Record json.RawMessage `json:"record,omitempty"`
	// ForkPoint is the id of the entry of the parent session a fork goes
	// on from, when the fork's copies do not keep their originals' ids
	// (an OpenCode fork: sessiondoc.Doc.ForkPoint).
	ForkPoint string `json:"forkPoint,omitempty"`
}

// newSessionReader returns the reader of format for the file r from its
// first byte, named path in problems and errors.
func newSessionReader(format string, r io.Reader, path string) sessionReader {
	switch format {
	case formatClaudeCode:
		return &claudeReader{Reader: claudecode.NewReader(r, path)}
	case formatCodex:
		return &codexReader{Reader: codex.NewReader(r, path)}
	case formatQwen:
		return &qwenReader{Reader: qwen.NewReader(r, path)}
	case formatCopilot:
		return &copilotReader{Reader: copilot.NewReader(r, path)}
	case formatGemini:
		return &geminiReader{Reader: gemini.NewReader(r, path)}
	}
	return &piReader{Reader: pisession.NewReader(r, path)}
}

// resumeSessionReader returns the reader of format that goes on from state
// (what State returned): r must be positioned at the state's offset.
func resumeSessionReader(format string, r io.Reader, path string, state json.RawMessage) (sessionReader, error) {
	switch format {
	case formatClaudeCode:
		var st claudecode.State
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("the stored state of the Claude Code reader: %w", err)
		}
		return &claudeReader{Reader: claudecode.NewReaderAt(r, path, st), resumed: true}, nil
	case formatCodex:
		var st codex.State
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("the stored state of the Codex reader: %w", err)
		}
		return &codexReader{Reader: codex.NewReaderAt(r, path, st), resumed: true}, nil
	case formatQwen:
		var st qwen.State
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("the stored state of the Qwen Code reader: %w", err)
		}
		return &qwenReader{Reader: qwen.NewReaderAt(r, path, st)}, nil
	case formatCopilot:
		var st copilot.State
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("the stored state of the Copilot CLI reader: %w", err)
		}
		return &copilotReader{Reader: copilot.NewReaderAt(r, path, st)}, nil
	case formatGemini:
		var st gemini.State
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("the stored state of the Gemini CLI reader: %w", err)
		}
		return &geminiReader{Reader: gemini.NewReaderAt(r, path, st)}, nil
	}
	var st piState
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("the stored state of the pi reader: %w", err)
	}
	hdr := st.Header
	hdr.Raw = st.HeaderRaw
	return &piReader{Reader: pisession.NewReaderAt(r, path, hdr, st.Line, st.Offset, st.Seq), seq: st.Seq, name: st.Name}, nil
}

// piReader is a pi session's reader. Its entries are settled as they come:
// the commit point is where the last entry returned ends.
type piReader struct {
	*pisession.Reader
	seq  int    // entries returned, those before a resumed read included
	name string // the last session_info name
}

// piState is where a pi read stopped.
type piState struct {
	Offset    int64           `json:"offset"`
	Line      int             `json:"line"`
	Seq       int             `json:"seq"`
	Header    session.Header  `json:"header"`
	HeaderRaw json.RawMessage `json:"headerRaw,omitempty"`
	Name      string          `json:"name,omitempty"`
}

func (p *piReader) Next() (*session.Entry, error) {
	e, err := p.Reader.Next()
	if err == nil {
		p.seq++
		if e.Type == session.TypeSessionInfo && e.Name != "" {
			p.name = e.Name
		}
	}
	return e, err
}

func (p *piReader) State() (json.RawMessage, int, error) {
	h, err := p.Reader.Header()
	if err != nil {
		return nil, 0, err
	}
	b, err := json.Marshal(piState{Offset: p.Consumed(), Line: p.Lines(), Seq: p.seq, Header: *h, HeaderRaw: h.Raw, Name: p.name})
	return b, p.seq, err
}

func (p *piReader) Meta() SessionMeta { return SessionMeta{Title: p.name} }

// claudeReader is a Claude Code session's reader.
type claudeReader struct {
	*claudecode.Reader
	resumed bool
}

func (c *claudeReader) State() (json.RawMessage, int, error) {
	st := c.Reader.State()
	b, err := json.Marshal(st)
	return b, st.Seq, err
}

func (c *claudeReader) Meta() SessionMeta {
	m := c.Metadata()
	return SessionMeta{Title: m.Title, Models: m.Models, Rewinds: m.Rewinds}
}

// qwenReader is a Qwen Code session's reader.
type qwenReader struct {
	*qwen.Reader
}

func (q *qwenReader) State() (json.RawMessage, int, error) {
	st := q.Reader.State()
	b, err := json.Marshal(st)
	return b, st.Seq, err
}

func (q *qwenReader) Meta() SessionMeta {
	m := q.Metadata()
	return SessionMeta{Title: m.Title, Models: m.Models, Rewinds: m.Rewinds}
}

// copilotReader is a GitHub Copilot CLI session log's reader. The name in
// the workspace.yaml beside the file is read by the import (stream.run),
// for a file on disk only.
type copilotReader struct {
	*copilot.Reader
}

func (c *copilotReader) State() (json.RawMessage, int, error) {
	st := c.Reader.State()
	b, err := json.Marshal(st)
	return b, st.Seq, err
}

func (c *copilotReader) Meta() SessionMeta {
	m := c.Metadata()
	return SessionMeta{Title: m.Title, Models: m.Models, Rewinds: m.Rewinds}
}

// geminiReader is a Gemini CLI chat recording's reader. What the folders
// around the file say (the project root, a later recording of a session:
// gemini.LayoutOf) is read by the import (job.open), for a file on disk
// only; a resumed read has it in its state.
type geminiReader struct {
	*gemini.Reader
}

func (g *geminiReader) State() (json.RawMessage, int, error) {
	st := g.Reader.State()
	b, err := json.Marshal(st)
	return b, st.Seq, err
}

func (g *geminiReader) Meta() SessionMeta {
	m := g.Metadata()
	return SessionMeta{Title: m.Name(), Models: m.Models, Rewinds: m.Rewinds + m.Rollbacks}
}

// codexReader is a Codex rollout's reader.
type codexReader struct {
	*codex.Reader
	resumed bool
}

func (c *codexReader) State() (json.RawMessage, int, error) {
	st := c.Reader.State()
	b, err := json.Marshal(st)
	return b, st.Seq, err
}

func (c *codexReader) Meta() SessionMeta {
	m := c.Metadata()
	out := SessionMeta{Models: m.Models, RolledBackTurns: m.RolledBackTurns}
	if hb := m.HistoryBase; hb != nil {
		out.HistoryThread, out.HistoryEnd = hb.ThreadID, hb.EndByteOffset
	}
	return out
}

// detectFormat names the format of the file f (size bytes) from its content
// (sessionformat.Detect on its first bytes). A first line longer than
// sessionformat.HeadBytes (a Codex session_meta with long instructions) is
// read whole, up to maxFirstLine, and sniffed with its long values cut. The
// error, for a file that is not a session Rhizome reads, says what it looks
// like.
func detectFormat(f io.ReaderAt, size int64) (string, error) {
	head := make([]byte, min(size, sessionformat.HeadBytes))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return "", fmt.Errorf("read: %w", err)
	}
	return detectFormatHead(f, size, head, "", "")
}

// detectFormatHead is detectFormat once head, the first min(size,
// sessionformat.HeadBytes) bytes of f, is read; format and why are
// sessionformat.Detect's answer for head when the caller has it (why not
// empty).
func detectFormatHead(f io.ReaderAt, size int64, head []byte, format, why string) (string, error) {
	// A document format is told by its envelope, whole or cut off (its
	// reader tells a document still being written); the beginning of a
	// document too short to tell is still being written.
	if why == "" {
		if df, _ := sessionformat.Detect(head); isDocumentFormat(df) {
			return df, nil
		}
	} else if isDocumentFormat(format) {
		return format, nil
	}
	if int64(len(head)) == size && (why == "" || format == sessionformat.Unknown) && openDocument(head) {
		return "", errStillWritten
	}
	if bytes.IndexByte(head, '\n') < 0 {
		if int64(len(head)) == sessionformat.HeadBytes {
			if short, ok := shortFirstLine(f, size); ok {
				head, why = short, ""
			} else if whole, _ := lineEnds(f, size); !whole {
				if size > maxFirstLine {
					return "", fmt.Errorf("not a session file Rhizome reads: its first line is longer than %d MB, more than a session's first line holds", maxFirstLine>>20)
				}
				return "", fmt.Errorf("the first line (%d bytes so far) has no newline and does not parse: the session is still being written", size)
			}
		} else if len(bytes.TrimSpace(head)) > 0 && !json.Valid(head) {
			return "", fmt.Errorf("the first line (%d bytes) has no newline and does not parse: the session is still being written", size)
		}
	}
	if why == "" {
		format, why = sessionformat.Detect(head)
	}
	switch format {
	case formatPi, formatClaudeCode, formatCodex, formatQwen, formatCopilot, formatGemini, formatCline, formatOpenCode:
		return format, nil
	case sessionformat.MemoBrain, sessionformat.RhizomeLoom, sessionformat.Loom, sessionformat.MiniLoom,
		sessionformat.Exoloom, sessionformat.Loomsidian:
		return "", fmt.Errorf("not a session file: %s; import it as what it is (a loom tree or a reasoning graph), not as a session", why)
	}
	return "", fmt.Errorf("not a session file Rhizome reads (pi, Claude Code, Qwen Code, Copilot CLI, Gemini CLI, Cline, OpenCode or Codex): %s", why)
}

// openDocument reports whether b, a whole file, is the beginning of a
// pretty-printed JSON document left open at its last byte (an object over
// several lines: a JSON Lines file's first line would be whole).
func openDocument(b []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	if len(t) == 0 || t[0] != '{' || bytes.IndexByte(t, '\n') < 0 {
		return false
	}
	return errors.Is(sessiondoc.Check(t, ""), sessiondoc.ErrIncomplete)
}

// lineEnds reports whether the first maxFirstLine bytes of f hold a
// newline.
func lineEnds(f io.ReaderAt, size int64) (bool, error) {
	r := io.NewSectionReader(f, 0, min(size, maxFirstLine))
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if bytes.IndexByte(buf[:n], '\n') >= 0 {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// maxFirstLine bounds the first line detectFormat reads when it is longer
// than sessionformat.HeadBytes.
const maxFirstLine = 16 << 20

// shortFirstLine reads the first line of f whole and returns it with every
// string value over 256 bytes emptied, and a newline: what Detect needs of
// it (its type and keys).
func shortFirstLine(f io.ReaderAt, size int64) ([]byte, bool) {
	r := io.NewSectionReader(f, 0, min(size, maxFirstLine))
	var line bytes.Buffer
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			line.Write(buf[:i])
			break
		}
		line.Write(buf[:n])
		if err != nil {
			return nil, false
		}
	}
	var obj map[string]any
	if json.Unmarshal(line.Bytes(), &obj) != nil {
		return nil, false
	}
	out, err := json.Marshal(shorten(obj))
	if err != nil {
		return nil, false
	}
	return append(out, '\n'), true
}

func shorten(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > 256 {
			return ""
		}
	case map[string]any:
		for k, e := range x {
			x[k] = shorten(e)
		}
	case []any:
		for i, e := range x {
			x[i] = shorten(e)
		}
	}
	return v
}

// priceUsage sets the cost of a Codex, Qwen Code, Copilot CLI or Gemini CLI
// response's usage from Rhizome's price table (analyze.DefaultPrices: the
// provider's published prices, "google" for Gemini CLI, else "openai";
// for an OpenCode response OpenCode did not price, its own provider;
// their logs carry tokens, not dollars — Copilot CLI's usage "cost" is a
// premium-request multiplier — and Qwen Code speaks the OpenAI API): input
// (uncached), cached input and output at the model's rates for the
// call's prompt size (Gemini bills prompts over 200k tokens higher). It
// reports false, leaving the cost zero, when the table has no price for
// the model (Qwen's models have none): the session's cost is then unknown
// for it (SessionMeta.Unpriced).
func priceUsage(provider, model string, u *session.Usage) bool {
	p, ok := analyze.DefaultPrices.Lookup(provider, model, "")
	if !ok || p.Provider != provider {
		return false
	}
	p = p.ForPrompt(u.Input + u.CacheRead)
	u.Cost.Input = float64(u.Input) * p.InputPerMTok / 1e6
	u.Cost.CacheRead = float64(u.CacheRead) * p.CacheReadPerMTok / 1e6
	u.Cost.Output = float64(u.Output) * p.OutputPerMTok / 1e6
	u.Cost.Total = u.Cost.Input + u.Cost.CacheRead + u.Cost.Output
	return true
}

// codexTitles finds the thread names of $CODEX_HOME/session_index.jsonl for
// rollouts: the index is looked for in the folders above a rollout (its
// sessions/YYYY/MM/DD/ or archived_sessions/), each read once per import.
type codexTitles struct {
	byDir map[string]map[string]codex.IndexEntry
}

// title returns the thread name of the rollout at path for thread id, ""
// when no index names it.
func (c *codexTitles) title(path, id string) string {
	if c.byDir == nil {
		c.byDir = map[string]map[string]codex.IndexEntry{}
	}
	dir := filepath.Dir(path)
	for range 5 {
		idx, ok := c.byDir[dir]
		if !ok {
			idx = readCodexIndex(filepath.Join(dir, "session_index.jsonl"))
			c.byDir[dir] = idx
		}
		if e, ok := idx[id]; ok {
			return e.Name
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

func readCodexIndex(path string) map[string]codex.IndexEntry {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	idx, _, _ := codex.ReadIndex(f, path)
	return idx
}

// addModel adds model to list unless it is there.
func addModel(list []string, model string) []string {
	for _, m := range list {
		if m == model {
			return list
		}
	}
	return append(list, model)
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isSubagentFile reports whether a Claude Code file is a sub-agent
// transcript by its header (the reader names it "agent-<agentId>").
func isSubagentFile(h *session.Header) bool {
	return h.AgentID != "" && strings.HasPrefix(h.ID, "agent-")
}

// DecodeStored decodes entries stored from a file of format, as its reader
// read them at import (see pisession.DecodeStored): header is the stored
// header (pi's header line; the header a Claude Code, Qwen Code, Copilot
// CLI or Codex reader made), the first of raws the entry with Seq
// firstSeq. What the reader derived from other lines (a result's tool
// name, a rewind, a copy) is not in the objects: the import stored it
// beside them (entryMeta; see entryView).
func DecodeStored(format string, header []byte, file string, firstSeq int, raws [][]byte) ([]*session.Entry, error) {
	if format == formatPi || format == "" {
		return pisession.DecodeStored(header, file, firstSeq, raws)
	}
	var hdr session.Header
	if err := json.Unmarshal(header, &hdr); err != nil {
		return nil, fmt.Errorf("the stored header of %s: %w", file, err)
	}
	if df, ok := documentFormats[format]; ok {
		return df.decode(hdr, file, firstSeq, raws)
	}
	var buf bytes.Buffer
	for _, r := range raws {
		buf.Write(r)
		buf.WriteByte('\n')
	}
	var rd sessionReader
	switch format {
	case formatClaudeCode:
		rd = &claudeReader{Reader: claudecode.NewReaderAt(&buf, file, claudecode.State{Header: hdr, Seq: firstSeq})}
	case formatQwen:
		rd = &qwenReader{Reader: qwen.NewReaderAt(&buf, file, qwen.State{Header: hdr, Seq: firstSeq})}
	case formatCopilot:
		rd = &copilotReader{Reader: copilot.NewReaderAt(&buf, file, copilot.State{Header: hdr, Seq: firstSeq})}
	case formatGemini:
		rd = &geminiReader{Reader: gemini.NewReaderAt(&buf, file, gemini.State{Header: hdr, Seq: firstSeq})}
	default:
		rd = &codexReader{Reader: codex.NewReaderAt(&buf, file, codex.State{Header: hdr, Seq: firstSeq})}
	}
	out := make([]*session.Entry, 0, len(raws))
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("unable to decode the stored entries of %s from %d: %w", file, firstSeq, err)
		}
		out = append(out, e)
	}
	if len(out) != len(raws) {
		return nil, fmt.Errorf("unable to decode the stored entries of %s from %d: %d objects gave %d entries", file, firstSeq, len(raws), len(out))
	}
	return out, nil
}

// DecodeRecords decodes stored entries of a file of format as DecodeStored
// does (recs in file order, one after the other), with what the import kept
// beside each (storedMeta): a copy's DuplicateOf, a replayed, rolled-back
// (or, in a document, dropped) or rewind entry, a tool result's tool name
// and the sub-agent it spawned. The entries read as the
// import read them, for the use cases that read a session back (the node
// panel's entries, summaries, knowledge, a reasoning run, an append's open
// segment).
func DecodeRecords(format string, header []byte, file string, recs []store.EntryRecord) ([]*session.Entry, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	raws := make([][]byte, len(recs))
	for i, r := range recs {
		raws[i] = r.Raw
	}
	es, err := DecodeStored(format, header, file, recs[0].Seq, raws)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		var m storedMeta
		if len(r.Meta) == 0 || json.Unmarshal(r.Meta, &m) != nil {
			continue // what cannot be read says nothing
		}
		e := es[i]
		e.Rewind = e.Rewind || m.Rewind
		e.Replayed = e.Replayed || m.Replayed
		e.RolledBack = e.RolledBack || m.RolledBack
		if m.DuplicateOf != "" {
			e.DuplicateOf = m.DuplicateOf
		}
		if e.Message != nil && e.Message.ToolName == "" {
			e.Message.ToolName = m.ToolName
		}
		if e.SubagentID == "" {
			e.SubagentID = m.SubagentID
		}
	}
	return es, nil
}

// storedMeta is what the import kept beside an entry (entryMeta), with
// rolledBack, which a later rollback sets.
type storedMeta struct {
	Rewind      bool   `json:"rewind"`
	DuplicateOf string `json:"duplicateOf"`
	Replayed    bool   `json:"replayed"`
	RolledBack  bool   `json:"rolledBack"`
	ToolName    string `json:"toolName"`
	SubagentID  string `json:"subagentId"`
}
