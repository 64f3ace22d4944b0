package knowledge

import (
	"crypto/sha256"
	"sort"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"rhizome/backend/session"
	"rhizome/backend/summary"
)

// OfflineVersion names the offline rule set; bump it when a rule changes so
// that items found by older rules can be found again.
const OfflineVersion = "knowledge-offline-1"

// Confidence of each offline rule: lower than a model's or a person's word,
// and lower still where the wording is looser. See the rule names below.
var ruleConfidence = map[string]float64{
	RuleAlwaysNever:  0.6,
	RuleMust:         0.55,
	RuleFromNowOn:    0.6,
	RuleWeUse:        0.55,
	RulePattern:      0.5,
	RuleUseNot:       0.5,
	RulePrefer:       0.5,
	RuleDont:         0.45,
	RuleInsteadOf:    0.5,
	RuleSwitch:       0.5,
	RuleNoLets:       0.45,
	RuleGoWith:       0.5,
	RuleDecided:      0.6,
	RuleThatWasWrong: 0.5,
	RuleUserQuestion: 0.4,
	RuleDidntWork:    0.4,
}

// Names of the offline rules (Provenance.Rule). Each reads one sentence of a
// user message (the person's words carry the project's rules), except
// RuleDidntWork, which reads the assistant's too.
const (
	RuleAlwaysNever  = "always-never"   // "Always …" / "Never …": a constraint (a workflow when the verb is one)
	RuleMust         = "must"           // "<noun phrase> must (not|never|always) …", "the invariant that …": a constraint
	RuleFromNowOn    = "from-now-on"    // "From now on …" / "Going forward …": a workflow
	RuleWeUse        = "we-use"         // "We use X for Y": a tool fact
	RulePattern      = "pattern-is"     // "The pattern is …": a pattern fact
	RuleUseNot       = "use-not"        // "Use X, not Y" / "Use X instead of Y": a convention
	RulePrefer       = "prefer"         // "We prefer X over Y": a convention
	RuleDont         = "dont"           // "Don't …" opening a sentence: a constraint
	RuleInsteadOf    = "instead-of"     // "Do X instead of Y" / "Instead of Y, let's X": a decision, Y considered
	RuleSwitch       = "switch-from-to" // "Migrate/switch … from A to B": a decision, A considered
	RuleNoLets       = "no-lets"        // "No, let's …" / "No, we should …": a decision overriding a proposal
	RuleGoWith       = "go-with"        // "Let's go with X": a decision
	RuleDecided      = "decided"        // "We decided to …" / "Decision: …": a decision
	RuleThatWasWrong = "that-was-wrong" // "That's wrong, X" / "That is not how it works. X": a correction, X the right belief
	RuleUserQuestion = "user-question"  // a question the user asked, with the assistant's reply as answer (or open)
	RuleDidntWork    = "didnt-work"     // "<approach> didn't work because …": a failed approach
)

// Bounds of the rules, in words of a sentence.
const (
	minRuleWords  = 3
	maxRuleWords  = 30
	minQuestWords = 5
	maxAnswerLen  = 400 // bytes of an answer kept
	maxContextLen = 300 // bytes of a question's context kept
	maxCandidates = 200 // items one segment can yield
)

// Source says where the entries an Extractor read come from.
type Source struct {
	Project       string // the session's cwd
	SessionID     string
	SegmentNodeID string // the graph node of the segment (analyze.NodeID)
}

// candidate is an item found, before it gets its id.
type candidate struct {
	rule     string
	body     any
	entryIDs []string
	stated   time.Time
	key      string
	order    int
	dropped  bool // a question whose answer could not be told apart
}

// pendingQuestion is a user question awaiting the end of its turn.
type pendingQuestion struct {
	idx int // in Extractor.found
}

// Extractor finds knowledge where a segment's text states it, by the
// offline rules named Rule…: precision over recall, so a rule fires only on
// wording that says the thing outright. It is fed the segment's entries one
// at a time (streaming, like analyze.Accumulator) and keeps only what it
// found and the current turn's last assistant reply (capped).
//
// An Extractor is not safe for concurrent use; the zero value is not ready:
// use NewExtractor.
type Extractor struct {
	found   []candidate
	index   map[string]int // key -> index in found
	pending []pendingQuestion
	order   int

	// The current turn (since the last user message): whether the assistant
	// wrote text, its first text's direct answer and its first yes-or-no
	// answer, with their entries.
	replied                bool
	direct, directEntry    string
	yesNo, yesNoEntry      string
	lastAsstID, lastAsstIn string // the last assistant text entry, of this turn and of the one before
}

// NewExtractor returns an empty extractor for one segment.
func NewExtractor() *Extractor {
	return &Extractor{index: map[string]int{}}
}

// Reset empties the extractor for the next segment.
func (x *Extractor) Reset() {
	clear(x.index)
	*x = Extractor{index: x.index, found: x.found[:0], pending: x.pending[:0]}
}

// Add reads one entry. Only message entries matter: the user's text (after
// summary.CleanUserText strips pastes, code and tool wrappers) through the
// user rules, the assistant's text through RuleDidntWork and as the answer
// to the turn's questions.
func (x *Extractor) Add(e *session.Entry) {
	if e.Type != session.TypeMessage || e.Message == nil {
		return
	}
	switch e.Message.Role {
	case session.RoleUser:
		x.closeTurn()
		x.lastAsstIn = x.lastAsstID
		x.lastAsstID = ""
		x.user(e)
	case session.RoleAssistant:
		text := blockText(e.Message.Content)
		if strings.TrimSpace(text) == "" {
			return
		}
		if len(x.pending) > 0 {
			if !x.replied {
				x.direct, x.directEntry = directAnswer(text), e.ID
			}
			if x.yesNo == "" {
				x.yesNo, x.yesNoEntry = yesNoAnswer(text), e.ID
			}
		}
		x.replied = true
		x.lastAsstID = e.ID
		if !mayTellFailure(text) {
			return
		}
		for _, s := range sentencesOf(summary.CleanUserText(text)) {
			if c, ok := didntWork(s); ok {
				x.add(c, e)
			}
		}
	}
}

// mayTellFailure reports whether an assistant's text can hold a sentence
// RuleDidntWork reads: it names "work" and one of the negations the rule
// needs. Most replies do not, and are spared the cleaning and sentence
// splitting (the bulk of the extraction's time).
func mayTellFailure(text string) bool {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "work") {
		return false
	}
	for _, neg := range []string{"did", "does", "won", "failed"} {
		if strings.Contains(lower, neg) {
			return true
		}
	}
	return false
}

// blockText joins the text blocks of a message (no thinking, no tool calls).
func blockText(blocks []session.Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == session.BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// closeTurn settles the questions of the turn that ends. A question the
// assistant never answered in text stays open. A yes-or-no question takes
// the first reply of the turn that opens with "Yes" or "No"; another
// question the turn's first reply, when that reply answers straight away
// (see directAnswer). Otherwise the reply cannot be told from the work
// around it offline, and the question is dropped: precision over recall.
func (x *Extractor) closeTurn() {
	for _, p := range x.pending {
		c := &x.found[p.idx]
		q := c.body.(*Question)
		answer, entry := x.direct, x.directEntry
		if yesNo(q.Question) {
			answer, entry = x.yesNo, x.yesNoEntry
		}
		switch {
		case !x.replied:
		case answer == "":
			c.dropped = true
		default:
			q.Answer = answer
			c.entryIDs = append(c.entryIDs, entry)
		}
	}
	x.pending = x.pending[:0]
	x.replied, x.direct, x.directEntry, x.yesNo, x.yesNoEntry = false, "", "", "", ""
}

// user runs the user rules over the sentences of one user message.
func (x *Extractor) user(e *session.Entry) {
	clean := summary.CleanUserText(blockText(e.Message.Content))
	if clean == "" {
		return
	}
	sents := sentencesOf(clean)
	question := ""
	for i, s := range sents {
		if s.question {
			if q, ok := userQuestion(s); ok && question == "" {
				question = q
			}
			continue
		}
		if c, ok := correction(sents, i); ok {
			if x.lastAsstIn != "" {
				c.entryIDs = append(c.entryIDs, x.lastAsstIn)
			}
			x.add(c, e)
			continue
		}
		for _, rule := range sentenceRules {
			if c, ok := rule(s); ok {
				x.add(c, e)
				break
			}
		}
	}
	if question != "" {
		q := &Question{Question: question, Context: questionContext(sents, question)}
		idx := x.add(candidate{rule: RuleUserQuestion, body: q}, e)
		if idx >= 0 {
			x.pending = append(x.pending, pendingQuestion{idx})
		}
	}
}

// add records a candidate found in entry e, merging repeats (the same kind
// and text) into the first; it returns the candidate's index, or -1 when
// the segment's cap is reached or it repeats.
func (x *Extractor) add(c candidate, e *session.Entry) int {
	it := Item{}
	if it.setBody(c.body) != nil {
		return -1
	}
	c.key = string(it.Kind) + "\x00" + normKey(it.subject())
	if i, ok := x.index[c.key]; ok {
		if !containsID(x.found[i].entryIDs, e.ID) {
			x.found[i].entryIDs = append(x.found[i].entryIDs, e.ID)
		}
		return -1
	}
	if len(x.found) >= maxCandidates {
		return -1
	}
	c.entryIDs = append([]string{e.ID}, c.entryIDs...)
	c.stated = e.Timestamp
	if c.stated.IsZero() && e.Message != nil && e.Message.Timestamp > 0 {
		c.stated = time.UnixMilli(e.Message.Timestamp)
	}
	x.order++
	c.order = x.order
	x.index[c.key] = len(x.found)
	x.found = append(x.found, c)
	return len(x.found) - 1
}

func containsID(ids []string, id string) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// Items returns what the extractor found, in the order it was stated, as
// version-1 items made offline (ByOffline, the rule's name and confidence)
// of src's project. Questions whose turn had no assistant text are open.
// Ids are ULIDs of the stated time whose random part is a hash of the
// source, rule, first entry and text: reading the same segment again gives
// the same ids, so a re-import replaces rather than duplicates. Items never
// fail validation: a candidate that would is dropped.
func (x *Extractor) Items(src Source, now time.Time) []Item {
	x.closeTurn()
	now = now.UTC().Truncate(time.Millisecond)
	out := make([]Item, 0, len(x.found))
	for _, c := range x.found {
		if c.dropped {
			continue
		}
		stated := c.stated
		if stated.IsZero() {
			stated = now
		}
		stated = stated.UTC().Truncate(time.Millisecond)
		it := Item{
			ID: offlineID(stated, src, c), Version: 1, Project: src.Project,
			Timestamp: stated, CreatedAt: now, Status: StatusActive, Confidence: ruleConfidence[c.rule],
			Source: Provenance{SessionID: src.SessionID, SegmentNodeID: src.SegmentNodeID,
				EntryIDs: append([]string(nil), c.entryIDs...), CreatedBy: ByOffline, Rule: c.rule},
		}
		if it.setBody(cloneBody(c.body)) != nil {
			continue
		}
		it.fillDefaults()
		if it.Validate() != nil {
			continue
		}
		out = append(out, it)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timestamp.Before(out[j].Timestamp) })
	return out
}

// cloneBody copies a candidate's body so that returned items do not share
// memory with the extractor.
func cloneBody(b any) any {
	switch v := b.(type) {
	case *Decision:
		c := *v
		c.OptionsConsidered = append([]string(nil), v.OptionsConsidered...)
		return &c
	case *Correction:
		c := *v
		return &c
	case *FailedApproach:
		c := *v
		return &c
	case *Question:
		c := *v
		return &c
	case *ProjectFact:
		c := *v
		return &c
	}
	return b
}

// offlineID is the deterministic ULID of an offline item.
func offlineID(stated time.Time, src Source, c candidate) string {
	h := sha256.New()
	for _, s := range []string{OfflineVersion, src.Project, src.SessionID, src.SegmentNodeID, c.rule, c.entryIDs[0], c.key} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(stated)); err != nil {
		_ = id.SetTime(0)
	}
	_ = id.SetEntropy(sum[:10])
	return id.String()
}
