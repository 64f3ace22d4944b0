package link

import (
	"fmt"
	"strings"
)

// Relation is the type of a link (and, later, of a graph edge): one name of
// the vocabulary Relations lists, in upper snake case as the specs write it.
type Relation string

// AutoMem's relations. See automem-features.md, "Edge Types" (and "Cycles"
// for SHARES_THEME, which its creative cycle makes).
const (
	RelatesTo      Relation = "RELATES_TO"
	LeadsTo        Relation = "LEADS_TO"
	OccurredBefore Relation = "OCCURRED_BEFORE"
	PrefersOver    Relation = "PREFERS_OVER"
	Exemplifies    Relation = "EXEMPLIFIES"
	Contradicts    Relation = "CONTRADICTS"
	Reinforces     Relation = "REINFORCES"
	InvalidatedBy  Relation = "INVALIDATED_BY"
	EvolvedInto    Relation = "EVOLVED_INTO"
	DerivedFrom    Relation = "DERIVED_FROM"
	PartOf         Relation = "PART_OF"
	SharesTheme    Relation = "SHARES_THEME"
)

// ccmemory's cross-references. See context-graph-dag.md, "Cross-Reference
// Relationship Types" and "The New Model" (REFERENCES), and ERRATA.md,
// "ccmemory" (SIMILAR_TO is for similarity; supersession must be stated).
const (
	Supersedes    Relation = "SUPERSEDES"
	Constrains    Relation = "CONSTRAINS"
	DependsOn     Relation = "DEPENDS_ON"
	ConflictsWith Relation = "CONFLICTS_WITH"
	Impacts       Relation = "IMPACTS"
	Informs       Relation = "INFORMS"
	Cites         Relation = "CITES"
	SimilarTo     Relation = "SIMILAR_TO"
	References    Relation = "REFERENCES"
)

// DefaultRelation is the type a mention or a quick link gets until the user
// changes it.
const DefaultRelation = RelatesTo

// Vocabularies a relation comes from.
const (
	VocabularyAutoMem  = "automem"  // automem-features.md
	VocabularyCCMemory = "ccmemory" // context-graph-dag.md
)

// RelationInfo describes one relation for people and for the UI.
type RelationInfo struct {
	Type Relation `json:"type"` // the relation's name
	// Description says when to use the relation, in one sentence.
	Description string `json:"description"`
	// Directed is false for symmetric relations (A similar to B is B similar
	// to A); their Label and Inverse are the same.
	Directed bool `json:"directed"`
	// Label reads from source to target: "A <label> B" ("led to").
	Label string `json:"label"`
	// Inverse reads from target back to source, for backlinks: "B <inverse>
	// A" ("came from").
	Inverse string `json:"inverse"`
	// Vocabulary is where the relation comes from: VocabularyAutoMem or
	// VocabularyCCMemory.
	Vocabulary string `json:"vocabulary"`
}

// relations is the vocabulary, in the order the UI offers it: the general
// relation first, then AutoMem's, then ccmemory's.
var relations = []RelationInfo{
	{RelatesTo, "A general connection when no more specific relation fits (a bug report and a related issue).", false, "relates to", "relates to", VocabularyAutoMem},
	{LeadsTo, "Cause and effect: the source caused or led to the target (a problem and its solution).", true, "led to", "came from", VocabularyAutoMem},
	{OccurredBefore, "Temporal order: the source happened before the target (planning and then execution).", true, "occurred before", "occurred after", VocabularyAutoMem},
	{PrefersOver, "A preference: the source was chosen instead of the target (PostgreSQL over MongoDB).", true, "preferred over", "passed over for", VocabularyAutoMem},
	{Exemplifies, "The source is an example of the pattern or practice the target describes.", true, "exemplifies", "exemplified by", VocabularyAutoMem},
	{Contradicts, "The source states something that conflicts with the target (an old approach and a new one).", true, "contradicts", "contradicted by", VocabularyAutoMem},
	{Reinforces, "The source is evidence supporting the target (a validation of a decision).", true, "reinforces", "reinforced by", VocabularyAutoMem},
	{InvalidatedBy, "The source is outdated: the target made it wrong (legacy docs and the current docs).", true, "invalidated by", "invalidates", VocabularyAutoMem},
	{EvolvedInto, "The source developed into the target over time (an initial design and the final one).", true, "evolved into", "evolved from", VocabularyAutoMem},
	{DerivedFrom, "The source was made from the target, which it tracks as its origin (an implementation and its spec).", true, "derived from", "source of", VocabularyAutoMem},
	{PartOf, "Hierarchy: the source is a part of the target (a feature and its epic, a session and its project).", true, "part of", "contains", VocabularyAutoMem},
	{SharesTheme, "The two items are about the same theme without a more specific relation (found by similarity).", false, "shares a theme with", "shares a theme with", VocabularyAutoMem},
	{Supersedes, "The source replaces the target, a prior decision; stated, never inferred from similarity alone.", true, "supersedes", "superseded by", VocabularyCCMemory},
	{Constrains, "The source limits what the target can do (because of X we cannot do Y).", true, "constrains", "constrained by", VocabularyCCMemory},
	{DependsOn, "The source requires the target (this needs X).", true, "depends on", "needed by", VocabularyCCMemory},
	{ConflictsWith, "The two are incompatible: doing one rules out the other.", false, "conflicts with", "conflicts with", VocabularyCCMemory},
	{Impacts, "The source affects the target in another trace or topic.", true, "impacts", "impacted by", VocabularyCCMemory},
	{Informs, "The source gives context for the target; weaker than DEPENDS_ON (a failed approach and later decisions).", true, "informs", "informed by", VocabularyCCMemory},
	{Cites, "The source refers to the target as a prior decision or precedent.", true, "cites", "cited by", VocabularyCCMemory},
	{SimilarTo, "The two are alike (the same pattern in another project); similarity alone gives this, never SUPERSEDES.", false, "similar to", "similar to", VocabularyCCMemory},
	{References, "The source mentions or points to the target (a decision referencing an exception).", true, "references", "referenced by", VocabularyCCMemory},
}

var relationIndex = func() map[Relation]int {
	m := make(map[Relation]int, len(relations))
	for i, r := range relations {
		m[r.Type] = i
	}
	return m
}()

// Relations returns the whole vocabulary, one entry per relation, in the
// order the UI offers it. The slice is a copy.
func Relations() []RelationInfo {
	return append([]RelationInfo(nil), relations...)
}

// Lookup returns the description of relation t and whether t is in the
// vocabulary.
func Lookup(t Relation) (RelationInfo, bool) {
	i, ok := relationIndex[t]
	if !ok {
		return RelationInfo{}, false
	}
	return relations[i], true
}

// ParseRelation reads a relation as a person types it: any case, with
// spaces, dashes or underscores between the words ("leads to", "leads-to",
// "LEADS_TO"). An unknown name is an error listing the vocabulary.
func ParseRelation(s string) (Relation, error) {
	norm := strings.ToUpper(strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	}), "_"))
	if _, ok := relationIndex[Relation(norm)]; ok {
		return Relation(norm), nil
	}
	names := make([]string, len(relations))
	for i, r := range relations {
		names[i] = string(r.Type)
	}
	return "", fmt.Errorf("link: unknown relation %q (want one of %s)", s, strings.Join(names, ", "))
}

// Directed reports whether t reads one way only (false for symmetric
// relations and unknown ones).
func (t Relation) Directed() bool {
	r, _ := Lookup(t)
	return r.Directed
}
