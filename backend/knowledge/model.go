package knowledge

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/oklog/ulid/v2"
)

// Confidence of a model's item by the confidence the model gave it (its
// lessons' high, medium, low; pi-brain-node-model.md, "Lessons"): above the
// offline rules' (at most 0.6), below a person's word (1).
// DefaultModelConfidence is the confidence of an item the model gave none.
const (
	highModelConfidence    = 0.9
	mediumModelConfidence  = 0.7
	lowModelConfidence     = 0.5
	DefaultModelConfidence = mediumModelConfidence
)

// ModelConfidence is the item confidence (0-1) of a model's "high",
// "medium" or "low"; DefaultModelConfidence for anything else (none given).
func ModelConfidence(level string) float64 {
	switch level {
	case "high":
		return highModelConfidence
	case "low":
		return lowModelConfidence
	}
	return DefaultModelConfidence
}

// ModelID is the id of an item a model proposes from segment node
// segmentNodeID: a ULID of time now whose entropy is a hash of the
// segment, the group (the kind, and a lesson's level) and the subject, so
// that the same answer analysed at the same time (a fixed clock) gives the
// same ids, and an analysis at another time others (ReconcileModel, not
// the id, tells an item reported again).
func ModelID(now time.Time, segmentNodeID, group, subject string) string {
	h := sha256.New()
	for _, s := range []string{"model", segmentNodeID, group, subjectKey(subject)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(now)); err != nil {
		_ = id.SetTime(0)
	}
	_ = id.SetEntropy(h.Sum(nil)[:10])
	return id.String()
}

// ModelChanges is what a model's new analysis of a segment does to the
// items the model made from that segment before (see ReconcileModel).
type ModelChanges struct {
	// Add are the items the analysis reports for the first time: version 1
	// each, as given.
	Add []Item
	// Versions are the next versions of earlier items: an item the analysis
	// reports again in other words (or with other entries, another
	// confidence, by another model), one it reports again after it was
	// retired (active again), and one it no longer reports (marked stale).
	Versions []Item
	// Updated and Retired count Versions: those with the new analysis's
	// content, and those marked stale.
	Updated, Retired int
	// Unchanged counts the earlier items the analysis reports again as they
	// are, and those it matched but may not change: a person, an agent or
	// a supersession has taken them over.
	Unchanged int
}

// ReconcileModel matches the items a model's analysis of one segment
// reports (found: version 1 items of the model, fresh ids, as
// analyze.Result.Knowledge holds them) with the current versions of the
// items the model made from that segment before (prev), so that analysing
// a segment again updates its items and never doubles them:
//
//   - an item is the same as an earlier one of its kind (and, for a lesson,
//     its level) when their subjects (a decision's description, a
//     correction's right belief, a failed approach's approach, a lesson's
//     summary) are equal ignoring case, punctuation and spacing; then, of
//     the items left, the pairs whose subjects share most words: at least
//     half of their words (Jaccard similarity), or a fifth of them when
//     both cite an entry in common. Pairs are taken best first; each item
//     pairs once.
//   - an earlier item matched keeps its id and gets a version with what the
//     analysis says now (body, confidence, entries, model, time stated,
//     status active) when that differs; nothing when it does not. One whose
//     current version a person or an agent made, or that was superseded,
//     is left as it is: the model never overwrites a person's edit.
//   - an earlier item not matched, active and in the model's own version,
//     gets a version marked stale (no longer reported; kept with its
//     history, as a person retires an item); one already stale, superseded
//     or taken over stays as it is.
//   - an item not matched is added.
//
// Supersession is never inferred here: only versions of the same item are
// made. It returns an error when a version cannot be made (an invalid
// item). now is the versions' creation time.
func ReconcileModel(prev, found []Item, now time.Time) (ModelChanges, error) {
	var ch ModelChanges
	pairOf := make([]int, len(found)) // index in prev, -1: none
	taken := make([]bool, len(prev))
	for i := range pairOf {
		pairOf[i] = -1
	}
	for i, f := range found {
		for j, p := range prev {
			if !taken[j] && modelGroup(p) == modelGroup(f) && subjectKey(p.subject()) == subjectKey(f.subject()) {
				pairOf[i], taken[j] = j, true
				break
			}
		}
	}
	type candidate struct {
		i, j  int
		score float64
	}
	var cands []candidate
	for i, f := range found {
		if pairOf[i] >= 0 {
			continue
		}
		for j, p := range prev {
			if taken[j] || modelGroup(p) != modelGroup(f) {
				continue
			}
			sim := subjectSimilarity(subjectWords(p.subject()), subjectWords(f.subject()))
			shared := sharesEntry(p.Source.EntryIDs, f.Source.EntryIDs)
			if sim >= 0.5 || (shared && sim >= 0.2) {
				score := sim
				if shared {
					score += 0.5
				}
				cands = append(cands, candidate{i, j, score})
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	for _, c := range cands {
		if pairOf[c.i] < 0 && !taken[c.j] {
			pairOf[c.i], taken[c.j] = c.j, true
		}
	}

	for i, f := range found {
		j := pairOf[i]
		if j < 0 {
			ch.Add = append(ch.Add, f)
			continue
		}
		p := prev[j]
		if p.Source.CreatedBy != ByModel || p.Status == StatusSuperseded {
			ch.Unchanged++
			continue
		}
		ed := p
		ed.Decision, ed.Correction, ed.Exception, ed.FailedApproach = f.Decision, f.Correction, f.Exception, f.FailedApproach
		ed.Insight, ed.Question, ed.ProjectFact, ed.Lesson = f.Insight, f.Question, f.ProjectFact, f.Lesson
		ed.Project, ed.Timestamp, ed.Confidence, ed.Status = f.Project, f.Timestamp, f.Confidence, StatusActive
		if f.Timestamp.Equal(f.CreatedAt) {
			ed.Timestamp = p.Timestamp // stated "now" (nothing says when): the time it was first stated stays
		}
		ed.Source = f.Source
		if len(ComputeDiff(p, ed).Changes) == 0 {
			ch.Unchanged++
			continue
		}
		next, err := NewVersion(p, ed, ByModel, now)
		if err != nil {
			return ModelChanges{}, fmt.Errorf("knowledge: the model's new version of %s: %w", p.ID, err)
		}
		ch.Versions = append(ch.Versions, next)
		ch.Updated++
	}
	for j, p := range prev {
		if taken[j] {
			continue
		}
		if p.Source.CreatedBy != ByModel || p.Status != StatusActive {
			ch.Unchanged++
			continue
		}
		ed := p
		ed.Status = StatusStale
		next, err := NewVersion(p, ed, ByModel, now)
		if err != nil {
			return ModelChanges{}, fmt.Errorf("knowledge: retiring %s: %w", p.ID, err)
		}
		ch.Versions = append(ch.Versions, next)
		ch.Retired++
	}
	return ch, nil
}

// modelGroup is what two items must share to be the same item: the kind,
// and a lesson's level ("lesson/tool").
func modelGroup(it Item) string { return ModelGroup(it) }

// ModelGroup is the kind of an item, and a lesson's level: "decision",
// "lesson/tool".
func ModelGroup(it Item) string {
	if it.Lesson != nil {
		return string(it.Kind) + "/" + it.Lesson.Level
	}
	return string(it.Kind)
}

// subjectKey is s in lower case, letters and digits only, words separated by
// one space.
func subjectKey(s string) string { return strings.Join(subjectTokens(s), " ") }

// subjectTokens are the lower-case words (runs of letters and digits) of s.
func subjectTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func subjectWords(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range subjectTokens(s) {
		set[w] = true
	}
	return set
}

// subjectSimilarity is |a ∩ b| / |a ∪ b|, 0 for two empty sets.
func subjectSimilarity(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func sharesEntry(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
