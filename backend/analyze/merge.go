package analyze

import (
	"slices"
	"strings"
	"unicode"

	"rhizome/backend/graph"
)

// partAnswer is a chunk's analysis and the weight of the chunk (its
// estimated transcript tokens, new entries only).
type partAnswer struct {
	a      Analysis
	weight int
}

// confidenceRank orders lesson confidences.
var confidenceRank = map[string]int{"low": 1, "medium": 2, "high": 3}

// mergeAnalyses combines the answers of a segment's chunks, in order, into
// one analysis. Each answer after the first was asked for the segment so
// far, with the earlier findings handed over, so:
//
//   - summary and outcome are the last answer's (it covers the whole
//     segment, and the end of the work decides its outcome); an empty
//     summary falls back to the latest non-empty one;
//   - classification type and language are the strongest: the value the
//     answers give for the most transcript tokens, ties going to the later
//     answer; hadClearGoal is true when any answer says so; frameworks are
//     the union;
//   - key decisions, errors, corrections, failed approaches, lessons,
//     observations, tags, topics, concepts and relationships are the union
//     without repeats: two items are the same when their identifying text
//     (a decision's what, a correction's right belief, a failed approach's
//     approach, a lesson's summary at its level, an error's type and
//     message, ...) is equal ignoring case, punctuation and spacing. The
//     first item is kept, except that an error resolved in any answer is
//     resolved; a decision, correction, failed approach or lesson keeps its
//     highest confidence and the entries every answer cited; and a
//     relationship keeps its highest confidence.
func mergeAnalyses(parts []partAnswer) Analysis {
	if len(parts) == 0 {
		return Analysis{}
	}
	if len(parts) == 1 {
		return parts[0].a
	}
	last := parts[len(parts)-1].a
	out := Analysis{}
	out.normalize()
	out.Content.Summary = last.Content.Summary
	for i := len(parts) - 1; out.Content.Summary == "" && i >= 0; i-- {
		out.Content.Summary = parts[i].a.Content.Summary
	}
	out.Content.Outcome = last.Content.Outcome

	typeVotes, langVotes := map[graph.NodeType]int{}, map[string]int{}
	var typeOrder []graph.NodeType
	var langOrder []string
	for _, p := range parts {
		w := max(p.weight, 1)
		c := p.a.Classification
		typeVotes[c.Type] += w
		typeOrder = append(typeOrder, c.Type)
		if c.Language != nil && *c.Language != "" {
			langVotes[strings.ToLower(*c.Language)] += w
			langOrder = append(langOrder, strings.ToLower(*c.Language))
		}
		out.Classification.HadClearGoal = out.Classification.HadClearGoal || c.HadClearGoal
		out.Classification.Frameworks = unionStrings(out.Classification.Frameworks, c.Frameworks)
	}
	out.Classification.Type = strongest(typeOrder, typeVotes)
	if len(langOrder) > 0 {
		l := strongest(langOrder, langVotes)
		out.Classification.Language = &l
	}

	decisions, corrections, failed := map[string]int{}, map[string]int{}, map[string]int{}
	errs := map[string]int{}
	lessons := map[string]int{}
	quirks, toolErrs := map[string]int{}, map[string]int{}
	rels := map[string]int{}
	for _, p := range parts {
		a := p.a
		mergeFindings(&out.Content.KeyDecisions, decisions, a.Content.KeyDecisions,
			func(d AnalysisDecision) string { return d.What }, func(d *AnalysisDecision) (*Confidence, *[]int) { return &d.Confidence, &d.Entries })
		mergeFindings(&out.Content.Corrections, corrections, a.Content.Corrections,
			func(c AnalysisCorrection) string { return c.RightBelief }, func(c *AnalysisCorrection) (*Confidence, *[]int) { return &c.Confidence, &c.Entries })
		mergeFindings(&out.Content.FailedApproaches, failed, a.Content.FailedApproaches,
			func(f AnalysisFailedApproach) string { return f.Approach }, func(f *AnalysisFailedApproach) (*Confidence, *[]int) { return &f.Confidence, &f.Entries })
		for _, e := range a.Content.ErrorsSeen {
			k := norm(e.Type) + "\x00" + norm(e.Message)
			if i, ok := errs[k]; ok {
				out.Content.ErrorsSeen[i].Resolved = out.Content.ErrorsSeen[i].Resolved || e.Resolved
				continue
			}
			errs[k] = len(out.Content.ErrorsSeen)
			out.Content.ErrorsSeen = append(out.Content.ErrorsSeen, e)
		}
		src, dst := answerLessonLists(&a.Lessons), answerLessonLists(&out.Lessons)
		for li := range src {
			for _, l := range *src[li].list {
				k := src[li].level + "\x00" + norm(l.Summary)
				if i, ok := lessons[k]; ok {
					kept := &(*dst[li].list)[i]
					kept.Confidence = higherConfidence(kept.Confidence, l.Confidence)
					kept.Tags = unionStrings(kept.Tags, l.Tags)
					kept.Entries = unionInts(kept.Entries, l.Entries)
					continue
				}
				lessons[k] = len(*dst[li].list)
				*dst[li].list = append(*dst[li].list, l)
			}
		}
		o := &out.Observations
		o.PromptingWins = unionStrings(o.PromptingWins, a.Observations.PromptingWins)
		o.PromptingFailures = unionStrings(o.PromptingFailures, a.Observations.PromptingFailures)
		for _, q := range a.Observations.ModelQuirks {
			k := norm(q.Model) + "\x00" + norm(q.Observation)
			if _, ok := quirks[k]; !ok {
				quirks[k] = len(o.ModelQuirks)
				o.ModelQuirks = append(o.ModelQuirks, q)
			}
		}
		for _, t := range a.Observations.ToolUseErrors {
			k := norm(t.Tool) + "\x00" + norm(t.ErrorType) + "\x00" + norm(t.Context)
			if i, ok := toolErrs[k]; ok {
				o.ToolUseErrors[i].WasRetried = o.ToolUseErrors[i].WasRetried || t.WasRetried
				continue
			}
			toolErrs[k] = len(o.ToolUseErrors)
			o.ToolUseErrors = append(o.ToolUseErrors, t)
		}
		out.Semantic.Tags = unionStrings(out.Semantic.Tags, a.Semantic.Tags)
		out.Semantic.Topics = unionStrings(out.Semantic.Topics, a.Semantic.Topics)
		out.Semantic.Concepts = unionStrings(out.Semantic.Concepts, a.Semantic.Concepts)
		for _, r := range a.Relationships {
			target := r.TargetNodeID
			if target == "" {
				target = "\x00" + norm(r.TargetDescription)
			}
			k := target + "\x00" + string(r.Relation)
			if i, ok := rels[k]; ok {
				if r.Confidence > out.Relationships[i].Confidence {
					out.Relationships[i].Confidence = r.Confidence
				}
				continue
			}
			rels[k] = len(out.Relationships)
			out.Relationships = append(out.Relationships, r)
		}
	}
	return out
}

// higherConfidence is the higher of two confidences (high, medium, low;
// "" is none).
// mergeFindings appends each of items to *list, unless one with the same
// key (normalised: norm) is there already (seen maps keys to indexes in
// *list), which then keeps the higher confidence and gains the entries.
// parts gives a finding's confidence and entries.
func mergeFindings[T any](list *[]T, seen map[string]int, items []T, key func(T) string, parts func(*T) (*Confidence, *[]int)) {
	for _, it := range items {
		k := norm(key(it))
		if i, ok := seen[k]; ok {
			keptConf, keptEntries := parts(&(*list)[i])
			conf, entries := parts(&it)
			*keptConf = higherConfidence(*keptConf, *conf)
			*keptEntries = unionInts(*keptEntries, *entries)
			continue
		}
		seen[k] = len(*list)
		*list = append(*list, it)
	}
}

func higherConfidence[C ~string](a, b C) C {
	if confidenceRank[string(b)] > confidenceRank[string(a)] {
		return b
	}
	return a
}

// unionInts appends to a the numbers of b it lacks, keeping a's order.
func unionInts(a, b []int) []int {
	a = slices.Clip(a) // never append into a slice an answer still holds
	for _, n := range b {
		if !slices.Contains(a, n) {
			a = append(a, n)
		}
	}
	return a
}

// strongest is the value with the most votes; ties go to the value that
// appears latest in order.
func strongest[K comparable](order []K, votes map[K]int) K {
	var best K
	bestVotes := -1
	for _, v := range order {
		if votes[v] >= bestVotes {
			best, bestVotes = v, votes[v]
		}
	}
	return best
}

// unionStrings appends to a the strings of b it lacks (compared by norm),
// keeping a's order; empty strings are dropped.
func unionStrings(a, b []string) []string {
	a = slices.Clip(a) // never append into a slice an answer still holds
	seen := make(map[string]bool, len(a)+len(b))
	for _, s := range a {
		seen[norm(s)] = true
	}
	for _, s := range b {
		k := norm(s)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		a = append(a, s)
	}
	return a
}

// norm is the identity of a text for merging: lowercase letters and digits,
// words separated by one space, punctuation dropped.
func norm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}
