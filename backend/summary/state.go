package summary

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The open segment's state of a Pass, kept with a session so that an
// append goes on from it instead of reading the segment's stored entries
// again (app/ingest: a 5 MB session in one segment re-fed every entry on
// every live append). Its size is bounded as an Accumulator's is: the
// first, latest and at most maxPoolTurns other turns (their texts capped),
// at most maxFiles paths, maxDigests digests and the last reply (8 KB).

// turnState is a turn in a form that marshals to JSON.
type turnState struct {
	Seq      int      `json:"seq"`
	Phrase   string   `json:"phrase,omitempty"`
	Text     string   `json:"text,omitempty"`
	Score    int      `json:"score,omitempty"`
	Verb     bool     `json:"verb,omitempty"`
	Look     bool     `json:"look,omitempty"`
	Outcome  string   `json:"outcome,omitempty"`
	Strength int      `json:"strength,omitempty"`
	Files    []string `json:"files,omitempty"`
}

func stateOfTurn(t turn) turnState {
	return turnState{Seq: t.seq, Phrase: t.req.phrase, Text: t.req.text, Score: t.req.score, Verb: t.req.verb,
		Look: t.req.look, Outcome: t.outcome, Strength: t.strength, Files: t.files}
}

func (s turnState) turn() turn {
	return turn{seq: s.Seq, req: request{phrase: s.Phrase, text: s.Text, score: s.Score, verb: s.Verb, look: s.Look},
		outcome: s.Outcome, strength: s.Strength, files: s.Files}
}

// digestState is a digestAt in a form that marshals to JSON.
type digestState struct {
	Seq        int    `json:"seq"`
	Compaction bool   `json:"compaction,omitempty"`
	Tokens     int64  `json:"tokens,omitempty"`
	Digest     Digest `json:"digest"`
}

// accumulatorState is an Accumulator's facts in a form that marshals to
// JSON.
type accumulatorState struct {
	Entries     int    `json:"entries"`
	LastEntryID string `json:"lastEntryId,omitempty"`
	Name        string `json:"name,omitempty"`
	// First is the first request's turn; Last the latest's, nil when it is
	// the first.
	First     *turnState    `json:"first,omitempty"`
	Last      *turnState    `json:"last,omitempty"`
	Pool      []turnState   `json:"pool,omitempty"`
	Stride    int           `json:"stride"`
	Skipped   int           `json:"skipped,omitempty"`
	Cand      *turnState    `json:"cand,omitempty"`
	Requests  int           `json:"requests,omitempty"`
	Files     []string      `json:"files,omitempty"` // in first-edit order
	Digests   []digestState `json:"digests,omitempty"`
	Following *Digest       `json:"following,omitempty"`
	FollowID  string        `json:"followingId,omitempty"`
	LastReply string        `json:"lastReply,omitempty"`
}

func (a *Accumulator) state() accumulatorState {
	s := accumulatorState{Entries: a.entries, LastEntryID: a.lastEntryID, Name: a.name, Stride: a.stride,
		Skipped: a.skipped, Requests: a.requests, Files: a.fileOrder, Following: a.following, FollowID: a.followingID,
		LastReply: a.lastReply}
	if a.first != nil {
		f := stateOfTurn(*a.first)
		s.First = &f
		if a.last != a.first {
			l := stateOfTurn(*a.last)
			s.Last = &l
		}
	}
	for _, t := range a.pool {
		s.Pool = append(s.Pool, stateOfTurn(t))
	}
	if a.skipped > 0 {
		c := stateOfTurn(a.cand)
		s.Cand = &c
	}
	for _, d := range a.digests {
		s.Digests = append(s.Digests, digestState{Seq: d.seq, Compaction: d.compaction, Tokens: d.tokens, Digest: d.d})
	}
	return s
}

// accumulatorOf is the accumulator a state describes.
func accumulatorOf(s accumulatorState) (*Accumulator, error) {
	if s.Stride < 1 || len(s.Pool) > maxPoolTurns || len(s.Files) > maxFiles || len(s.Digests) > maxDigests || s.First == nil && s.Last != nil {
		return nil, errors.New("not an accumulator's state (its bounds do not hold)")
	}
	a := NewAccumulator()
	a.entries, a.lastEntryID, a.name, a.stride, a.skipped, a.requests = s.Entries, s.LastEntryID, s.Name, s.Stride, s.Skipped, s.Requests
	a.following, a.followingID, a.lastReply = s.Following, s.FollowID, s.LastReply
	if s.First != nil {
		a.first = &turn{}
		*a.first = s.First.turn()
		a.last = a.first
		if s.Last != nil {
			a.last = &turn{}
			*a.last = s.Last.turn()
		}
	}
	for _, t := range s.Pool {
		a.pool = append(a.pool, t.turn())
	}
	if s.Cand != nil {
		a.cand = s.Cand.turn()
	}
	for i, p := range s.Files {
		a.files[p] = i
		a.fileOrder = append(a.fileOrder, p)
	}
	for _, d := range s.Digests {
		a.digests = append(a.digests, digestAt{seq: d.Seq, compaction: d.Compaction, tokens: d.Tokens, d: d.Digest})
	}
	return a, nil
}

// openState is what a Pass holds of the open segment (OpenState).
type openState struct {
	// From is the Seq of the open segment's first entry.
	From int `json:"from"`
	// Compacted says a compaction was fed since From.
	Compacted bool             `json:"compacted,omitempty"`
	Seg       accumulatorState `json:"seg"`
}

// OpenState returns, as JSON, the state of a Pass fed the open segment's
// entries only, from its first (the Seq from): what ResumePass goes on
// from, as a Pass fed those stored entries again would. ok is false when
// the open segment was not fed from its first entry (from is not where it
// starts): the caller feeds the stored entries instead.
func (p *Pass) OpenState(from int) (b []byte, ok bool, err error) {
	if p.segFedFrom < 0 || p.segFedFrom != from {
		return nil, false, nil
	}
	st := openState{From: from, Compacted: p.segCompacted, Seg: p.seg.state()}
	b, err = json.Marshal(st)
	return b, err == nil, err
}

// ResumePass returns the pass over session sessionID (of project, its
// summaries made at now) that goes on from a state OpenState wrote, as a
// Pass fed the open segment's stored entries would. The error says the
// state is not one (the caller feeds the stored entries instead).
func ResumePass(sessionID, project string, now time.Time, state []byte) (*Pass, error) {
	var st openState
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("summary: unable to resume a pass: %w", err)
	}
	seg, err := accumulatorOf(st.Seg)
	if err != nil {
		return nil, fmt.Errorf("summary: unable to resume a pass: %w", err)
	}
	// The session's accumulator was fed what the segment's was: the same.
	sess, _ := accumulatorOf(st.Seg)
	p := NewPass(sessionID, project, now)
	p.seg, p.sess = seg, sess
	// Fed from the segment's first entry, a Pass covers "every segment
	// since the last compaction" when that entry is the session's first or
	// a compaction was fed since (it starts the count again).
	p.firstFed, p.segFedFrom, p.sessWhole = st.From, st.From, st.From == 0
	p.sinceWhole, p.segCompacted = st.From == 0 || st.Compacted, st.Compacted
	return p, nil
}

// LastEntryID is the id of the last entry fed to the open segment ("" for
// none, and after Finish).
func (p *Pass) LastEntryID() string { return p.seg.lastEntryID }
