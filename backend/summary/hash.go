package summary

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"rhizome/backend/segment"
)

// Input hashes: a summary is stale when the hash of its kind's current
// inputs differs from its InputHash. Each is the first 16 bytes (32 hex
// characters) of a SHA-256 over a domain tag, the kind and the fields, each
// length-prefixed, so no two different inputs share a byte stream. The
// fields are what the store knows without reading entries again.

// SessionInputs are what a session's summary is made from. pi appends only,
// so the count and last id change whenever entries are added; a rename
// (a new session_info entry) changes Name and adds an entry.
type SessionInputs struct {
	SessionID   string // the header's id
	Entries     int    // entries read, in file order
	LastEntryID string // id of the last entry in file order
	Name        string // the latest session_info name ("" if none)
}

// SessionHash is the input hash of a session summary.
func SessionHash(in SessionInputs) string {
	return hashFields(KindSession, in.SessionID, strconv.Itoa(in.Entries), in.LastEntryID, in.Name)
}

// SegmentInputs are what a segment's summary is made from: its entries
// (named by position and ids: entries never change once written) and the
// branch_summary that follows it, which is pi's summary of the segment when
// the user navigated away from it.
type SegmentInputs struct {
	SessionID    string // the header's id
	StartSeq     int    // segment.Segment.StartSeq
	EntryCount   int    // segment.Segment.EntryCount
	StartEntryID string // segment.Segment.StartEntryID
	EndEntryID   string // segment.Segment.EndEntryID
	// FollowedBy is the id of the branch_summary entry that opens the next
	// segment ("" when the next segment starts otherwise, or there is none).
	FollowedBy string
}

// SegmentInputsOf returns the inputs of segs[i] of session sessionID, segs
// being all the session's segments in order (segment.Split, or the
// Builder's closed segments).
func SegmentInputsOf(sessionID string, segs []segment.Segment, i int) SegmentInputs {
	s := segs[i]
	in := SegmentInputs{SessionID: sessionID, StartSeq: s.StartSeq, EntryCount: s.EntryCount,
		StartEntryID: s.StartEntryID, EndEntryID: s.EndEntryID}
	if i+1 < len(segs) {
		in.FollowedBy = followingSummary(segs[i+1].Boundaries)
	}
	return in
}

// followingSummary is the id of the branch_summary entry among the
// boundaries that open a segment, or "".
func followingSummary(bs []segment.Boundary) string {
	for _, b := range bs {
		if b.Type == segment.Branch {
			return b.EntryID
		}
	}
	return ""
}

// SegmentHash is the input hash of a segment summary.
func SegmentHash(in SegmentInputs) string {
	return hashFields(KindSegment, in.SessionID, strconv.Itoa(in.StartSeq), strconv.Itoa(in.EntryCount),
		in.StartEntryID, in.EndEntryID, in.FollowedBy)
}

// LoomNodeInputs are what a loom node's summary is made from: the spec's
// context (aspen-grove-core-entities.md, "Node Summaries"): the tree title,
// the node, its parent and, when the node is short, its grandparent. Nodes
// are immutable, so their content hashes stand for their content.
type LoomNodeInputs struct {
	TreeTitle              string // frames the summary (the spec's "Tree:")
	NodeHash               string // loom.Node.ContentHash
	ParentHash             string // "" for a root
	GrandparentHash        string // "" unless used (the node is short)
	ParentSummaryAvailable bool   // the prompt used the parent's summary rather than its text
}

// LoomNodeHash is the input hash of a loom node summary.
func LoomNodeHash(in LoomNodeInputs) string {
	return hashFields(KindLoomNode, in.TreeTitle, in.NodeHash, in.ParentHash, in.GrandparentHash,
		strconv.FormatBool(in.ParentSummaryAvailable))
}

// LoomTreeInputs are what a loom tree's summary is made from (spec, "LoomTree
// Summaries"): its title and description, the nodes of its main path and
// its branch points. The app decides when to remake a stale tree summary
// (every 10 new nodes by default, on demand).
type LoomTreeInputs struct {
	TreeID       string   // the tree's ULID
	Title        string   // the tree's title
	Description  string   // the user's description of the tree
	PathHashes   []string // content hashes of the main path's nodes, root first
	BranchPoints int      // positions with more than one child (loom.Tree.BranchPoints)
	Nodes        int      // all nodes of the tree
}

// LoomTreeHash is the input hash of a loom tree summary.
func LoomTreeHash(in LoomTreeInputs) string {
	f := []string{in.TreeID, in.Title, in.Description, strconv.Itoa(in.BranchPoints), strconv.Itoa(in.Nodes)}
	return hashFields(KindLoomTree, append(f, in.PathHashes...)...)
}

// ProjectInputs are what a project's summary is made from: its path and the
// input hashes of its sessions' summaries, oldest session first.
type ProjectInputs struct {
	Path          string   // the project directory (the sessions' cwd)
	SessionHashes []string // the InputHash of each session's summary, oldest session first
}

// ProjectHash is the input hash of a project summary.
func ProjectHash(in ProjectInputs) string {
	return hashFields(KindProject, append([]string{in.Path}, in.SessionHashes...)...)
}

// hashFields hashes a kind and its fields.
func hashFields(k Kind, fields ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	write := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	write("rhizome-summary-input")
	write(string(k))
	for _, f := range fields {
		write(f)
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}
