package app

import (
	"fmt"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/knowledge"
	"rhizome/store"
)

// AnalysisKnowledge counts what a model's analysis of a segment did to the
// knowledge items the model made from it (issue 23): items reported for the
// first time, new versions of items reported again in other words,
// items no longer reported (marked stale), items reported as they were or
// taken over by a person, and findings that were no valid item.
type AnalysisKnowledge struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Retired   int `json:"retired"`
	Unchanged int `json:"unchanged"`
	Invalid   int `json:"invalid,omitempty"`
}

// modelItems makes the findings of a model's analysis of node's segment
// knowledge items of their kind: version 1 each, made by the model (model:
// "provider/model"), from the node and its session, in its project, with
// the model's confidence (knowledge.ModelConfidence) and the entries it
// cited, stated when the first of them was written. A finding that is no
// valid item (a NUL in a text) is left out and counted.
func modelItems(fs []analyze.Finding, node *graph.Node, sessionID, model string, now time.Time) ([]knowledge.Item, int) {
	out := make([]knowledge.Item, 0, len(fs))
	invalid := 0
	for _, f := range fs {
		var body any
		switch f.Kind {
		case analyze.FindingDecision:
			body = &knowledge.Decision{Description: f.Decision.What, Rationale: f.Decision.Why, OptionsConsidered: f.Decision.AlternativesConsidered}
		case analyze.FindingCorrection:
			body = &knowledge.Correction{WrongBelief: f.Correction.WrongBelief, RightBelief: f.Correction.RightBelief, Severity: f.Correction.Severity}
		case analyze.FindingFailedApproach:
			body = &knowledge.FailedApproach{Approach: f.FailedApproach.Approach, Outcome: f.FailedApproach.Outcome, Lesson: f.FailedApproach.Lesson}
		case analyze.FindingLesson:
			l := *f.Lesson
			body = &l
		default:
			invalid++
			continue
		}
		src := knowledge.Provenance{SessionID: sessionID, SegmentNodeID: node.ID, EntryIDs: f.EntryIDs,
			CreatedBy: knowledge.ByModel, Model: model}
		it, err := knowledge.New(body, node.Classification.Project, f.Stated, knowledge.ModelConfidence(f.Confidence), src, now)
		if err != nil {
			invalid++
			continue
		}
		it.ID = knowledge.ModelID(now, node.ID, knowledge.ModelGroup(it), f.Subject())
		out = append(out, it)
	}
	return out, invalid
}

// putModelKnowledge writes, in tx, what the findings of a model's analysis
// of node's segment change in the items the model made from it before:
// new items, new versions of those reported again in other words, stale
// versions of those no longer reported (knowledge.ReconcileModel); an
// analysis that reports the same again writes nothing.
func putModelKnowledge(tx *store.Tx, fs []analyze.Finding, node *graph.Node, sessionID, model string, now time.Time) (AnalysisKnowledge, error) {
	found, invalid := modelItems(fs, node, sessionID, model, now)
	prev, err := tx.SegmentKnowledge(node.ID, knowledge.ByModel)
	if err != nil {
		return AnalysisKnowledge{}, err
	}
	ch, err := knowledge.ReconcileModel(prev, found, now)
	if err != nil {
		return AnalysisKnowledge{}, fmt.Errorf("app: the knowledge of node %s: %w", node.ID, err)
	}
	if err := tx.PutKnowledge(ch.Add, ch.Versions); err != nil {
		return AnalysisKnowledge{}, err
	}
	return AnalysisKnowledge{Added: len(ch.Add), Updated: ch.Updated, Retired: ch.Retired, Unchanged: ch.Unchanged, Invalid: invalid}, nil
}
