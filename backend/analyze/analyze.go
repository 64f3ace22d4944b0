// Package analyze is Rhizome's deterministic offline analyzer: it turns the
// entries of one session segment into a graph.Node by documented rules, with
// no model. It fills every node field it can derive honestly from the entries
// (summary, classification, outcome, files, tools, errors, token use and cost,
// tags and topics) and leaves the rest empty: lessons, key decisions and the
// model observations other than modelsUsed need a model.
//
// The analyzer is streaming: an Accumulator is fed the segment's entries one
// at a time and keeps only bounded facts, so the importer never has to hold a
// segment (or a 300 MB corpus) in memory.
//
// When a model is configured, AnalyzeSegment (model.go) makes the full node
// with it: the offline node stays the default and keeps the facts a model
// cannot know, and the model fills classification, content, lessons at all
// seven levels, observations, semantic data and proposed relationships, as
// one JSON object valid against analysis.schema.json (schema.go). The
// prompt (prompt.go) is the segment's transcript, bounded and cut into
// chunks that fit the model's context (chunk.go), whose answers are merged
// (merge.go) into the node (compose.go). Cost control is in cost.go, the
// version triggers in version.go. See issue 9, section 1.
//
// See ../shared/specs/pi-brain-node-model.md, "Node Data Structure", and
// ERRATA.md for the session format.
package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// Version is the analyzer version written to metadata.analyzerVersion. Bump it
// whenever a rule changes, so that nodes analyzed by older rules can be found
// and re-analyzed (a new node version).
const Version = "offline-1"

// Input is what the analyzer knows about a segment besides its entries.
type Input struct {
	// Header is the session file's header: cwd (the project), id and
	// parentSession are used.
	Header session.Header
	// SessionFile is the absolute path of the session file.
	SessionFile string
	// Computer is the hostname of the machine the session was recorded on.
	Computer string
	// Segment is the segment being analyzed, as segment.Split made it. Its
	// ids, entry count and timestamps win over what the accumulator saw; its
	// boundaries tell a hand-off segment.
	Segment segment.Segment
	// IsNewProject says this is the first session seen for the project; the
	// importer knows, the analyzer copies it.
	IsNewProject bool
	// Abandoned says the work of this segment was left by navigating away
	// from it: the next segment starts with a branch or tree_jump boundary
	// whose PreviousEntryID is this segment's last entry. See
	// LeftByNavigation, which computes it from the session's segments.
	Abandoned bool
}

// Analyze builds the node of one segment from all its entries, in file order.
// It is NewAccumulator, Add for every entry, then Node.
func Analyze(in Input, entries []session.Entry, now time.Time) graph.Node {
	a := NewAccumulator()
	for i := range entries {
		a.Add(&entries[i])
	}
	return a.Node(in, now)
}

// NodeID is the deterministic id of the node of the segment whose first
// entry has 0-based file position startSeq (session.Entry.Seq) in session
// sessionID: the first 16 lowercase hex characters (64 bits) of
// SHA-256("rhizome-node\x00" + sessionID + "\x00" + decimal startSeq).
// Re-importing a session gives its segments the same ids; a re-analysis makes
// a new version of the same id. The position, not the entry id, is hashed:
// entry ids can repeat in a damaged file (and version 1 ids are synthetic),
// and two segments must never share a node. See pi-brain-node-model.md, "Node ID
// Generation" (random there; deterministic here so that imports are
// idempotent).
func NodeID(sessionID string, startSeq int) string {
	h := sha256.New()
	h.Write([]byte("rhizome-node\x00"))
	h.Write([]byte(sessionID))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(startSeq), 10))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// LeftByNavigation reports whether segs[i] was abandoned: the segment after
// it starts with a branch or tree_jump boundary, so the user navigated away
// from segs[i]'s leaf (the boundary's PreviousEntryID, which is segs[i]'s last
// entry or, when label entries were appended after it, the last entry before
// them). segs are one session's segments in order; an index out of range, or
// the last segment, gives false.
//
// A segment that ends because of a compaction, a resume or a hand-off was not
// abandoned: the work goes on from its leaf.
func LeftByNavigation(segs []segment.Segment, i int) bool {
	if i < 0 || i+1 >= len(segs) {
		return false
	}
	for _, b := range segs[i+1].Boundaries {
		if b.Type == segment.Branch || b.Type == segment.TreeJump {
			return true
		}
	}
	return false
}
