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
const OfflineVersion = "knowledge-offline-2"

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
	RuleWeShould:     0.45,
	RuleShould:       0.45,
	RuleAgreed:       0.5,
	RuleChoice:       0.5,
	RuleSettled:      0.4,
	RuleNoCorrection: 0.45,
	RuleStop:         0.5,
	RuleNoThing:      0.45,
	RuleWorkflow:     0.45,
	RuleConceded:     0.4,
	RuleNaming:       0.5,
	RuleUndone:       0.45,
}

// Names of the offline rules (Provenance.Rule). Each reads one sentence of a
// user message (the person's words carry the project's rules), except
// RuleDidntWork and RuleSettled, which read the assistant's, and the rules
// of a proposal taken (RuleAgreed, RuleChoice), which read a sentence of
// one side and the opening of the other's reply.
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
	RuleDidntWork    = "didnt-work"     // "<approach> didn't work because …", "<approach> didn't catch X": a failed approach
	RuleWeShould     = "we-should"      // "We should X", "We need to X, so Y", "I want X to Y, so Z": a decision
	RuleShould       = "should"         // "<named thing> should X": a decision ("should not": a constraint)
	RuleAgreed       = "agreed"         // "can we X?" — "Good idea." / "Should I X?" — "yes": a decision
	RuleChoice       = "choice"         // "What do you prefer?" — "add X": a decision
	RuleSettled      = "settled"        // the assistant's "The fix should be to X", "Best solution: X": a decision
	RuleNoCorrection = "no-correction"  // "no, X" replying to the assistant: a correction, X the right belief
	RuleStop         = "stop-doing"     // "stop committing everything": a constraint
	RuleNoThing      = "no-thing"       // "no console logs!": a constraint
	RuleWorkflow     = "workflow-is"    // "The workflow is …": a workflow fact
	RuleConceded     = "conceded"       // a user statement the assistant concedes ("You're right. …"): a correction
	RuleNaming       = "naming"         // "call the file custom-compaction.ts": a decision
	RuleUndone       = "undone"         // "undo that, it was actually X": the assistant's last step, a failed approach
)

// Bounds of the rules, in words of a sentence.
const (
	minRuleWords  = 3
	maxRuleWords  = 30
	minQuestWords = 5
	// maxAnswerReplies is how many of a turn's assistant texts are read for
	// a direct answer: past them the work has moved on.
	maxAnswerReplies = 2
	maxKeptReply     = 4 << 10 // bytes of the last assistant text kept (RuleUndone reads its opening)
	maxAnswerLen     = 400     // bytes of an answer kept
	maxContextLen    = 300     // bytes of a question's context kept
	maxCandidates    = 200     // items one segment can yield
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
	idx   int  // in Extractor.found
	leans bool // kept only when answered (askedQuestion.leans)
	tag   bool // asks to confirm a statement (askedQuestion.tag)
}

// pendingProposal is a user's proposal awaiting the turn's first reply.
type pendingProposal struct {
	c  candidate
	at entryRef
}

// entryRef is the entry an item is found in: its id and when it was said.
type entryRef struct {
	id     string
	stated time.Time
}

func refOf(e *session.Entry) entryRef {
	r := entryRef{id: e.ID, stated: e.Timestamp}
	if r.stated.IsZero() && e.Message != nil && e.Message.Timestamp > 0 {
		r.stated = time.UnixMilli(e.Message.Timestamp)
	}
	return r
}

// Extractor finds knowledge where a segment's text states it, by the
// offline rules named Rule…: precision over recall, so a rule fires only on
// wording that says the thing outright, or on a proposal the other side
// takes up in the next message (an offer accepted, a point conceded). It is
// fed the segment's entries one at a time (streaming, like
// analyze.Accumulator) and keeps only what it found, the state of the
// current turn and the last assistant text (capped at maxKeptReply).
// TestLabelledSet measures it against the knowledge hand-labelled in the
// real sessions (testdata/labelled.json).
//
// An Extractor is not safe for concurrent use; the zero value is not ready:
// use NewExtractor.
type Extractor struct {
	found   []candidate
	index   map[string]int // key -> index in found
	pending []pendingQuestion
	order   int

	// The current turn (since the last user message): how many texts the
	// assistant wrote, the first direct answer among its first
	// maxAnswerReplies texts, its first yes-or-no answer and its first
	// confirmation, with their entries; the user's proposals awaiting its
	// first text.
	replies                int
	direct, directEntry    string
	directReply            int // which of the turn's texts gave direct (1-based)
	yesNo, yesNoEntry      string
	tagYes, tagYesEntry    string
	proposals              []pendingProposal
	point                  *pendingProposal // the user's point awaiting the turn's first reply (see conceded)
	pointHedged            bool
	lastAsstID, lastAsstIn string // the last assistant text entry, of this turn and of the one before
	lastText, prevText     string // the last assistant text, of this turn and of the one before (capped)

	// What the assistant's last text ends by asking, awaiting the user's
	// reply: an offer (the decision it makes if taken), or a choice.
	offered   *candidate
	offeredIn string
	asked     bool
}

// NewExtractor returns an empty extractor for one segment.
func NewExtractor() *Extractor {
	return &Extractor{index: map[string]int{}}
}

// Reset empties the extractor for the next segment.
func (x *Extractor) Reset() {
	clear(x.index)
	*x = Extractor{index: x.index, found: x.found[:0], pending: x.pending[:0], proposals: x.proposals[:0]}
}

// Add reads one entry. Only message entries matter: the user's text (after
// summary.CleanUserText strips pastes, code and tool wrappers) through the
// user rules, the assistant's text through RuleDidntWork and RuleSettled,
// as the answer to the turn's questions, as the reply to the user's
// proposals, and for what it offers the user.
func (x *Extractor) Add(e *session.Entry) {
	if e.Type != session.TypeMessage || e.Message == nil {
		return
	}
	switch e.Message.Role {
	case session.RoleUser:
		x.closeTurn()
		x.lastAsstIn, x.prevText = x.lastAsstID, x.lastText
		x.lastAsstID, x.lastText = "", ""
		x.user(e)
		x.offered, x.offeredIn, x.asked = nil, "", false
	case session.RoleAssistant:
		text := blockText(e.Message.Content)
		if strings.TrimSpace(text) == "" {
			return
		}
		x.assistant(e, text)
	}
}

// assistant reads one assistant text of the current turn.
func (x *Extractor) assistant(e *session.Entry, text string) {
	x.replies++
	if x.replies == 1 {
		if len(x.proposals) > 0 && agrees(text) {
			for _, p := range x.proposals {
				p.c.entryIDs = append(p.c.entryIDs, e.ID)
				x.add(p.c, p.at)
			}
		}
		x.proposals = x.proposals[:0]
		if p := x.point; p != nil && (x.pointHedged && agrees(text) || !x.pointHedged && concedes(text)) {
			p.c.entryIDs = append(p.c.entryIDs, e.ID)
			x.add(p.c, p.at)
		}
		x.point = nil
	}
	if len(x.pending) > 0 && x.replies <= maxAnswerReplies && (x.direct == "" || x.yesNo == "" || x.tagYes == "") {
		rs := replySentences(text)
		if x.direct == "" {
			x.direct, x.directEntry, x.directReply = directAnswer(rs), e.ID, x.replies
		}
		if x.yesNo == "" {
			x.yesNo, x.yesNoEntry = yesNoAnswer(rs, yesOpeners), e.ID
		}
		if x.tagYes == "" {
			x.tagYes, x.tagYesEntry = yesNoAnswer(rs, tagOpeners), e.ID
		}
	}
	x.lastAsstID = e.ID
	x.lastText = text
	if len(x.lastText) > maxKeptReply {
		x.lastText = x.lastText[:maxKeptReply]
	}
	x.offered, x.offeredIn, x.asked = nil, "", false
	asks := endsAsking(text)
	if !asks && !maySettle(strings.ToLower(text)) && !mayTellFailure(text) {
		return
	}
	sents := sentencesOf(summary.CleanUserText(text))
	// A text that ends by asking the user holds proposals, not decisions:
	// what it settles on is offered, decided when the user takes it.
	awaiting, offerLeans := false, false
	if asks && len(sents) > 0 {
		if last := sents[len(sents)-1]; last.question {
			awaiting = true
			if c, ok := offer(last.text); ok {
				x.offered, x.offeredIn = &c, e.ID
			} else {
				offerLeans = offerRE.MatchString(last.lower)
			}
			x.asked = asksPreference(last.text)
		}
	}
	var settledOn []candidate
	for _, s := range sents {
		if c, ok := didntWork(s); ok {
			x.add(c, refOf(e))
		}
		if reconsiders(s) {
			settledOn = settledOn[:0] // "But that's more invasive."
		}
		if c, ok := settled(s); ok {
			settledOn = append(settledOn, c)
		}
	}
	for _, c := range settledOn {
		switch {
		case !awaiting:
			x.add(c, refOf(e))
		case offerLeans && x.offered == nil:
			x.offered, x.offeredIn = &c, e.ID // "Want me to do this?" offers what the text settled on
		}
	}
}

// endsAsking reports whether an assistant text's last line asks something:
// only then can it close with an offer or a choice for the user.
func endsAsking(text string) bool {
	text = strings.TrimSpace(text)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return strings.Contains(text, "?")
}

// mayTellFailure reports whether an assistant's text can hold a sentence
// RuleDidntWork reads: it says "didn't", or names "work" and one of the
// negations the rule needs. Most replies do not (nor end by asking, nor
// settle on an approach: see assistant), and are spared the cleaning and
// sentence splitting (the bulk of the extraction's time).
func mayTellFailure(text string) bool {
	lower := strings.ToLower(text)
	if strings.Contains(lower, "didn't") || strings.Contains(lower, "did not") || strings.Contains(lower, "didn’t") {
		return true
	}
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

// closeTurn settles the questions of the turn that ends, from the turn's
// first maxAnswerReplies assistant texts. A question the assistant never
// answered in text stays open, unless it leans on context
// (askedQuestion.leans): then it is dropped. A question asking to confirm a
// statement takes the first of those texts that opens with a confirmation
// ("You're right", "Yes", "No"); a yes-or-no question the first that opens
// with "Yes" or "No"; either, failing that, and any other question take the
// first direct answer (see directAnswer), which must be about the question
// (see relevant) when it stands in for a yes or no or comes after the
// turn's first text. Otherwise the reply cannot be told from the work
// around it offline, and the question is dropped: precision over recall.
func (x *Extractor) closeTurn() {
	for _, p := range x.pending {
		c := &x.found[p.idx]
		q := c.body.(*Question)
		answer, entry, direct := x.direct, x.directEntry, true
		switch {
		case p.tag && x.tagYes != "":
			answer, entry, direct = x.tagYes, x.tagYesEntry, false
		case !p.tag && yesNo(q.Question) && x.yesNo != "":
			answer, entry, direct = x.yesNo, x.yesNoEntry, false
		}
		// A direct answer from further into the turn, or standing in for
		// the yes, no or confirmation the question asked for, must be about
		// it.
		if direct && answer != "" && (p.tag || yesNo(q.Question) || x.directReply > 1) &&
			!relevant(answer, q.Question+" "+q.Context) {
			answer = ""
		}
		switch {
		case x.replies == 0:
			c.dropped = p.leans
		case answer == "":
			c.dropped = true
		default:
			q.Answer = answer
			c.entryIDs = append(c.entryIDs, entry)
		}
	}
	x.pending = x.pending[:0]
	x.proposals = x.proposals[:0]
	x.point = nil
	x.replies, x.direct, x.directEntry, x.directReply = 0, "", "", 0
	x.yesNo, x.yesNoEntry, x.tagYes, x.tagYesEntry = "", "", "", ""
}

// user runs the user rules over the sentences of one user message: first
// whether it takes what the assistant's last text offered or answers the
// choice it asked for; then, sentence by sentence, a proposal or a
// question (a sentence asking), a correction, a reply opening with "no,"
// (RuleNoLets, RuleNoCorrection), and the sentence rules.
func (x *Extractor) user(e *session.Entry) {
	clean := summary.CleanUserText(blockText(e.Message.Content))
	if clean == "" {
		return
	}
	at := refOf(e)
	sents := sentencesOf(clean)
	skipFirst := false
	if len(sents) > 0 && x.offered != nil && userTakes(sents[0], clean) {
		c := *x.offered
		c.entryIDs = []string{x.offeredIn}
		x.add(c, at)
	} else if len(sents) > 0 && x.asked {
		if c, ok := choice(sents[0]); ok {
			c.entryIDs = []string{x.lastAsstIn}
			x.add(c, at)
			skipFirst = true
		}
	}
	var question askedQuestion
	before, proposed := len(x.found), len(x.proposals)
	for i, s := range sents {
		if i == 0 && skipFirst {
			continue
		}
		if !s.question && question.text == "" {
			if q, ok := userQuestion(s); ok { // "i wonder why …"
				question = q
				continue
			}
		}
		if s.question {
			for _, a := range asides(s) {
				if c, ok := must(a); ok {
					x.add(c, at)
				}
			}
			if c, ok := proposal(s); ok {
				x.proposals = append(x.proposals, pendingProposal{c, at})
			} else if q, ok := userQuestion(s); ok && question.text == "" {
				question = q
			}
			continue
		}
		if c, ok := correction(sents, i); ok {
			if x.lastAsstIn != "" {
				c.entryIDs = append(c.entryIDs, x.lastAsstIn)
			}
			x.add(c, at)
			continue
		}
		if c, ok := undoThat(s, x.prevText); ok {
			c.entryIDs = append(c.entryIDs, x.lastAsstIn)
			x.add(c, at)
			continue
		}
		if i == 0 && s.noLead && x.lastAsstIn != "" {
			if c, ok := noLets(s); ok {
				x.add(c, at)
				continue
			}
			if c, ok := noCorrection(s); ok {
				c.entryIDs = append(c.entryIDs, x.lastAsstIn)
				x.add(c, at)
				continue
			}
		}
		for _, rule := range sentenceRules {
			if c, ok := rule(s); ok {
				x.add(c, at)
				break
			}
		}
	}
	if len(x.found) == before && len(x.proposals) == proposed && question.text == "" {
		if c, hedged, ok := conceded(sents); ok {
			x.point, x.pointHedged = &pendingProposal{c, at}, hedged
		}
	}
	if question.text != "" {
		q := &Question{Question: question.text, Context: questionContext(sents, question.text)}
		idx := x.add(candidate{rule: RuleUserQuestion, body: q}, at)
		if idx >= 0 {
			x.pending = append(x.pending, pendingQuestion{idx: idx, leans: question.leans, tag: question.tag})
		}
	}
}

// add records a candidate found in entry e, merging repeats (the same kind
// and text) into the first; it returns the candidate's index, or -1 when
// the segment's cap is reached or it repeats.
func (x *Extractor) add(c candidate, e entryRef) int {
	it := Item{}
	if it.setBody(c.body) != nil {
		return -1
	}
	c.key = string(it.Kind) + "\x00" + normKey(it.subject())
	if i, ok := x.index[c.key]; ok {
		if !containsID(x.found[i].entryIDs, e.id) {
			x.found[i].entryIDs = append(x.found[i].entryIDs, e.id)
		}
		return -1
	}
	if len(x.found) >= maxCandidates {
		return -1
	}
	c.entryIDs = append([]string{e.id}, c.entryIDs...)
	c.stated = e.stated
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
