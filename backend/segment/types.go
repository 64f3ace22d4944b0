// Package segment cuts a pi session into segments at boundaries and derives
// the structural edges between them.
//
// See ../shared/specs/pi-brain-node-model.md, "Boundary Detection", as
// corrected by ../shared/specs/ERRATA.md.
package segment

import "time"

// BoundaryType names why a segment starts.
type BoundaryType string

// Boundary types, with the spec's priority (lower wins when several fall on
// the same entry): branch 1, tree_jump 2, compaction 3, resume 4, handoff 5;
// then subagent 6, into or out of a sub-agent's conversation kept inline
// (Claude Code's older isSidechain lines).
const (
	Branch     BoundaryType = "branch"
	TreeJump   BoundaryType = "tree_jump"
	Compaction BoundaryType = "compaction"
	Resume     BoundaryType = "resume"
	Handoff    BoundaryType = "handoff"
	SubAgent   BoundaryType = "subagent"
)

// Boundary is a point in the session where a new segment starts.
type Boundary struct {
	Type BoundaryType `json:"type"`
	// EntryID is the first entry of the new segment.
	EntryID   string    `json:"entryId"`
	Timestamp time.Time `json:"timestamp"`
	// PreviousEntryID is the entry the work left: for branch, the abandoned
	// leaf (the entry before the branch_summary in file order); for
	// tree_jump, the previous entry; for resume, the entry before the gap.
	PreviousEntryID string `json:"previousEntryId,omitempty"`
	// TargetEntryID is where the work continues from in the session tree
	// (the new segment's parent entry) for branch and tree_jump.
	TargetEntryID string `json:"targetEntryId,omitempty"`
	// Metadata: summary (branch, compaction), gapMinutes (resume),
	// tokensBefore (compaction), reason (handoff), rewind or rolledBackTurns
	// (branch of a Claude Code or Codex log), returned (subagent).
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Segment is a run of consecutive entries in file order between boundaries.
type Segment struct {
	// Index is the 0-based position of the segment in its session.
	Index          int       `json:"index"`
	StartEntryID   string    `json:"startEntryId"`
	EndEntryID     string    `json:"endEntryId"`
	StartSeq       int       `json:"startSeq"` // Entry.Seq of the first entry
	EndSeq         int       `json:"endSeq"`   // Entry.Seq of the last entry (inclusive)
	EntryCount     int       `json:"entryCount"`
	StartTimestamp time.Time `json:"startTimestamp"`
	EndTimestamp   time.Time `json:"endTimestamp"`
	// Boundaries that start this segment (empty for the first segment),
	// ordered by priority.
	Boundaries []Boundary `json:"boundaries"`
}

// Link is a structural edge between two segments of one session, by index.
// Type is an edge type of the node model: continuation, branch, tree_jump,
// compaction, resume or subagent (a handoff boundary, and a subagent one
// that returns from the sub-agent, give a continuation edge whose metadata
// says so).
type Link struct {
	From     int            `json:"from"`
	To       int            `json:"to"`
	Type     string         `json:"type"`
	Metadata map[string]any `json:"metadata,omitempty"`
}
