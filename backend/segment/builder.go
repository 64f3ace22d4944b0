package segment

import (
	"slices"

	"rhizome/backend/session"
)

// Step is what Builder.Add reports for one entry.
type Step struct {
	// Segment is the index of the segment the entry belongs to.
	Segment int
	// Closed is the segment the entry's boundaries ended (complete, never
	// changed again), or nil when the entry continues the current segment.
	Closed *Segment
	// Link is the structural edge into the segment the entry starts, or nil.
	// Its To is Segment; the segment itself is still open until a later Add
	// closes it or Finish returns it.
	Link *Link
}

// Builder cuts one session into segments and links while it is read: feed it
// the entries in file order with Add and it reports each segment as soon as
// it is complete, and the link into each new segment as soon as it starts;
// Finish returns the last segment. It holds one open segment and its
// Detector's map from entry id to segment index (needed to find the segment a
// branch or tree jump returns to), never the entries.
//
// See pi-brain-node-model.md, "Boundary Detection" and "Edge Creation", as
// corrected by ERRATA.md; the rules are on Detector and Links.
type Builder struct {
	det  *Detector
	cur  *Segment
	next int // index of the next segment to open
}

// NewBuilder returns a builder for one session.
func NewBuilder(opts Options) *Builder {
	return &Builder{det: NewDetector(opts)}
}

// Add feeds the next entry in file order. A nil entry is ignored (the Step
// then names the current segment, -1 before the first entry).
func (b *Builder) Add(e *session.Entry) Step {
	if e == nil {
		if b.cur == nil {
			return Step{Segment: -1}
		}
		return Step{Segment: b.cur.Index}
	}
	bs := b.det.Add(e)
	var st Step
	switch {
	case b.cur == nil:
		b.open(e, bs)
	case len(bs) > 0:
		st.Closed = b.cur
		b.open(e, bs)
		l := link(b.cur.Index, bs, b.det.SegmentOf)
		st.Link = &l
	default:
		b.extend(e)
	}
	st.Segment = b.cur.Index
	return st
}

// BuilderState is what a Builder carries between entries: its Detector's
// state, the open segment (nil before the first entry) and the index the
// next segment gets. The importer stores it (JSON) with a session and
// resumes with ResumeBuilder when the file grows.
type BuilderState struct {
	Detector DetectorState `json:"detector"`
	Open     *Segment      `json:"open,omitempty"`
	Next     int           `json:"next"`
}

// State returns the builder's state after the entries added so far.
func (b *Builder) State() BuilderState {
	st := BuilderState{Detector: b.det.State(), Next: b.next}
	if b.cur != nil {
		s := *b.cur
		s.Boundaries = slices.Clone(s.Boundaries)
		st.Open = &s
	}
	return st
}

// ResumeBuilder returns a builder that goes on from st (State of an earlier
// one) as that one would have; lookup finds the segment of the entries the
// earlier one had seen, by id (see ResumeDetector).
func ResumeBuilder(opts Options, st BuilderState, lookup func(id string) (int, bool)) *Builder {
	b := &Builder{det: ResumeDetector(opts, st.Detector, lookup), next: st.Next}
	if st.Open != nil {
		s := *st.Open
		if s.Boundaries == nil {
			s.Boundaries = []Boundary{}
		}
		b.cur = &s
	}
	return b
}

// Finish ends the session and returns its last segment, nil when no entry
// was added (or Finish was already called).
func (b *Builder) Finish() *Segment {
	s := b.cur
	b.cur = nil
	return s
}

// SegmentOf returns the index of the segment holding the entry with the
// given id, among the entries added so far.
func (b *Builder) SegmentOf(entryID string) (int, bool) {
	return b.det.SegmentOf(entryID)
}

func (b *Builder) open(e *session.Entry, bs []Boundary) {
	if bs == nil {
		bs = []Boundary{}
	}
	b.cur = &Segment{
		Index:          b.next,
		StartEntryID:   e.ID,
		EndEntryID:     e.ID,
		StartSeq:       e.Seq,
		EndSeq:         e.Seq,
		EntryCount:     1,
		StartTimestamp: e.Timestamp,
		EndTimestamp:   e.Timestamp,
		Boundaries:     bs,
	}
	b.next++
}

// extend adds e to the open segment. The segment's timestamps are those of
// its first and last entries that have one.
func (b *Builder) extend(e *session.Entry) {
	s := b.cur
	s.EndEntryID, s.EndSeq = e.ID, e.Seq
	s.EntryCount++
	if !e.Timestamp.IsZero() {
		if s.StartTimestamp.IsZero() {
			s.StartTimestamp = e.Timestamp
		}
		s.EndTimestamp = e.Timestamp
	}
}

// Split cuts a whole session into segments, in file order, each with the
// boundaries that start it (none for the first). It returns nil for no
// entries. For large files use a Builder while reading instead.
func Split(entries []session.Entry, opts Options) []Segment {
	b := NewBuilder(opts)
	var segs []Segment
	for i := range entries {
		if st := b.Add(&entries[i]); st.Closed != nil {
			segs = append(segs, *st.Closed)
		}
	}
	if s := b.Finish(); s != nil {
		segs = append(segs, *s)
	}
	return segs
}

// Links returns the structural edges between the segments of one session, as
// Split made them from entries (the entries are matched to segments by
// EntryCount, in order): one link into every segment after the first.
//
// A link's type is the edge type of the segment's primary boundary (highest
// priority): branch, tree_jump, compaction, resume, or continuation for a
// handoff (metadata "boundary": "handoff") or a segment without boundaries.
// Its source is the previous segment, except for branch and tree_jump, whose
// source is the segment holding the boundary's TargetEntryID (the session
// tree parent; the first segment for a jump to the root, the previous
// segment when the target is unknown): the segment that was left is
// abandoned and gets no link. Metadata: the metadata of all the entry's
// boundaries (the primary's wins on a clash), "boundaries" (all their types
// in priority order), "previousEntryId" and "targetEntryId" of the primary.
//
// See pi-brain-node-model.md, "Edge Creation", as corrected by ERRATA.md.
func Links(segs []Segment, entries []session.Entry) []Link {
	segmentOf := make(map[string]int)
	lookup := func(id string) (int, bool) {
		i, ok := segmentOf[id]
		return i, ok
	}
	var links []Link
	pos := 0
	register := func(i, n int) { // the next n entries are in segment i
		for ; n > 0 && pos < len(entries); n-- {
			if id := entries[pos].ID; id != "" {
				segmentOf[id] = i
			}
			pos++
		}
	}
	for i, s := range segs {
		// A link sees the entries up to its segment's first one, as in the
		// Builder (that only matters for duplicate ids).
		register(i, min(s.EntryCount, 1))
		if i > 0 {
			links = append(links, link(i, s.Boundaries, lookup))
		}
		register(i, s.EntryCount-1)
	}
	return links
}

// link makes the link into segment to, which starts with boundaries bs
// (priority order); segmentOf finds the segment of an earlier entry.
func link(to int, bs []Boundary, segmentOf func(id string) (int, bool)) Link {
	l := Link{From: to - 1, To: to, Type: EdgeContinuation}
	if len(bs) == 0 {
		return l
	}
	p := bs[0]
	l.Type = p.Type.EdgeType()
	if p.Type == Branch || p.Type == TreeJump {
		if p.TargetEntryID == "" {
			l.From = 0
		} else if i, ok := segmentOf(p.TargetEntryID); ok && i < to {
			l.From = i
		}
	}

	md := make(map[string]any)
	types := make([]string, 0, len(bs))
	for _, b := range bs {
		types = append(types, string(b.Type))
		for k, v := range b.Metadata {
			if _, ok := md[k]; !ok {
				md[k] = v
			}
		}
	}
	md["boundaries"] = types
	if p.Type == Handoff {
		md["boundary"] = string(Handoff)
	}
	if p.Type == SubAgent && md["returned"] == true {
		l.Type = EdgeContinuation
		md["boundary"] = string(SubAgent)
	}
	if p.PreviousEntryID != "" {
		md["previousEntryId"] = p.PreviousEntryID
	}
	if p.TargetEntryID != "" {
		md["targetEntryId"] = p.TargetEntryID
	}
	l.Metadata = md
	return l
}
