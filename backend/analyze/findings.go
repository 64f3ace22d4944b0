package analyze

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/session"
)

// Bounds on the findings of one analysis, besides the node's
// (maxModelDecisions, maxLessonsPerLevel): corrections and failed
// approaches kept, and entries cited by one finding.
const (
	maxModelCorrections = 20
	maxModelFailed      = 20
	maxFindingEntries   = 64
)

// Finding kinds: backend/knowledge's kinds of the items they become.
const (
	FindingDecision       = "decision"
	FindingCorrection     = "correction"
	FindingFailedApproach = "failedApproach"
	FindingLesson         = "lesson"
)

// Finding is a key decision, correction, failed approach or lesson of a
// model's analysis of a segment, ready to become a knowledge item of its
// kind (app/analysis.go makes it one, made by the model, from the
// segment's node): its texts and lists bounded as the node's are, the
// entries it cites resolved to the segment's entries. Exactly one of
// Decision, Correction, FailedApproach and Lesson is set, the one Kind
// names.
type Finding struct {
	Kind           string          `json:"kind"` // FindingDecision, FindingCorrection, FindingFailedApproach or FindingLesson
	Decision       *graph.Decision `json:"decision,omitempty"`
	Correction     *Correction     `json:"correction,omitempty"`
	FailedApproach *FailedApproach `json:"failedApproach,omitempty"`
	Lesson         *graph.Lesson   `json:"lesson,omitempty"` // its Level set
	// Confidence is the model's high, medium or low; "" when it gave none.
	Confidence string `json:"confidence,omitempty"`
	// EntryIDs are the ids of the segment's entries the model cited ([#n]
	// read as session.Entry.Seq), in the order it cited them, at most 64;
	// numbers that are no entry of the segment are dropped.
	EntryIDs []string `json:"entryIds"`
	// Stated is when the first entry cited was written, else when the
	// segment began; zero when neither is known.
	Stated time.Time `json:"stated"`
}

// Subject is what the finding is about: a decision's what, a correction's
// right belief, a failed approach's approach, a lesson's summary.
func (f Finding) Subject() string {
	switch {
	case f.Decision != nil:
		return f.Decision.What
	case f.Correction != nil:
		return f.Correction.RightBelief
	case f.FailedApproach != nil:
		return f.FailedApproach.Approach
	case f.Lesson != nil:
		return f.Lesson.Summary
	}
	return ""
}

// findings are the model's key decisions, corrections, failed approaches
// and lessons of the merged answer a as Findings, in that order (lessons by
// level in the spec's order). The entries cited are looked up among the
// segment's entries; node is the segment's offline node (its start time).
// The node's bounds apply (at most 20 decisions, 15 lessons a level, texts
// of 2000 bytes, ...), and 20 corrections and 20 failed approaches; a
// finding repeated (same kind, level and subject) is kept once, and one
// without the text its kind needs (what was decided, the right belief, the
// approach and what came of it, the lesson's summary) is dropped. What was
// dropped is noted in daemonMeta.decisions.
func (r *run) findings(a Analysis, entries []session.Entry, node graph.Node) []Finding {
	bySeq := make(map[int]*session.Entry, len(entries))
	for i := range entries {
		bySeq[entries[i].Seq] = &entries[i]
	}
	began, _ := time.Parse(time.RFC3339Nano, node.Metadata.Timestamp)
	out := []Finding{}
	seen := map[string]bool{}
	unknown, empty := 0, 0
	add := func(f Finding, group string, cited []int, needed ...string) {
		for _, s := range needed {
			if strings.TrimSpace(s) == "" {
				empty++
				return
			}
		}
		key := group + "\x00" + norm(f.Subject())
		if seen[key] {
			return
		}
		seen[key] = true
		f.EntryIDs, f.Stated = []string{}, began
		for _, n := range cited {
			e, ok := bySeq[n]
			if !ok || e.ID == "" {
				unknown++
				continue
			}
			if len(f.EntryIDs) == maxFindingEntries || slices.Contains(f.EntryIDs, e.ID) {
				continue
			}
			f.EntryIDs = append(f.EntryIDs, e.ID)
			if t := e.Timestamp; !t.IsZero() && (len(f.EntryIDs) == 1 || t.Before(f.Stated)) {
				f.Stated = t
			}
		}
		out = append(out, f)
	}
	text := func(s string) string { return clipString(strings.TrimSpace(s), maxModelTextBytes) }

	ds := a.Content.KeyDecisions
	for _, d := range ds[:min(len(ds), maxModelDecisions)] {
		add(Finding{Kind: FindingDecision, Confidence: string(d.Confidence), Decision: &graph.Decision{What: text(d.What), Why: text(d.Why),
			AlternativesConsidered: capList(clipAll(d.AlternativesConsidered, maxModelTextBytes), maxObservations)}},
			FindingDecision, d.Entries, d.What)
	}
	cs := a.Content.Corrections
	for _, c := range cs[:min(len(cs), maxModelCorrections)] {
		add(Finding{Kind: FindingCorrection, Confidence: string(c.Confidence), Correction: &Correction{WrongBelief: text(c.WrongBelief),
			RightBelief: text(c.RightBelief), Severity: c.Severity}}, FindingCorrection, c.Entries, c.RightBelief)
	}
	fs := a.Content.FailedApproaches
	for _, f := range fs[:min(len(fs), maxModelFailed)] {
		add(Finding{Kind: FindingFailedApproach, Confidence: string(f.Confidence), FailedApproach: &FailedApproach{Approach: text(f.Approach),
			Outcome: text(f.Outcome), Lesson: text(f.Lesson)}}, FindingFailedApproach, f.Entries, f.Approach, f.Outcome)
	}
	for _, l := range answerLessonLists(&a.Lessons) {
		for _, x := range (*l.list)[:min(len(*l.list), maxLessonsPerLevel)] {
			add(Finding{Kind: FindingLesson, Confidence: x.Confidence, Lesson: &graph.Lesson{Level: l.level, Summary: text(x.Summary),
				Details: text(x.Details), Confidence: x.Confidence, Tags: capList(clipAll(x.Tags, maxTagBytes), maxTagsKept),
				Actionable: text(x.Actionable)}}, FindingLesson+"/"+l.level, x.Entries, x.Summary)
		}
	}
	if len(cs) > maxModelCorrections || len(fs) > maxModelFailed {
		r.decide("Kept the first corrections and failed approaches", fmt.Sprintf("An analysis keeps at most %d corrections and %d failed approaches.", maxModelCorrections, maxModelFailed))
	}
	if empty > 0 {
		r.decide("Dropped findings without their text", fmt.Sprintf("%d decisions, corrections, failed approaches or lessons lacked what their kind needs (what was decided, the right belief, the approach and its outcome, the summary).", empty))
	}
	if unknown > 0 {
		r.decide("Dropped entry numbers outside the segment", fmt.Sprintf("The model cited %d entry numbers that are no entries of this segment; its findings point to the others.", unknown))
	}
	return out
}
