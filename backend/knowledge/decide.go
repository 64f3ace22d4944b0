package knowledge

import (
	"regexp"
	"strings"
)

// This file holds the rules that read a decision, a standing rule or a
// correction where it is said in passing rather than in a rule's set
// wording: the user's "we should …" and "<the thing> should …", a proposal
// the other side takes ("can we X?" — "Good idea."; "Should I X?" — "yes"),
// the option the user picks when asked, the approach the assistant settles
// on ("The fix should be to …"), "no, …" replying to the assistant, "stop
// …ing" and "no X!". Each reads the words of one sentence; the turn rules
// (extract.go) say which sentences, and when.

// hedgeLead strips an opening "i think" / "i guess" / "i suppose" (with
// text's original case kept): the user proposing, not doubting.
func hedgeLead(text string) string {
	l := asciiLower(text)
	for _, h := range []string{"i think ", "i guess ", "i suppose ", "i'd say "} {
		if strings.HasPrefix(l, h) {
			return strings.TrimSpace(text[len(h):])
		}
	}
	return text
}

// rationaleCut splits "<decision>, so <why>" (or because, since, so that,
// or else, otherwise) at its last such conjunction with words on both
// sides; why is "" when there is none.
func rationaleCut(text string) (what, why string) {
	l := asciiLower(text)
	best := -1
	var sep string
	for _, c := range []string{" so that ", " so ", " because ", " since ", " or else ", " otherwise "} {
		if i := strings.LastIndex(l, c); i > best && strings.Count(l[:i], " ") >= 2 && len(strings.Fields(l[i+len(c):])) >= 2 {
			best, sep = i, c
		}
	}
	if best < 0 {
		return text, ""
	}
	what = strings.TrimRight(text[:best], " ,;:")
	why = strings.TrimRight(strings.TrimSpace(text[best+len(sep):]), " .!?")
	return what, why
}

// vague reports whether a decision's text names what it is about only by a
// pronoun ("do that", "fix it the same way"): its first word after the verb,
// or its last word, is one, or it is under three words.
func vague(lower string) bool {
	f := strings.Fields(clausePunct.Replace(lower))
	if len(f) < 3 {
		return true
	}
	return referents[f[1]] || referents[f[len(f)-1]]
}

func decision(rule, text, why string, considered ...string) (candidate, bool) {
	d := asRule(text)
	if strings.Count(d, " ") < 2 {
		return candidate{}, false
	}
	return candidate{rule: rule, body: &Decision{Description: d, Rationale: why, OptionsConsidered: considered}}, true
}

var (
	weShouldRE = regexp.MustCompile(`^we (?:should|ought to) (?:probably |also |just |really )?`)
	weNeedRE   = regexp.MustCompile(`^(?:we (?:need|have) to|we must) (?:probably |also |just |really )?`)
	iWantRE    = regexp.MustCompile(`^i (?:want|'d like|would like) ((?:the |our |this |that |a |an )?[^ ]+(?: [^ ]+){0,4}?) to `)
)

// weShould: "We should rename loadSessionFromEntries to buildSessionContext"
// (an "i think" before it proposes, it does not doubt), "We need to pass
// resolveApiKey to the hooks as well, so they …" or "I want the example to
// use gemini-3-flash, so we also show …": a decision. "We need to …" and
// "I want …" decide only with a reason ("so …", "because …"): without one
// they are tasks ("we need to fix the tui test sources").
func weShould(s sentence) (candidate, bool) {
	if s.question || s.words < minRuleWords || s.words > maxRuleWords ||
		!strings.Contains(s.lower, "we ") && !strings.HasPrefix(hedgeLead(s.lower), "i ") {
		return candidate{}, false
	}
	text := hedgeLead(s.text)
	l := asciiLower(text)
	if s.hedged && text == s.text {
		return candidate{}, false // "maybe we should …" doubts
	}
	what, why := rationaleCut(text)
	switch {
	case weShouldRE.MatchString(l):
		rest := what[len(weShouldRE.FindString(l)):]
		if strings.HasPrefix(asciiLower(rest), "be ") || vague(asciiLower(rest)) {
			return candidate{}, false // "we should be good to go"
		}
		return decision(RuleWeShould, rest, why)
	case why == "":
		return candidate{}, false
	case weNeedRE.MatchString(l):
		rest := what[len(weNeedRE.FindString(l)):]
		if vague(asciiLower(rest)) {
			return candidate{}, false
		}
		return decision(RuleWeShould, rest, why)
	}
	if m := iWantRE.FindStringSubmatchIndex(l); m != nil && !pronouns[firstWord(l[m[2]:m[3]])] {
		rest := what[m[1]:]
		if vague(asciiLower(rest)) {
			return candidate{}, false
		}
		return decision(RuleWeShould, what[m[2]:m[3]]+" should "+rest, why)
	}
	return candidate{}, false
}

// subjectless are words that cannot be the subject of "<X> should …": a
// pronoun, a quantifier or an opener that makes the sentence a condition
// or a question.
var subjectless = map[string]bool{
	"we": true, "everything": true, "something": true, "nothing": true, "anything": true, "all": true,
	"both": true, "if": true, "when": true, "so": true, "then": true, "which": true, "what": true, "why": true,
	"how": true, "where": true, "also": true, "maybe": true, "probably": true, "should": true,
	"and": true, "but": true, "or": true, "because": true, "as": true, "to": true,
}

// expects are words after "should" that expect an outcome rather than
// decide one ("the tests should pass now", "the build should be fine").
var expects = map[string]bool{"work": true, "pass": true, "compile": true, "build": true, "now": true,
	"fine": true, "ok": true, "okay": true, "good": true, "done": true, "ready": true, "there": true, "working": true,
	"able": true, "enough": true}

var shouldRE = regexp.MustCompile(`\b(should(?:n't| not)?) `)

// npShould: "Bullet in markdown should be same as inline code in markdown",
// "OAuth should be outside of all that machinery": the user says how a named
// thing of the project is to be, a decision ("… should not …": a
// constraint). The subject (one to six words opening the sentence) must
// name the thing: not a pronoun ("it should …"), not missing ("should be
// dimmer"). "should never/always" is RuleMust's; a sentence opening with
// "no," is a reply (see noCorrection), and a question a proposal (see
// proposal).
func npShould(s sentence) (candidate, bool) {
	if !s.statement() || s.noLead || !strings.Contains(s.lower, "should") {
		return candidate{}, false
	}
	loc := shouldRE.FindStringSubmatchIndex(s.lower)
	if loc == nil {
		return candidate{}, false
	}
	subj := strings.Fields(clausePunct.Replace(s.lower[:loc[0]]))
	if len(subj) == 0 || len(subj) > 6 || pronouns[subj[0]] || subjectless[subj[0]] || notImperative[subj[0]] && subj[0] != "the" && subj[0] != "a" && subj[0] != "an" && subj[0] != "our" {
		return candidate{}, false
	}
	for _, w := range subj {
		if w == "i" || w == "you" || w == "we" || referents[w] {
			return candidate{}, false
		}
	}
	after := strings.Fields(clausePunct.Replace(s.lower[loc[1]:]))
	if len(after) < 2 || after[0] == "never" || after[0] == "always" || after[0] == "probably" || expects[after[0]] ||
		after[0] == "be" && expects[after[1]] {
		return candidate{}, false
	}
	what, why := rationaleCut(s.text)
	if s.lower[loc[2]:loc[3]] != "should" {
		return fact(RuleShould, what, CategoryConstraint)
	}
	return decision(RuleShould, what, why)
}

// stopDoing: "stop committing everything": a constraint on the agent's
// work, in the user's words. What is to stop must be named ("stop doing
// that" and "stop doing shit" name nothing).
func stopDoing(s sentence) (candidate, bool) {
	if !s.statement() || !strings.HasPrefix(s.lower, "stop ") {
		return candidate{}, false
	}
	f := strings.Fields(clausePunct.Replace(s.lower))
	if len(f) < 3 || !strings.HasSuffix(f[1], "ing") || f[1] == "doing" || f[1] == "being" {
		return candidate{}, false
	}
	for _, w := range f[2:] {
		if referents[w] || w == "shit" || w == "stuff" || w == "things" {
			return candidate{}, false
		}
	}
	return fact(RuleStop, s.text, categoryFor(strings.TrimSuffix(f[1], "ing"), CategoryConstraint))
}

var noThingRE = regexp.MustCompile(`^no [a-z][a-z0-9_.-]*(?: [a-z0-9_.-]+){0,2}!+$`)

// noThing: "no console logs!": a short exclamation forbidding a named
// thing, a constraint.
func noThing(s sentence) (candidate, bool) {
	if s.question || !noThingRE.MatchString(s.lower) || leansOnContext(s.lower) {
		return candidate{}, false
	}
	return fact(RuleNoThing, s.text, CategoryConstraint)
}

var workflowRE = regexp.MustCompile(`^the (?:[a-z-]+ )?workflow (?:here |we use )?(?:is|would be|should be) (?:to )?(.{8,})$`)

// workflowIs: "The workflow would be: write the .json, preview with /theme,
// …": a workflow fact, stated even behind an "i suppose".
func workflowIs(s sentence) (candidate, bool) {
	if s.question || s.words < minRuleWords || s.words > maxRuleWords || !strings.Contains(s.lower, "workflow") {
		return candidate{}, false
	}
	text := hedgeLead(s.text)
	if s.hedged && text == s.text {
		return candidate{}, false
	}
	if !workflowRE.MatchString(asciiLower(text)) {
		return candidate{}, false
	}
	return fact(RuleWorkflow, text, CategoryWorkflow)
}

// noCorrection: "no, the block should stay as is", opening the user's reply
// to the assistant: the assistant did or said otherwise, and the rest is
// the right belief. It must name what it is about ("no, dimGray should be
// that" does not).
func noCorrection(s sentence) (candidate, bool) {
	if !s.noLead || !s.statement() || leansOnContext(s.lower) {
		return candidate{}, false
	}
	if strings.Count(s.text, " ") < 2 {
		return candidate{}, false
	}
	return candidate{rule: RuleNoCorrection, body: &Correction{RightBelief: asRule(s.text)}}, true
}

var (
	proposeRE  = regexp.MustCompile(`^(?:can|could|should|shall) we (?:also |maybe |please |just |perhaps )?`)
	proposeWeR = regexp.MustCompile(`^we (?:should|need to|could|can|might want to) (?:also |maybe |just )?`)
	tagTailRE  = regexp.MustCompile(`,?\s*(?:no|right|then)?\s*\?+$`)
)

// proposal: a question of the user that proposes rather than asks: "can
// we use the same colors we use in the dark theme?", "should we remove
// apiKey and instead have users always use resolveApiKey?", "i think
// AgentSessionConfig should take a resolveApiKey?", "i think we need to use
// findModel, so we also get custom models, no?". It returns the decision
// the proposal would make; the turn rules record it only when the
// assistant's reply agrees (see agrees).
func proposal(s sentence) (candidate, bool) {
	if !s.question || s.words > maxRuleWords || !strings.Contains(s.lower, "we ") && !strings.Contains(s.lower, "should") {
		return candidate{}, false
	}
	q := s.text
	if i := strings.IndexByte(q, '?'); i >= 0 {
		q = q[:i+1]
	}
	q = strings.TrimSpace(tagTailRE.ReplaceAllString(hedgeLead(q), ""))
	l := asciiLower(q)
	for _, op := range codeOps {
		if strings.Contains(l, op) {
			return candidate{}, false
		}
	}
	what, why := rationaleCut(q)
	lw := asciiLower(what)
	for _, re := range []*regexp.Regexp{proposeRE, proposeWeR} {
		if m := re.FindString(lw); m != "" {
			rest := what[len(m):]
			if vague(asciiLower(rest)) || strings.HasPrefix(asciiLower(rest), "be ") {
				return candidate{}, false
			}
			return decision(RuleAgreed, rest, why)
		}
	}
	if loc := shouldRE.FindStringIndex(lw); loc != nil && loc[0] > 0 {
		subj := strings.Fields(clausePunct.Replace(lw[:loc[0]]))
		if len(subj) > 0 && len(subj) <= 6 && !subjectless[subj[0]] && subj[0] != "i" && subj[0] != "you" &&
			(!pronouns[subj[0]] || subj[0] == "it" && len(subj) == 1 && strings.HasPrefix(lw[loc[1]:], "be ")) {
			return decision(RuleAgreed, what, why)
		}
	}
	return candidate{}, false
}

// agreements open a reply that takes the user's proposal.
var agreements = []string{"yes", "yeah", "good idea", "great idea", "good point", "good points", "good call",
	"makes sense", "that makes sense", "you're right", "you're absolutely right", "agreed", "exactly",
	"sounds good", "that's a good idea", "that's cleaner"}

// agrees reports whether an assistant reply opens by taking the proposal.
func agrees(reply string) bool {
	l := asciiLower(strings.TrimLeft(strings.TrimSpace(reply), "*_#> "))
	for _, a := range agreements {
		if strings.HasPrefix(l, a) && (len(l) == len(a) || !isLetter(l[len(a)])) {
			return true
		}
	}
	return false
}

var (
	offerRE = regexp.MustCompile(`^(?:should i|shall i|do you want me to|want me to|would you like me to) (.{6,}?)\?*$`)
	// offerWork are verbs of an offer that concerns the session's work, not
	// the project: "Should I proceed with committing?", "Want me to run
	// the tests?".
	offerWork = map[string]bool{"proceed": true, "continue": true, "commit": true, "push": true, "run": true,
		"check": true, "move": true, "go": true, "file": true, "start": true, "keep": true, "try": true, "help": true,
		"open": true, "test": true, "verify": true, "look": true, "stop": true, "release": true, "publish": true,
		"update": true, "write": true, "document": true, "create": true, "show": true, "explain": true, "review": true,
		"read": true, "summarize": true}
	askPreferRE = regexp.MustCompile(`^(?:what|which) (?:do|would) you (?:prefer|think|like)\b|^which (?:option|one|approach|way) `)
)

// offer: the assistant's closing question offering one thing to do ("Should
// I add a new token like mdLinkUrl to the theme system so we can …?"): the
// decision it makes if the user takes it (see userTakes). An offer of
// alternatives (" or "), of the session's work (offerWork) or of something
// named only by a pronoun ("Want me to do this?") is none.
func offer(last string) (candidate, bool) {
	s := prepare(strings.TrimSpace(last))
	m := offerRE.FindStringSubmatchIndex(s.lower)
	if m == nil {
		return candidate{}, false
	}
	rest := s.text[m[2]:m[3]]
	lr := asciiLower(rest)
	if strings.Contains(lr, " or ") || offerWork[firstWord(lr)] || leansOnContext(lr) {
		return candidate{}, false
	}
	what, why := rationaleCut(rest)
	return decision(RuleAgreed, what, why)
}

// asksPreference reports whether the assistant's closing sentence asks the
// user to choose ("What do you prefer?").
func asksPreference(last string) bool {
	return askPreferRE.MatchString(asciiLower(strings.TrimSpace(last)))
}

// userTakes reports whether a user reply opens by taking what the assistant
// offered: "yes, …", "sounds good, do it", "go ahead".
func userTakes(first sentence, clean string) bool {
	if first.assent {
		return true
	}
	l := asciiLower(strings.TrimSpace(clean))
	for _, w := range []string{"sounds good", "do it", "go ahead", "please do", "ok, do it", "ok do it", "let's do it",
		"yes please", "do that"} {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	return false
}

// choice: the user's reply to "What do you prefer?" that orders one thing
// ("add the previous summary to the event data, can be undefined"): a
// decision. It must open with a verb and name what it is about.
func choice(s sentence) (candidate, bool) {
	if !s.statement() || s.noLead {
		return candidate{}, false
	}
	w := firstWord(s.lower)
	if notImperative[w] || pronouns[w] || !isWord(w) || offerWork[w] || vague(s.lower) {
		return candidate{}, false
	}
	return decision(RuleChoice, s.text, "")
}

var (
	settledRE = regexp.MustCompile(`^(?:i think )?(?:the |a )?(?:(?:best|cleanest|simplest|simpler|right|correct|better|proper) )?(?:fix|solution|approach|way)(?: here)? (?:should be|is|would be|seems to be) to (.{10,})$`)
	labelRE   = regexp.MustCompile(`^(?:\*\*)?(?:a |the )?(?:best|cleanest|clean|simplest|simpler|better) (?:fix|solution|approach)(?:\*\*)?:(?:\*\*)? (.{10,})$`)
	letMeRE   = regexp.MustCompile(`^(?i:let me (?:just )?|i'll (?:just )?)`)
	weShallRE = regexp.MustCompile(`^((?:if [^,]{4,80}, )?)we should ((?:[^ ]+ ){2,}?[^ ]+)(?: so that | so | since | because )(.{6,})$`)
	optionRE  = regexp.MustCompile(`^(?:i think )?option (\d+) (?:makes (?:more|the most) sense|is (?:the )?(?:cleanest|best|better|simplest|right))\b[ ,:;—–-]*(.*)$`)
)

// settled: the assistant settling on an approach: "The fix should be to not
// throw …", "Best solution: Add a helper method to the Theme class …", "A
// simpler approach: … filter them there instead of …", "I think option 2
// makes more sense - the heading should use toolText", "If there's no
// model, we should default thinking to off since …" (with its reason). It is a decision
// only when the reply goes on with it; a reply that ends by asking the user
// holds a proposal (see offer), and "X, or Y" weighs rather than settles.
func settled(s sentence) (candidate, bool) {
	if s.question || s.words > 2*maxRuleWords || !maySettle(s.lower) && !strings.Contains(s.lower, "fix") {
		return candidate{}, false
	}
	text := strings.ReplaceAll(s.text, "**", "")
	l := asciiLower(text)
	if strings.Contains(l, ", or ") || strings.Contains(l, " or to ") || strings.Contains(l, "either ") {
		return candidate{}, false
	}
	for _, re := range []*regexp.Regexp{settledRE, labelRE} {
		if m := re.FindStringSubmatchIndex(l); m != nil {
			what, why := rationaleCut(strings.TrimRight(text[m[2]:m[3]], " :"))
			if lw := asciiLower(what); strings.HasPrefix(lw, "since ") && strings.Contains(lw, ", ") {
				i := strings.Index(lw, ", ") // "since we already have X, let me …": the reason first
				what, why = what[i+2:], strings.TrimSpace(what[len("since "):i])
			}
			what = letMeRE.ReplaceAllString(what, "")
			if vague(asciiLower(what)) {
				return candidate{}, false
			}
			return decision(RuleSettled, what, why)
		}
	}
	if m := weShallRE.FindStringSubmatchIndex(l); m != nil {
		what := text[m[2]:m[3]] + text[m[4]:m[5]]
		if w := firstWord(l[m[4]:m[5]]); w == "probably" || w == "maybe" || vague(l[m[4]:m[5]]) {
			return candidate{}, false
		}
		return decision(RuleSettled, what, strings.TrimRight(text[m[6]:m[7]], " .!:"))
	}
	if m := optionRE.FindStringSubmatchIndex(l); m != nil {
		what := strings.TrimSpace(strings.TrimRight(text[m[4]:m[5]], " :"))
		if strings.Count(what, " ") < 2 || vague(asciiLower(what)) {
			return candidate{}, false
		}
		return decision(RuleSettled, what, "")
	}
	return candidate{}, false
}

// reconsiders reports whether an assistant sentence takes back what the
// text settled on before it ("But that's more invasive.", "Actually, …").
func reconsiders(s sentence) bool {
	switch s.opener {
	case "but", "however", "actually", "wait", "hmm", "hmm,":
		return true
	}
	return false
}

// maySettle reports whether an assistant's text can hold a sentence settled
// reads, sparing most replies the cleaning and splitting.
func maySettle(lower string) bool {
	for _, w := range []string{"fix should", "fix is", "fix would", "fix:", "fix**:", "solution", "approach", "option ", "way is",
		"way would", "way here",
		"we should"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// concessions open a reply that concedes the user's point.
var concessions = []string{"you're right", "you're absolutely right", "yeah, you're right", "right,", "good catch",
	"my mistake", "my bad", "sorry", "i apologize", "yes, it's", "yes, that's", "ah, you're right"}

// concedes reports whether an assistant reply opens by conceding.
func concedes(reply string) bool {
	l := asciiLower(strings.TrimLeft(strings.TrimSpace(reply), "*_#> "))
	for _, c := range concessions {
		if strings.HasPrefix(l, c) && (len(l) == len(c) || !isLetter(l[len(c)])) {
			return true
		}
	}
	return false
}

// conceded: a user message that states rather than asks, in which no other
// rule found anything, and that the assistant's first reply concedes ("You're
// right. The problem is …"): the user corrected the assistant, and the
// message's first statement that names what it is about is the right
// belief. When that statement is hedged ("i think our themes need explicit
// tokens …") and the reply agrees, the user proposed, and it is a decision.
func conceded(sents []sentence) (c candidate, hedged bool, ok bool) {
	for i, s := range sents {
		if i == 3 {
			break
		}
		if s.question {
			return candidate{}, false, false
		}
		text := hedgeLead(s.text)
		l := asciiLower(text)
		w := firstWord(l)
		if len(strings.Fields(text)) < 3 || s.words > maxRuleWords || pronouns[w] || referents[w] {
			continue
		}
		if s.hedged && text != s.text {
			c, ok = decision(RuleAgreed, text, "")
			return c, true, ok
		}
		if s.hedged {
			return candidate{}, false, false
		}
		return candidate{rule: RuleConceded, body: &Correction{RightBelief: asRule(text)}}, false, true
	}
	return candidate{}, false, false
}

var namingRE = regexp.MustCompile(`^(?i:call|name|rename) (?i:the |this |that |it |our )?(?:[A-Za-z0-9_./-]+ ){0,4}?(?i:to |as )?([A-Za-z0-9_-]+\.[a-z]{1,5}|[a-z]+[A-Z][A-Za-z0-9]*)(?:[ ,;.]|$)`)

// naming: "call the file custom-compaction.ts", "rename loadEntries to
// getEntries": the user names a thing of the project, a decision. The name
// must look like one (a file name or a camelCase identifier); what the
// sentence goes on to ask is cut off.
func naming(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	if w := firstWord(s.lower); w != "call" && w != "name" && w != "rename" {
		return candidate{}, false
	}
	m := namingRE.FindStringSubmatchIndex(s.text)
	if m == nil {
		return candidate{}, false
	}
	return decision(RuleNaming, s.text[:m[3]], "")
}

var undoRE = regexp.MustCompile(`^(?:you can |please |pls |just )?(?:undo|revert|roll back) (?:that|this|it|those changes|your changes|the change|what you did)\b[,.;:!]*\s*`)

// undoThat: "you can undo that, it was actually the console.logs in
// theme.ts": what the assistant did last did not work and is undone, a
// failed approach. The approach is the first sentence of the assistant's
// last text that says what it did (see didWhat), the outcome the rest of
// the user's sentence (or that it was undone).
func undoThat(s sentence, lastReply string) (candidate, bool) {
	if s.question || s.words > maxRuleWords || !strings.Contains(s.lower, "undo") && !strings.Contains(s.lower, "revert") &&
		!strings.Contains(s.lower, "roll back") {
		return candidate{}, false
	}
	loc := undoRE.FindStringIndex(s.lower)
	if loc == nil {
		return candidate{}, false
	}
	approach := didWhat(lastReply)
	if approach == "" {
		return candidate{}, false
	}
	outcome := "Undone."
	if rest := strings.TrimSpace(s.text[loc[1]:]); strings.Count(rest, " ") >= 2 {
		outcome = "Undone: " + strings.TrimRight(rest, " .!") + "."
	}
	return candidate{rule: RuleUndone, body: &FailedApproach{Approach: approach, Outcome: outcome}}, true
}

// didWhat is the first sentence of an assistant text that says what it did:
// past what only acknowledges or exclaims ("Perfect!", "Done."), a leading
// "Now " dropped; not one that announces work to come ("Let me …").
func didWhat(reply string) string {
	for i, s := range replySentences(reply) {
		if i == 4 {
			break
		}
		l := asciiLower(s)
		if ack(s) || len(strings.Fields(s)) < 4 {
			continue
		}
		if strings.HasPrefix(l, "now ") {
			s, l = asQuestion(s[len("now "):]), l[len("now "):]
		}
		if process(s) || strings.HasSuffix(l, "?") {
			continue
		}
		return clip(strings.TrimRight(s, " .!"), maxAnswerLen)
	}
	return ""
}
