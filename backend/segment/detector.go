package segment

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"rhizome/backend/pisession"
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
}

// DefaultOptions returns the spec's settings: a 10 minute resume gap.
func DefaultOptions() Options {
	return Options{ResumeGap: DefaultResumeGap}
}

func (o Options) resumeGap() time.Duration {
	if o.ResumeGap == 0 {
		return DefaultResumeGap
	}
	return o.ResumeGap
}

// Priority is the boundary's rank when several fall on one entry: branch 1,
// tree_jump 2, compaction 3, resume 4, handoff 5 (lower wins). Unknown types
// rank after all of them.
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
	}
	return 6
}

// Edge types of the node model's structural edges (pi-brain-node-model.md,
// "Edge Data Structure"). Fork edges cross sessions and are made by the
// importer, not here.
const (
	EdgeContinuation = "continuation"
	EdgeBranch       = "branch"
	EdgeTreeJump     = "tree_jump"
	EdgeCompaction   = "compaction"
	EdgeResume       = "resume"
)

// EdgeType is the edge type a boundary of type t gives the link into its
// segment: the boundary's own name, except handoff, which the node model has
// no edge type for and which becomes a continuation.
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

	prevID string
	prevTS time.Time

	segment   int            // index of the current segment
	segmentOf map[string]int // entry id -> index of its segment
}

// NewDetector returns a detector for one session.
func NewDetector(opts Options) *Detector {
	return &Detector{opts: opts, segmentOf: make(map[string]int)}
}

// Add feeds the next entry in file order. It returns the boundaries that
// start at this entry, ordered by priority (nil if none); when non-empty the
// entry starts a new segment. A nil entry is ignored.
func (d *Detector) Add(e *pisession.Entry) []Boundary {
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
	d.prevID, d.prevTS = e.ID, e.Timestamp
	return bs
}

// SegmentOf returns the index of the segment (counted from 0 in the order
// Add started them) that holds the entry with the given id, among the
// entries added so far. With duplicate ids the last one wins.
func (d *Detector) SegmentOf(entryID string) (int, bool) {
	i, ok := d.segmentOf[entryID]
	return i, ok
}

// boundaries finds the boundaries starting at e, not the first entry.
func (d *Detector) boundaries(e *pisession.Entry) []Boundary {
	var bs []Boundary
	boundary := func(t BoundaryType) Boundary {
		return Boundary{Type: t, EntryID: e.ID, Timestamp: e.Timestamp, PreviousEntryID: d.prevID}
	}

	if e.Type == pisession.TypeBranchSummary {
		b := boundary(Branch)
		b.TargetEntryID = branchTarget(e)
		b.Metadata = map[string]any{"summary": e.Summary, "fromId": e.FromID}
		bs = append(bs, b)
	} else if e.ParentID != d.prevID && (e.ParentID == "" || d.known(e.ParentID)) {
		b := boundary(TreeJump)
		b.TargetEntryID = e.ParentID
		bs = append(bs, b)
	}

	if e.Type == pisession.TypeCompaction {
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

	slices.SortStableFunc(bs, func(a, b Boundary) int { return a.Type.Priority() - b.Type.Priority() })
	return bs
}

func (d *Detector) known(id string) bool {
	_, ok := d.segmentOf[id]
	return ok
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
func branchTarget(e *pisession.Entry) string {
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
func handoffReason(e *pisession.Entry) (string, bool) {
	switch e.Type {
	case pisession.TypeCustom:
		if !strings.EqualFold(e.CustomType, "handoff") {
			return "", false
		}
		return customHandoffReason(e.Data), true
	case pisession.TypeMessage:
		if e.Message == nil || e.Message.Role != pisession.RoleUser {
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
func userText(m *pisession.Message) string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type != pisession.BlockText {
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
