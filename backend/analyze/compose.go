package analyze

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"rhizome/backend/graph"
)

// Bounds on what a model's analysis adds to a node: bytes of a text, items
// of a list. A model's output cannot grow a node without limit.
const (
	maxModelSummaryBytes = 1200
	maxModelTextBytes    = 2000
	maxTagBytes          = 60
	maxModelDecisions    = 20
	maxModelErrors       = 20
	maxLessonsPerLevel   = 15
	maxObservations      = 20
	maxTagsKept          = 20
	maxTopicsKept        = 12
	maxFrameworksKept    = 12
	maxRelationships     = 20
)

// composeNode is the model's node: the offline node with the model's
// merged analysis a in the fields AnalyzeSegment lists, every text and
// list bounded, and the proposed relationships checked against the
// candidates (an id that was not listed becomes part of the description; a
// relation to the node itself is dropped). The analysis decisions of r go
// into daemonMeta.decisions after the offline ones.
func composeNode(offline graph.Node, a Analysis, in Input, candidates []Candidate, now time.Time, r *run) (graph.Node, []ProposedRelationship) {
	n := offline
	dropped := func(what string, had, kept int) {
		if had > kept {
			r.decide("Kept "+fmt.Sprint(kept)+" of "+fmt.Sprint(had)+" "+what, "A node keeps at most "+fmt.Sprint(kept)+" "+what+" from a model.")
		}
	}

	c := &n.Classification
	c.Type = a.Classification.Type
	c.HadClearGoal = a.Classification.HadClearGoal
	if l := a.Classification.Language; l != nil && strings.TrimSpace(*l) != "" {
		c.Language = strings.ToLower(clipString(strings.TrimSpace(*l), maxTagBytes))
	}
	c.Frameworks = capList(unionStrings(clipAll(a.Classification.Frameworks, maxTagBytes), offline.Classification.Frameworks), maxFrameworksKept)

	ct := &n.Content
	if s := collapseSpace(a.Content.Summary); s != "" {
		ct.Summary = clipString(s, maxModelSummaryBytes)
	}
	ct.Outcome = a.Content.Outcome
	if in.Abandoned && ct.Outcome != graph.OutcomeAbandoned {
		r.decide("Outcome kept as abandoned", fmt.Sprintf("The model judged the outcome %q, but the user navigated away from this segment's work afterwards, which the transcript does not show.", a.Content.Outcome))
		ct.Outcome = graph.OutcomeAbandoned
	}
	ct.KeyDecisions = []graph.Decision{}
	for _, d := range a.Content.KeyDecisions[:min(len(a.Content.KeyDecisions), maxModelDecisions)] {
		ct.KeyDecisions = append(ct.KeyDecisions, graph.Decision{What: clipString(d.What, maxModelTextBytes), Why: clipString(d.Why, maxModelTextBytes),
			AlternativesConsidered: capList(clipAll(d.AlternativesConsidered, maxModelTextBytes), maxObservations)})
	}
	dropped("key decisions", len(a.Content.KeyDecisions), maxModelDecisions)
	ct.ErrorsSeen = []graph.ErrorSummary{}
	for _, e := range a.Content.ErrorsSeen[:min(len(a.Content.ErrorsSeen), maxModelErrors)] {
		ct.ErrorsSeen = append(ct.ErrorsSeen, graph.ErrorSummary{Type: clipString(e.Type, maxTagBytes), Message: clipString(e.Message, maxModelTextBytes), Resolved: e.Resolved})
	}
	dropped("errors", len(a.Content.ErrorsSeen), maxModelErrors)
	for _, e := range offline.Content.ErrorsSeen {
		if !namedBy(e, ct.ErrorsSeen) {
			ct.ErrorsSeen = append(ct.ErrorsSeen, e)
		}
	}

	src, dst := answerLessonLists(&a.Lessons), lessonLists(&n.Lessons)
	for i := range src {
		out := []graph.Lesson{}
		for _, l := range (*src[i].list)[:min(len(*src[i].list), maxLessonsPerLevel)] {
			out = append(out, graph.Lesson{Level: src[i].level, Summary: clipString(l.Summary, maxModelTextBytes),
				Details: clipString(l.Details, maxModelTextBytes), Confidence: l.Confidence,
				Tags: capList(clipAll(l.Tags, maxTagBytes), maxTagsKept), Actionable: clipString(l.Actionable, maxModelTextBytes)})
		}
		dropped(src[i].level+" lessons", len(*src[i].list), maxLessonsPerLevel)
		*dst[i].list = out
	}

	o, ao := &n.Observations, a.Observations
	o.PromptingWins = capList(clipAll(ao.PromptingWins, maxModelTextBytes), maxObservations)
	o.PromptingFailures = capList(clipAll(ao.PromptingFailures, maxModelTextBytes), maxObservations)
	o.ModelQuirks = []graph.ModelQuirk{}
	for _, q := range ao.ModelQuirks[:min(len(ao.ModelQuirks), maxObservations)] {
		o.ModelQuirks = append(o.ModelQuirks, graph.ModelQuirk{Model: clipString(q.Model, maxModelTextBytes), Observation: clipString(q.Observation, maxModelTextBytes),
			Frequency: q.Frequency, Workaround: clipString(q.Workaround, maxModelTextBytes), Severity: q.Severity})
	}
	o.ToolUseErrors = []graph.ToolError{}
	for _, t := range ao.ToolUseErrors[:min(len(ao.ToolUseErrors), maxObservations)] {
		o.ToolUseErrors = append(o.ToolUseErrors, graph.ToolError{Tool: clipString(t.Tool, maxTagBytes), ErrorType: clipString(t.ErrorType, maxTagBytes),
			Context: clipString(t.Context, maxModelTextBytes), Model: clipString(t.Model, maxModelTextBytes), WasRetried: t.WasRetried})
	}
	dropped("prompting wins", len(ao.PromptingWins), maxObservations)
	dropped("prompting failures", len(ao.PromptingFailures), maxObservations)
	dropped("model quirks", len(ao.ModelQuirks), maxObservations)
	dropped("tool-use errors", len(ao.ToolUseErrors), maxObservations)

	s := &n.Semantic
	s.Tags = fillFrom(capList(unionStrings(nil, lowerAll(clipAll(a.Semantic.Tags, maxTagBytes))), maxTagsKept), offline.Semantic.Tags, minTags)
	s.Topics = fillFrom(capList(unionStrings(nil, clipAll(a.Semantic.Topics, maxTagBytes)), maxTopicsKept), offline.Semantic.Topics, minModelTopics)
	s.Concepts = capList(unionStrings(nil, clipAll(a.Semantic.Concepts, maxTagBytes)), maxTopicsKept)

	listed := map[string]bool{}
	for _, c := range candidates {
		listed[c.NodeID] = true
	}
	rels := []ProposedRelationship{}
	for _, p := range a.Relationships {
		if len(rels) == maxRelationships {
			dropped("relationships", len(a.Relationships), maxRelationships)
			break
		}
		p.TargetDescription = clipString(p.TargetDescription, maxModelTextBytes)
		p.Rationale = clipString(p.Rationale, maxModelTextBytes)
		switch {
		case p.TargetNodeID == offline.ID:
			r.decide("Dropped a relationship to the node itself", fmt.Sprintf("%s %s: %s", p.Relation, p.TargetNodeID, clipString(p.Rationale, 200)))
			continue
		case p.TargetNodeID != "" && !listed[p.TargetNodeID]:
			r.decide("Kept a relationship without its target id", fmt.Sprintf("The model named node %q, which the prompt did not list.", clipString(p.TargetNodeID, 80)))
			suffix := " (the model named node " + clipString(p.TargetNodeID, 80) + ")"
			p.TargetDescription = strings.TrimSpace(clipString(p.TargetDescription, maxModelTextBytes-len(suffix)) + suffix)
			p.TargetNodeID = ""
		}
		if p.TargetNodeID == "" && strings.TrimSpace(p.TargetDescription) == "" {
			continue
		}
		rels = append(rels, p)
	}

	n.Metadata.AnalyzedAt = isoTime(now)
	n.Metadata.AnalyzerVersion = ModelVersion()
	n.DaemonMeta.Decisions = append(slices.Clip(offline.DaemonMeta.Decisions), r.decisions...)
	if n.DaemonMeta.Decisions == nil {
		n.DaemonMeta.Decisions = []graph.DaemonDecision{}
	}
	return n, rels
}

// minModelTopics is the number of topics under which the offline topics
// fill a model's list.
const minModelTopics = 2

// fillFrom appends to list the strings of more it lacks while list has
// fewer than n: the offline tags and topics fill a model's short list, and
// do not dilute a full one (offline tags come from word counts and carry
// noise a model does not).
func fillFrom(list, more []string, n int) []string {
	for _, s := range more {
		if len(list) >= n {
			break
		}
		list = unionStrings(list, []string{s})
	}
	return list
}

// namedBy reports whether one of the model's errors names the offline error
// e: the same type and message, or a message that contains e's (or is
// contained in it), compared by norm.
func namedBy(e graph.ErrorSummary, model []graph.ErrorSummary) bool {
	m := norm(e.Message)
	for _, x := range model {
		xm := norm(x.Message)
		if m == xm || (m != "" && xm != "" && (strings.Contains(xm, m) || strings.Contains(m, xm))) {
			return true
		}
	}
	return false
}

// clipAll cuts every string to n bytes and drops the empty ones.
func clipAll(list []string, n int) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, clipString(s, n))
		}
	}
	return out
}

func lowerAll(list []string) []string {
	for i, s := range list {
		list[i] = strings.ToLower(s)
	}
	return list
}

// capList is list cut to n items, never nil.
func capList(list []string, n int) []string {
	if list == nil {
		return []string{}
	}
	return list[:min(len(list), n)]
}
