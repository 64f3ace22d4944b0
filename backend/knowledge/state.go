package knowledge

import (
	"encoding/json"
	"fmt"
	"time"

	"rhizome/backend/graph"
)

// An Extractor's state, kept with a session so that an append goes on from
// it instead of feeding the open segment's stored entries again (app/ingest;
// as analyze.Accumulator's state). Its size is bounded as the Extractor's
// is: at most maxCandidates items, the current turn's answers and the last
// two assistant texts (capped at maxKeptReply).

// bodyState is a candidate's body: one of its fields is set.
type bodyState struct {
	Decision       *Decision       `json:"decision,omitempty"`
	Correction     *Correction     `json:"correction,omitempty"`
	Exception      *Exception      `json:"exception,omitempty"`
	FailedApproach *FailedApproach `json:"failedApproach,omitempty"`
	Insight        *Insight        `json:"insight,omitempty"`
	Question       *Question       `json:"question,omitempty"`
	ProjectFact    *ProjectFact    `json:"projectFact,omitempty"`
	Lesson         *graph.Lesson   `json:"lesson,omitempty"`
}

// candidateState is a candidate in a form that marshals to JSON.
type candidateState struct {
	Rule     string    `json:"rule"`
	Body     bodyState `json:"body"`
	EntryIDs []string  `json:"entryIds,omitempty"`
	Stated   time.Time `json:"stated"`
	Key      string    `json:"key,omitempty"`
	Order    int       `json:"order,omitempty"`
	Dropped  bool      `json:"dropped,omitempty"`
}

func stateOfCandidate(c candidate) (candidateState, error) {
	var it Item
	if err := it.setBody(c.body); err != nil {
		return candidateState{}, err
	}
	return candidateState{Rule: c.rule, EntryIDs: c.entryIDs, Stated: c.stated, Key: c.key, Order: c.order, Dropped: c.dropped,
		Body: bodyState{Decision: it.Decision, Correction: it.Correction, Exception: it.Exception, FailedApproach: it.FailedApproach,
			Insight: it.Insight, Question: it.Question, ProjectFact: it.ProjectFact, Lesson: it.Lesson}}, nil
}

func (s candidateState) candidate() (candidate, error) {
	var body any
	n := 0
	for _, b := range []any{s.Body.Decision, s.Body.Correction, s.Body.Exception, s.Body.FailedApproach, s.Body.Insight,
		s.Body.Question, s.Body.ProjectFact, s.Body.Lesson} {
		if !isNilBody(b) {
			body, n = b, n+1
		}
	}
	if n != 1 {
		return candidate{}, fmt.Errorf("a candidate with %d bodies", n)
	}
	return candidate{rule: s.Rule, body: body, entryIDs: s.EntryIDs, stated: s.Stated, key: s.Key, order: s.Order, dropped: s.Dropped}, nil
}

// proposalState is a pendingProposal in a form that marshals to JSON.
type proposalState struct {
	C      candidateState `json:"c"`
	ID     string         `json:"id"`
	Stated time.Time      `json:"stated"`
}

func stateOfProposal(p pendingProposal) (proposalState, error) {
	c, err := stateOfCandidate(p.c)
	return proposalState{C: c, ID: p.at.id, Stated: p.at.stated}, err
}

func (s proposalState) proposal() (pendingProposal, error) {
	c, err := s.C.candidate()
	return pendingProposal{c: c, at: entryRef{id: s.ID, stated: s.Stated}}, err
}

// questionState is a pendingQuestion in a form that marshals to JSON.
type questionState struct {
	Idx   int  `json:"idx"`
	Leans bool `json:"leans,omitempty"`
	Tag   bool `json:"tag,omitempty"`
}

// extractorState is an Extractor's state in a form that marshals to JSON.
type extractorState struct {
	Found   []candidateState `json:"found,omitempty"`
	Pending []questionState  `json:"pending,omitempty"`
	Order   int              `json:"order,omitempty"`

	Replies     int             `json:"replies,omitempty"`
	Direct      string          `json:"direct,omitempty"`
	DirectEntry string          `json:"directEntry,omitempty"`
	DirectReply int             `json:"directReply,omitempty"`
	YesNo       string          `json:"yesNo,omitempty"`
	YesNoEntry  string          `json:"yesNoEntry,omitempty"`
	TagYes      string          `json:"tagYes,omitempty"`
	TagYesEntry string          `json:"tagYesEntry,omitempty"`
	Proposals   []proposalState `json:"proposals,omitempty"`
	Point       *proposalState  `json:"point,omitempty"`
	PointHedged bool            `json:"pointHedged,omitempty"`
	LastAsstID  string          `json:"lastAsstId,omitempty"`
	LastAsstIn  string          `json:"lastAsstIn,omitempty"`
	LastText    string          `json:"lastText,omitempty"`
	PrevText    string          `json:"prevText,omitempty"`

	Offered   *candidateState `json:"offered,omitempty"`
	OfferedIn string          `json:"offeredIn,omitempty"`
	Asked     bool            `json:"asked,omitempty"`
}

// MarshalJSON encodes what the extractor holds of the entries read so far
// (what it found, the turn under way): UnmarshalJSON into another
// extractor lets it go on as this one would.
func (x *Extractor) MarshalJSON() ([]byte, error) {
	s := extractorState{Order: x.order, Replies: x.replies, Direct: x.direct, DirectEntry: x.directEntry, DirectReply: x.directReply,
		YesNo: x.yesNo, YesNoEntry: x.yesNoEntry, TagYes: x.tagYes, TagYesEntry: x.tagYesEntry, PointHedged: x.pointHedged,
		LastAsstID: x.lastAsstID, LastAsstIn: x.lastAsstIn, LastText: x.lastText, PrevText: x.prevText,
		OfferedIn: x.offeredIn, Asked: x.asked}
	for _, c := range x.found {
		cs, err := stateOfCandidate(c)
		if err != nil {
			return nil, fmt.Errorf("knowledge: unable to save an extractor: %w", err)
		}
		s.Found = append(s.Found, cs)
	}
	for _, q := range x.pending {
		s.Pending = append(s.Pending, questionState{Idx: q.idx, Leans: q.leans, Tag: q.tag})
	}
	for _, p := range x.proposals {
		ps, err := stateOfProposal(p)
		if err != nil {
			return nil, fmt.Errorf("knowledge: unable to save an extractor: %w", err)
		}
		s.Proposals = append(s.Proposals, ps)
	}
	if x.point != nil {
		ps, err := stateOfProposal(*x.point)
		if err != nil {
			return nil, fmt.Errorf("knowledge: unable to save an extractor: %w", err)
		}
		s.Point = &ps
	}
	if x.offered != nil {
		cs, err := stateOfCandidate(*x.offered)
		if err != nil {
			return nil, fmt.Errorf("knowledge: unable to save an extractor: %w", err)
		}
		s.Offered = &cs
	}
	return json.Marshal(s)
}

// UnmarshalJSON replaces what the extractor holds with a state MarshalJSON
// wrote. On an error (not such a state) it is left as it was.
func (x *Extractor) UnmarshalJSON(b []byte) error {
	var s extractorState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("knowledge: unable to restore an extractor: %w", err)
	}
	fail := func(err error) error { return fmt.Errorf("knowledge: unable to restore an extractor: %w", err) }
	if len(s.Found) > maxCandidates {
		return fail(fmt.Errorf("%d items found, more than a segment holds (%d)", len(s.Found), maxCandidates))
	}
	n := NewExtractor()
	n.order, n.replies, n.direct, n.directEntry, n.directReply = s.Order, s.Replies, s.Direct, s.DirectEntry, s.DirectReply
	n.yesNo, n.yesNoEntry, n.tagYes, n.tagYesEntry, n.pointHedged = s.YesNo, s.YesNoEntry, s.TagYes, s.TagYesEntry, s.PointHedged
	n.lastAsstID, n.lastAsstIn, n.lastText, n.prevText = s.LastAsstID, s.LastAsstIn, s.LastText, s.PrevText
	n.offeredIn, n.asked = s.OfferedIn, s.Asked
	for i, cs := range s.Found {
		c, err := cs.candidate()
		if err != nil {
			return fail(err)
		}
		n.found = append(n.found, c)
		n.index[c.key] = i
	}
	for _, q := range s.Pending {
		if q.Idx < 0 || q.Idx >= len(n.found) {
			return fail(fmt.Errorf("a pending question at %d of %d items", q.Idx, len(n.found)))
		}
		if _, ok := n.found[q.Idx].body.(*Question); !ok {
			return fail(fmt.Errorf("the pending question at %d is a %s", q.Idx, n.found[q.Idx].rule))
		}
		n.pending = append(n.pending, pendingQuestion{idx: q.Idx, leans: q.Leans, tag: q.Tag})
	}
	for _, ps := range s.Proposals {
		p, err := ps.proposal()
		if err != nil {
			return fail(err)
		}
		n.proposals = append(n.proposals, p)
	}
	if s.Point != nil {
		p, err := s.Point.proposal()
		if err != nil {
			return fail(err)
		}
		n.point = &p
	}
	if s.Offered != nil {
		c, err := s.Offered.candidate()
		if err != nil {
			return fail(err)
		}
		n.offered = &c
	}
	*x = *n
	return nil
}
