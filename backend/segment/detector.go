package segment

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"rhizome/backend/session"
)

// DefaultResumeGap is the idle time between two entries that makes the second
// one start a resume segment (pi-brain-node-model.md, "Boundary Types": 10+
// minute timestamp gap).
const DefaultResumeGap = 10 * time.Minute

// Options tunes boundary detection.
type Options struct {
	// ResumeGap is the smallest gap between the timestamps of two consecutive
	// entries that makes a resume boundary. Zero means DefaultResumeGap; a
	// negative value turns resume detection off.
	ResumeGap time.Duration
	// Branches says how the session's entries show a real branch: pi's
	// parent links (ParentJumps, the zero value) or the reader's flags
	// (RewindFlags).
	Branches BranchRule
}

// BranchRule is how a session format shows that the work went back to an
// earlier point (a branch).
type BranchRule uint8

const (
	// ParentJumps is pi's rule: an entry whose parentId is not the previous
	// entry's id (and names an earlier entry, or none) is a tree jump, a
	// branch_summary a branch.
	ParentJumps BranchRule = iota
	// RewindFlags is the rule for Claude Code and Codex logs, whose parent
	// links are recording artefacts as often as branches (metadata lines
	// have no parent, parallel tool results hang off their own call, a
	// compaction root's parent may be in another file; Codex links each
	// entry to the one before it): only an entry the reader flags Rewind
	// (a Claude Code /rewind, Esc-Esc, --resume-session-at), or a Codex
	// thread_rolled_back (RolledBackTurns), starts a branch. Its target is
	// the rewind's parent, or the entry before the first rolled-back turn.
	RewindFlags
)

// DefaultOptions returns the spec's settings: a 10 minute resume gap, pi's
// parent links.
func DefaultOptions() Options {
	return Options{ResumeGap: DefaultResumeGap}
}

// OptionsFor returns the options for a session format, as
// sessionformat.Detect names it: DefaultOptions for pi (and anything else),
// with RewindFlags for "claude-code", "qwen-code", "copilot-cli", "gemini-cli",
// "cline", "opencode" and "codex".
func OptionsFor(format string) Options {
	o := DefaultOptions()
	if format == "claude-code" || format == "qwen-code" || format == "codex" || format == "copilot-cli" || format == "gemini-cli" || format == "cline" ||
		format == "opencode" {
		o.Branches = RewindFlags
	}
	return o
}

func (o Options) resumeGap() time.Duration {
	if o.ResumeGap == 0 {
		return DefaultResumeGap
	}
	return o.ResumeGap
}

// Priority is the boundary's rank when several fall on one entry: branch 1,
// tree_jump 2, compaction 3, resume 4, handoff 5, subagent 6 (lower wins).
// Unknown types rank after all of them.
func (t BoundaryType) Priority() int {
	switch t {
	case Branch:
		return 1
	case TreeJump:
		return 2
	case Compaction:
		return 3
	case Resume:
		return 4
	case Handoff:
		return 5
	case SubAgent:
		return 6
	}
	return 7
}

// Edge types of the node model's structural edges (pi-brain-node-model.md,
// "Edge Data Structure"), and subagent: from the work that spawned a
// sub-agent to the sub-agent's conversation (an inline sidechain here; a
// sub-agent file of its own is linked by the importer, as forks are). Fork
// edges cross sessions and are made by the importer, not here.
const (
	EdgeContinuation = "continuation"
	EdgeBranch       = "branch"
	EdgeTreeJump     = "tree_jump"
	EdgeCompaction   = "compaction"
	EdgeResume       = "resume"
	EdgeSubagent     = "subagent"
)

// EdgeType is the edge type a boundary of type t gives the link into its
// segment: the boundary's own name, except handoff, which the node model has
// no edge type for and which becomes a continuation. (A subagent boundary
// that returns from the sub-agent gives a continuation too: see Links.)
func (t BoundaryType) EdgeType() string {
	switch t {
	case Branch:
		return EdgeBranch
	case TreeJump:
		return EdgeTreeJump
	case Compaction:
		return EdgeCompaction
	case Resume:
		return EdgeResume
	case SubAgent:
		return EdgeSubagent
	}
	return EdgeContinuation
}

// Detector finds the boundaries of one session, fed entry by entry in file
// order. It never holds entries: its state is the previous entry's id and
// timestamp, and the set of entry ids seen so far with the index of the
// segment each fell in (small strings; needed to tell a tree jump from a
// dangling parentId, and to find the segment a jump returns to).
//
// Rules (pi-brain-node-model.md, "Boundary Detection", corrected by
// ERRATA.md and checked against pi 0.73.1, see testdata/v3/README.md):
//   - branch: every branch_summary entry. Its parentId (= fromId) is the
//     navigation target (TargetEntryID, empty at the root); the abandoned
//     leaf (PreviousEntryID) is the entry before it in file order.
//   - tree_jump: any other entry whose parentId is not the previous entry's
//     id, and names an entry seen earlier in the file or is empty (an empty
//     parentId mid-file is a jump to the root). A parentId not in the file
//     (a fork that dropped a label) is no jump. Every appended entry, label
//     and session_info included, is the new leaf: the entry after a label
//     continues from the label.
//   - compaction: a compaction entry.
//   - resume: a gap of at least Options.ResumeGap since the previous entry;
//     skipped when either timestamp is zero or the clock went backwards.
//   - handoff: a custom entry with customType "handoff" (any case), or a user
//     message asking for one ("handoff to X", "hand off to X", "/handoff").
//   - subagent: an entry of a sub-agent's conversation (Entry.Sidechain)
//     after one of the main conversation, and the first entry back (metadata
//     {"returned": true}): Claude Code's older inline sidechains. A file that
//     is all sidechain (a sub-agent transcript) has none.
//
// With Options.Branches RewindFlags (Claude Code, Codex) branch and
// tree_jump are found differently: no tree jumps; a branch on every entry
// flagged Rewind (TargetEntryID its parentId, metadata {"rewind": true}) and
// on every Codex thread_rolled_back entry (TargetEntryID the entry before
// the first rolled-back turn, metadata {"rolledBackTurns": n}; none when
// that turn is not among the last maxTurns seen).
//
// Every boundary's PreviousEntryID is the entry before it in file order.
// Metadata: branch {summary, fromId}; compaction {summary, tokensBefore,
// firstKeptEntryId}; resume {gapMinutes, rounded to 0.1}; handoff {reason}.
//
// The first entry never starts a boundary. label and session_info entries
// never make a boundary of their own (a label is metadata on its target),
// but a tree jump or resume can fall on one: pi's /tree with a label and no
// summary writes the label as the first entry of the new branch, and it then
// starts the new segment.
type Detector struct {
	opts Options
	n    int // entries seen

	prevID        string
	prevTS        time.Time
	prevSidechain bool

	segment   int            // index of the current segment
	segmentOf map[string]int // entry id -> index of its segment, since NewDetector or ResumeDetector
	// lookup finds the entries added before ResumeDetector (nil: none).
	lookup func(id string) (int, bool)
	turns  []TurnStart // RewindFlags: the last maxTurns turns, oldest first
}

// maxTurns bounds the turns a Detector remembers to find the target of a
// rollback (Codex rolls back the last few turns).
const maxTurns = 64

// TurnStart is where a turn began: its id and the entry before its first
// one ("" at the start of the session).
type TurnStart struct {
	TurnID string `json:"turnId"`
	Before string `json:"before"`
}

// NewDetector returns a detector for one session.
func NewDetector(opts Options) *Detector {
	return &Detector{opts: opts, segmentOf: make(map[string]int)}
}

// DetectorState is what a Detector carries from one entry to the next,
// without the entry ids it has seen (the library holds them): the importer
// stores it with a session and resumes with ResumeDetector when the file
// grows. Small: a few ids and at most maxTurns turns.
type DetectorState struct {
	Entries       int         `json:"entries"`
	PrevID        string      `json:"prevId"`
	PrevTS        time.Time   `json:"prevTs"`
	PrevSidechain bool        `json:"prevSidechain,omitempty"`
	Segment       int         `json:"segment"`
	Turns         []TurnStart `json:"turns,omitempty"`
}

// State returns the detector's state after the entries added so far.
func (d *Detector) State() DetectorState {
	return DetectorState{Entries: d.n, PrevID: d.prevID, PrevTS: d.prevTS, PrevSidechain: d.prevSidechain,
		Segment: d.segment, Turns: slices.Clone(d.turns)}
}

// ResumeDetector returns a detector that goes on from st (State of an
// earlier one) as that one would have: lookup must find the segment index
// of the entries it had seen by id (the last one with that id), as
// SegmentOf would have.
func ResumeDetector(opts Options, st DetectorState, lookup func(id string) (int, bool)) *Detector {
	d := NewDetector(opts)
	d.n, d.prevID, d.prevTS, d.prevSidechain, d.segment = st.Entries, st.PrevID, st.PrevTS, st.PrevSidechain, st.Segment
	d.turns = slices.Clone(st.Turns)
	d.lookup = lookup
	return d
}

// Add feeds the next entry in file order. It returns the boundaries that
// start at this entry, ordered by priority (nil if none); when non-empty the
// entry starts a new segment. A nil entry is ignored.
func (d *Detector) Add(e *session.Entry) []Boundary {
	if e == nil {
		return nil
	}
	d.n++
	var bs []Boundary
	if d.n > 1 {
		bs = d.boundaries(e)
	}
	if len(bs) > 0 {
		d.segment++
	}
	if e.ID != "" {
		d.segmentOf[e.ID] = d.segment
	}
	if d.opts.Branches == RewindFlags && e.TurnID != "" && (len(d.turns) == 0 || d.turns[len(d.turns)-1].TurnID != e.TurnID) &&
		!slices.ContainsFunc(d.turns, func(t TurnStart) bool { return t.TurnID == e.TurnID }) {
		if len(d.turns) == maxTurns {
			d.turns = slices.Delete(d.turns, 0, 1)
		}
		d.turns = append(d.turns, TurnStart{TurnID: e.TurnID, Before: d.prevID})
	}
	d.prevID, d.prevTS, d.prevSidechain = e.ID, e.Timestamp, e.Sidechain
	return bs
}

// SegmentOf returns the index of the segment (counted from 0 in the order
// Add started them) that holds the entry with the given id, among the
// entries added so far. With duplicate ids the last one wins.
func (d *Detector) SegmentOf(entryID string) (int, bool) {
	if i, ok := d.segmentOf[entryID]; ok {
		return i, ok
	}
	if d.lookup != nil && entryID != "" {
		return d.lookup(entryID)
	}
	return 0, false
}

// boundaries finds the boundaries starting at e, not the first entry.
func (d *Detector) boundaries(e *session.Entry) []Boundary {
	var bs []Boundary
	boundary := func(t BoundaryType) Boundary {
		return Boundary{Type: t, EntryID: e.ID, Timestamp: e.Timestamp, PreviousEntryID: d.prevID}
	}

	switch {
	case d.opts.Branches == RewindFlags:
		if e.Rewind {
			b := boundary(Branch)
			b.TargetEntryID = e.ParentID
			b.Metadata = map[string]any{"rewind": true}
			bs = append(bs, b)
		} else if target, ok := d.rollbackTarget(e.RolledBackTurns); ok {
			b := boundary(Branch)
			b.TargetEntryID = target
			b.Metadata = map[string]any{"rolledBackTurns": len(e.RolledBackTurns)}
			bs = append(bs, b)
		}
	case e.Type == session.TypeBranchSummary:
		b := boundary(Branch)
		b.TargetEntryID = branchTarget(e)
		b.Metadata = map[string]any{"summary": e.Summary, "fromId": e.FromID}
		bs = append(bs, b)
	case e.ParentID != d.prevID && (e.ParentID == "" || d.known(e.ParentID)):
		b := boundary(TreeJump)
		b.TargetEntryID = e.ParentID
		bs = append(bs, b)
	}

	if e.Type == session.TypeCompaction {
		b := boundary(Compaction)
		b.Metadata = map[string]any{
			"summary":          e.Summary,
			"tokensBefore":     e.TokensBefore,
			"firstKeptEntryId": e.FirstKeptEntryID,
		}
		bs = append(bs, b)
	}

	if gap, ok := d.gap(d.prevTS, e.Timestamp); ok {
		b := boundary(Resume)
		b.Metadata = map[string]any{"gapMinutes": gapMinutes(gap)}
		bs = append(bs, b)
	}

	if reason, ok := handoffReason(e); ok {
		b := boundary(Handoff)
		b.Metadata = map[string]any{"reason": reason}
		bs = append(bs, b)
	}

	if e.Sidechain != d.prevSidechain {
		b := boundary(SubAgent)
		if !e.Sidechain {
			b.Metadata = map[string]any{"returned": true}
		}
		bs = append(bs, b)
	}

	slices.SortStableFunc(bs, func(a, b Boundary) int { return a.Type.Priority() - b.Type.Priority() })
	return bs
}

func (d *Detector) known(id string) bool {
	_, ok := d.SegmentOf(id)
	return ok
}

// rollbackTarget is the entry before the first of the turns a rollback
// supersedes, when it is among the turns remembered.
func (d *Detector) rollbackTarget(turns []string) (string, bool) {
	if len(turns) == 0 {
		return "", false
	}
	for _, t := range d.turns {
		if slices.Contains(turns, t.TurnID) {
			return t.Before, t.Before != ""
		}
	}
	return "", false
}

// gap reports the time from prev to cur when it is at least the resume gap.
func (d *Detector) gap(prev, cur time.Time) (time.Duration, bool) {
	limit := d.opts.resumeGap()
	if limit < 0 || prev.IsZero() || cur.IsZero() {
		return 0, false
	}
	g := cur.Sub(prev)
	return g, g >= limit
}

// branchTarget is a branch_summary's navigation target: its parentId, or its
// fromId when the parentId is missing; empty at the root.
func branchTarget(e *session.Entry) string {
	if e.ParentID != "" {
		return e.ParentID
	}
	if e.FromID != "root" {
		return e.FromID
	}
	return ""
}

// gapMinutes is g in minutes, rounded to 0.1.
func gapMinutes(g time.Duration) float64 {
	return math.Round(g.Minutes()*10) / 10
}

var (
	handoffText    = regexp.MustCompile(`(?i)\bhand[- ]?off\s+to\b`)
	handoffCommand = regexp.MustCompile(`(?i)^\s*/handoff\b`)
)

// maxReasonRunes caps the reason text a handoff boundary keeps.
const maxReasonRunes = 200

// handoffReason reports whether e asks for a hand-off and why: a custom entry
// with customType "handoff" (reason from its data's "reason" or "target"
// field), or a user message matching "handoff to", "hand-off to", "hand off
// to" or starting with "/handoff" (reason: the line that asked).
func handoffReason(e *session.Entry) (string, bool) {
	switch e.Type {
	case session.TypeCustom:
		if !strings.EqualFold(e.CustomType, "handoff") {
			return "", false
		}
		return customHandoffReason(e.Data), true
	case session.TypeMessage:
		if e.Message == nil || e.Message.Role != session.RoleUser {
			return "", false
		}
		text := userText(e.Message)
		if handoffCommand.MatchString(text) {
			return clip(firstLine(strings.TrimSpace(text))), true
		}
		loc := handoffText.FindStringIndex(text)
		if loc == nil {
			return "", false
		}
		start := strings.LastIndexByte(text[:loc[0]], '\n') + 1
		end := len(text)
		if i := strings.IndexByte(text[loc[0]:], '\n'); i >= 0 {
			end = loc[0] + i
		}
		return clip(strings.TrimSpace(text[start:end])), true
	}
	return "", false
}

// customHandoffReason reads a handoff custom entry's data: its "reason" or
// "target" string field, or the data itself when it is a string.
func customHandoffReason(data json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(data, &fields) == nil {
		for _, k := range []string{"reason", "target"} {
			if s, ok := fields[k].(string); ok && s != "" {
				return clip(s)
			}
		}
	}
	var s string
	if json.Unmarshal(data, &s) == nil && s != "" {
		return clip(s)
	}
	return "custom handoff entry"
}

// userText joins the text blocks of a message.
func userText(m *session.Message) string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type != session.BlockText {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(b.Text)
	}
	return sb.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// clip cuts s to maxReasonRunes runes.
func clip(s string) string {
	n := 0
	for i := range s {
		if n == maxReasonRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
