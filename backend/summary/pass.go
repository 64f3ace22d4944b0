package summary

import (
	"time"

	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// dominantPercent is the share of a compaction's segments' entries one of
// them must hold for the compaction to be that segment's summary.
const dominantPercent = 80

// Made is a summary a Pass made: of segment Segment of the session, or of
// the session itself (Segment -1).
type Made struct {
	Segment  int     // the segment's index; -1 for the session
	StartSeq int     // the Seq of the segment's first entry (its node's id is made from it)
	Summary  Summary // its kind says which
}

// Pass makes the offline summaries of one session while its entries are
// read in file order, beside the caller's segment.Builder: one Accumulator
// for the open segment (told the entry that opens the next one, see
// Followed), one for the whole session, and the compactions, each made the
// summary of the segment it summarises (SourcePi).
//
// A compaction is pi's summary of the work before it: of the segments
// closed since the previous compaction (or the session's start) that begin
// before the compaction's first kept entry (all of them when that entry is
// unknown), as a compaction summarises what it drops, incrementally. When
// one of them holds at least dominantPercent of their entries, the
// compaction's text becomes that segment's summary; that segment is closed
// for good (the compaction opens a new one), so the summary never goes
// stale. A compaction over the work of several segments is no one
// segment's summary (it would give them all one label): it stays what the
// session's summary opens with and what the segment it opens says. That
// segment keeps its own summary: its requests, or "Context compacted" while
// it holds nothing else (see Accumulator.Segment).
//
// Entries may be fed from any point (an append feeds the last stored
// segment and the new ones): only segments whose every entry was fed are
// summarised, the session only when fed from its first entry, and
// compactions only when every segment since the previous one was fed.
// Memory stays bounded as the Accumulators' does, plus a few numbers per
// segment closed since the last compaction.
//
// A Pass is not safe for concurrent use.
type Pass struct {
	sessionID, project string
	now                time.Time

	seg, sess  *Accumulator
	firstFed   int  // Seq of the first entry fed; -1 before any
	segFedFrom int  // Seq of the first entry fed to seg since its Reset
	sessWhole  bool // sess saw the session from its first entry

	since      []closedSegment // segments closed since the last compaction
	sinceWhole bool            // since covers every segment since the last compaction
	// segCompacted says a compaction was fed since seg's Reset (OpenState).
	segCompacted bool
	made         []Made
}

// closedSegment is what a compaction needs of a segment closed before it.
type closedSegment struct {
	seg    segment.Segment
	inputs SegmentInputs
}

// NewPass returns the pass over session sessionID, whose working directory
// is project; now is the time its summaries are made.
func NewPass(sessionID, project string, now time.Time) *Pass {
	return &Pass{sessionID: sessionID, project: project, now: now, seg: NewAccumulator(), sess: NewAccumulator(),
		firstFed: -1, segFedFrom: -1}
}

// Add feeds entry e, with the step the caller's segment builder took for
// it (builder.Add(e)) and the builder's SegmentOf. Summaries of the
// segment it closed, and of the segment a compaction summarises, are then
// ready for Take.
func (p *Pass) Add(e *session.Entry, step segment.Step, segmentOf func(entryID string) (int, bool)) {
	if e == nil {
		return
	}
	if p.firstFed < 0 {
		p.firstFed = e.Seq
		p.sessWhole = e.Seq == 0
		p.sinceWhole = e.Seq == 0
		p.segFedFrom = e.Seq
	}
	if step.Closed != nil {
		p.seg.Followed(e)
		p.closeSegment(step.Closed)
	}
	if e.Type == session.TypeCompaction {
		p.compaction(e, segmentOf)
		p.segCompacted = true
	}
	if p.segFedFrom < 0 {
		p.segFedFrom = e.Seq
	}
	p.seg.Add(e)
	p.sess.Add(e)
}

// Finish closes the last segment (builder.Finish()'s, nil when there is
// none): its summary is then ready for Take.
func (p *Pass) Finish(last *segment.Segment) {
	if last != nil {
		p.closeSegment(last)
	}
}

// closeSegment summarises a closed segment when every entry was fed, and
// keeps it for the next compaction.
func (p *Pass) closeSegment(s *segment.Segment) {
	whole := p.segFedFrom >= 0 && p.segFedFrom <= s.StartSeq
	if whole {
		sum := p.seg.Segment(p.sessionID, *s, p.now)
		p.made = append(p.made, Made{Segment: s.Index, StartSeq: s.StartSeq, Summary: sum})
		p.since = append(p.since, closedSegment{seg: *s, inputs: p.seg.segmentInputs(p.sessionID, *s)})
	} else {
		p.sinceWhole = false
	}
	p.seg.Reset()
	p.segFedFrom, p.segCompacted = -1, false
}

// compaction makes compaction e the summary of the segment it summarises
// (see Pass) and starts counting segments again.
func (p *Pass) compaction(e *session.Entry, segmentOf func(string) (int, bool)) {
	defer func() { p.since, p.sinceWhole = p.since[:0], true }()
	if !p.sinceWhole || len(p.since) == 0 {
		return
	}
	d := ParseDigest(e.Summary)
	if d.Empty() {
		return
	}
	cands := p.since
	if e.FirstKeptEntryID != "" && segmentOf != nil {
		if kept, ok := segmentOf(e.FirstKeptEntryID); ok {
			var before []closedSegment
			for _, c := range p.since {
				if c.seg.Index <= kept {
					before = append(before, c)
				}
			}
			if len(before) > 0 {
				cands = before
			}
		}
	}
	best, total := cands[0], 0
	for _, c := range cands {
		total += c.seg.EntryCount
		if c.seg.EntryCount >= best.seg.EntryCount {
			best = c
		}
	}
	if best.seg.EntryCount*100 < total*dominantPercent {
		return // several segments' work: the session's summary and the compaction's own segment say it
	}
	s := Summary{Kind: KindSegment, Source: SourcePi, MadeAt: p.now.UTC(), InputHash: SegmentHash(best.inputs),
		Text: digestSentence(d, MaxSentenceWords), Label: digestLabel(d)}
	if s.Text == "" || s.Label == "" || s.Validate() != nil {
		return
	}
	p.made = append(p.made, Made{Segment: best.seg.Index, StartSeq: best.seg.StartSeq, Summary: s})
}

// Take returns the summaries made since the last Take, in the order they
// were made (a segment's offline summary before the pi summary a later
// compaction gives it).
func (p *Pass) Take() []Made {
	out := p.made
	p.made = nil
	return out
}

// Session returns the offline summary of the session, and false when the
// pass was not fed from the session's first entry.
func (p *Pass) Session() (Summary, bool) {
	if !p.sessWhole {
		return Summary{}, false
	}
	return p.sess.Session(p.sessionID, p.project, p.now), true
}

// SessionAccumulator is the accumulator of the whole session, for its model
// prompt (SessionPrompt); it holds what Session summarised.
func (p *Pass) SessionAccumulator() *Accumulator { return p.sess }
