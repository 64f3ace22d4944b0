package knowledge

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"rhizome/backend/summary"
)

// sentence is one sentence of a cleaned message, as the rules read it.
type sentence struct {
	text     string // fillers stripped from the front, intensifiers removed, trimmed
	lower    string // text with ASCII letters lowercased (same byte offsets)
	words    int
	question bool   // it asks (a "?" in it)
	hedged   bool   // it opens with a hedge ("i think", "maybe"): not stated as a rule
	noLead   bool   // it opened with "no," (a reply overriding a proposal)
	assent   bool   // it opened with "yes", "yeah", "yep" or "sure" (a reply taking a proposal)
	opener   string // its first word as written, lowercased, before fillers were stripped
}

// fillers are words that open a spoken sentence without adding to it; they
// are stripped from the front before the rules read it. "plase" is a typing
// slip seen in a real session.
var fillers = map[string]bool{
	"ok": true, "okay": true, "alright": true, "well": true, "so": true, "yeah": true, "yes": true,
	"yep": true, "hm": true, "hmm": true, "hmmm": true, "omfg": true, "omg": true, "dude": true,
	"please": true, "plase": true, "pls": true, "plz": true, "and": true, "also": true, "but": true,
	"then": true, "now": true, "oh": true, "ah": true, "right": true, "fine": true, "wait": true,
	"good": true, "great": true, "cool": true, "sure": true, "thanks": true, "jesus": true,
	"actually": true, "yup": true,
}

// hum reports whether a word is a hum of any length ("hm", "hmmmm").
func hum(w string) bool {
	return len(w) >= 2 && w[0] == 'h' && strings.Trim(w[1:], "m") == ""
}

// assents are the fillers that, opening a reply, take what the assistant
// offered ("yes, in old pi link url as 666666" after "Should I add a new
// token …?").
var assents = map[string]bool{"yes": true, "yeah": true, "yep": true, "yup": true, "sure": true}

// intensifiers are dropped wherever they stand: they carry temper, not
// content, and the rules are pasted into AGENTS.md.
var intensifiers = map[string]bool{
	"fucking": true, "fuckin": true, "fuckoing": true, "freaking": true, "bloody": true, "damn": true,
}

// hedges open a sentence that guesses rather than states.
var hedges = []string{"i think", "i guess", "i suppose", "i believe", "i wonder", "i doubt", "maybe",
	"probably", "perhaps", "i'd say", "i would", "not sure", "might"}

// pronouns cannot open a rule: the rule would not say what it is about.
var pronouns = map[string]bool{
	"it": true, "this": true, "that": true, "these": true, "those": true, "there": true, "you": true,
	"i": true, "he": true, "she": true, "they": true, "them": true, "which": true, "what": true,
	"who": true, "one": true, "here": true, "it's": true, "that's": true, "this'll": true,
}

// Replacers the rules use, built once (a Replacer builds its tables on
// first use: per call, that was a tenth of the extraction's time).
var (
	curlyQuotes   = strings.NewReplacer("’", "'", "‘", "'")
	clausePunct   = strings.NewReplacer(",", " ", ".", " ", "!", " ", ";", " ")
	rulePunct     = strings.NewReplacer(",", " ", ".", " ", "!", " ")
	questionPunct = strings.NewReplacer(",", " ", "?", " ")
)

// sentencesOf splits a cleaned message into sentences (summary.Sentences:
// at sentence ends and line breaks) and prepares each for the rules.
// List markers ("- ", "* ", "1. ") and slash commands are dropped.
func sentencesOf(clean string) []sentence {
	raw := summary.Sentences(clean)
	out := make([]sentence, 0, len(raw))
	for _, r := range raw {
		r = strings.TrimSpace(curlyQuotes.Replace(r))
		r = strings.TrimLeft(r, "-*•+ ")
		if strings.HasPrefix(r, "/") || r == "" {
			continue
		}
		out = append(out, prepare(r))
	}
	return out
}

// prepare strips a sentence's leading fillers and its intensifiers.
func prepare(r string) sentence {
	s := sentence{question: strings.Contains(r, "?")}
	words := strings.Fields(r)
	if len(words) > 0 {
		s.opener = strings.ToLower(strings.TrimRight(words[0], ",.!:;"))
	}
	kept := words[:0:0]
	lead := true
	for _, w := range words {
		bare := strings.ToLower(strings.TrimRight(w, ",.!:;"))
		if intensifiers[bare] {
			continue
		}
		if lead {
			if bare == "no" && strings.HasSuffix(w, ",") && len(kept) == 0 {
				s.noLead = true
				continue
			}
			if fillers[bare] || hum(bare) || bare == "my" && len(words) > 1 {
				s.assent = s.assent || assents[bare] && len(kept) == 0
				continue
			}
			lead = false
		}
		kept = append(kept, w)
	}
	s.text = strings.TrimSpace(strings.Join(kept, " "))
	s.lower = asciiLower(s.text)
	s.words = len(kept)
	for _, h := range hedges {
		if strings.HasPrefix(s.lower, h+" ") || strings.HasPrefix(s.lower, h+",") {
			s.hedged = true
		}
	}
	return s
}

// asides are the statements a sentence holds in parentheses, prepared as
// sentences: a question can state a rule in passing ("we can add …
// (messagesToSummarize must be a defensive copy when passed to
// before_compact) …?").
func asides(s sentence) []sentence {
	var out []sentence
	rest := s.text
	for {
		i := strings.IndexByte(rest, '(')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(rest[i:], ')')
		if j < 0 {
			return out
		}
		if in := strings.TrimSpace(rest[i+1 : i+j]); !strings.ContainsAny(in, "?()") && len(strings.Fields(in)) >= 4 {
			out = append(out, prepare(in))
		}
		rest = rest[i+j+1:]
	}
}

// leansOnContext reports whether a phrase names what it is about only by a
// pronoun standing for something said before ("never do that again",
// "check it first"): such a phrase is no rule on its own.
func leansOnContext(lower string) bool {
	for _, w := range strings.Fields(clausePunct.Replace(lower)) {
		if referents[w] {
			return true
		}
	}
	return false
}

// asciiLower lowercases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// firstWord is the first word of s, lowercased, without trailing punctuation.
func firstWord(lower string) string {
	w, _, _ := strings.Cut(lower, " ")
	return strings.TrimRight(w, ",.!:;")
}

// statement reports whether a sentence can state a rule: not a question,
// not hedged, of a rule's length.
func (s sentence) statement() bool {
	return !s.question && !s.hedged && s.words >= minRuleWords && s.words <= maxRuleWords
}

// asRule turns a phrase into a rule's text: the first letter capitalized,
// a trailing ellipsis or "!" made a full stop, one full stop at the end.
func asRule(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimRight(p, " .!…,;:")
	p = strings.TrimSuffix(p, " ..")
	if p == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(p)
	p = string(unicode.ToUpper(r)) + p[n:]
	if strings.HasSuffix(p, ")") || strings.HasSuffix(p, "\"") || strings.HasSuffix(p, "`") {
		return p
	}
	return p + "."
}

// normKey is the text of an item as compared for repeats.
func normKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(s, " .!?")), " "))
}

// workflowVerbs make an always/never/must rule a workflow: it says when to
// do a step of the work, not what the code may be.
var workflowVerbs = map[string]bool{
	"run": true, "commit": true, "test": true, "build": true, "push": true, "check": true, "release": true,
	"rebase": true, "merge": true, "review": true, "format": true, "lint": true, "deploy": true, "tag": true,
	"squash": true, "ask": true, "update": true, "document": true,
}

func categoryFor(verb string, dflt Category) Category {
	if workflowVerbs[verb] {
		return CategoryWorkflow
	}
	return dflt
}

func fact(rule, text string, cat Category) (candidate, bool) {
	t := asRule(text)
	if t == "" {
		return candidate{}, false
	}
	return candidate{rule: rule, body: &ProjectFact{Fact: t, Category: cat}}, true
}

// sentenceRules are tried in order on each sentence; the first that fires
// wins.
var sentenceRules = []func(sentence) (candidate, bool){
	fromNowOn, alwaysNever, dont, must, weUse, patternIs, useNot, prefer, noLets, switchFromTo, goWith,
	decided, insteadOf, didntWork, workflowIs, stopDoing, noThing, naming, weShould, npShould,
}

// fromNowOn: "From now on, run the linter before committing." The rest of
// the sentence is a standing rule: a workflow, a constraint when it forbids.
func fromNowOn(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	for _, lead := range []string{"from now on", "going forward", "in future", "in the future"} {
		if !strings.HasPrefix(s.lower, lead) {
			continue
		}
		rest := strings.TrimLeft(s.text[len(lead):], " ,:")
		lr := asciiLower(rest)
		if strings.Count(rest, " ") < 1 || leansOnContext(lr) || pronouns[firstWord(lr)] && firstWord(lr) != "we" && firstWord(lr) != "you" {
			return candidate{}, false
		}
		cat := CategoryWorkflow
		if strings.HasPrefix(lr, "never ") || strings.HasPrefix(lr, "don't ") || strings.HasPrefix(lr, "do not ") {
			cat = CategoryConstraint
		}
		return fact(RuleFromNowOn, rest, cat)
	}
	return candidate{}, false
}

// alwaysNever: "Always run the tests before committing", "Never use sync
// I/O in request handlers" (context-graph-dag.md, "Detection Enhancement").
func alwaysNever(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	w := firstWord(s.lower)
	if w != "always" && w != "never" {
		return candidate{}, false
	}
	rest := strings.Fields(s.lower)
	if len(rest) < 3 || strings.TrimRight(rest[1], ",.!") == "mind" || leansOnContext(s.lower) {
		return candidate{}, false
	}
	return fact(RuleAlwaysNever, s.text, categoryFor(strings.TrimRight(rest[1], ",.!"), CategoryConstraint))
}

// dont: a sentence that opens with "Don't …" / "Do not …" and forbids
// something ("please don't rewrite the changelog, make surgical edits"). A
// "don't" mid-sentence, or "don't we …" (a question), is not a rule.
func dont(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	var rest string
	switch {
	case strings.HasPrefix(s.lower, "don't "):
		rest = s.lower[len("don't "):]
	case strings.HasPrefix(s.lower, "do not "):
		rest = s.lower[len("do not "):]
	default:
		return candidate{}, false
	}
	f := strings.Fields(rulePunct.Replace(rest))
	if len(f) < 3 || pronouns[f[0]] || f[0] == "we" || f[0] == "worry" || f[0] == "bother" || f[0] == "know" {
		return candidate{}, false
	}
	if leansOnContext(rest) {
		return candidate{}, false // "don't change it again": what "it" is lies elsewhere
	}
	return fact(RuleDont, s.text, CategoryConstraint)
}

var mustRE = regexp.MustCompile(`\b(must(?: not| never| always)?|mustn't|should (?:never|always)|shall not)\b`)

// must: "<noun phrase> must (not|never|always) …" as a standing property of
// the project ("invalid themes must never explode"), and the clause after
// "the invariant that …". The clause's subject must be named: "it must …"
// or "that should never happen" say nothing on their own.
func must(s sentence) (candidate, bool) {
	if s.question || s.words > 2*maxRuleWords {
		return candidate{}, false
	}
	// A hedge ("i think X breaks the invariant that …") doubts the
	// complaint, not the invariant it names.
	named := strings.Contains(s.lower, "the invariant that ") || strings.Contains(s.lower, "the rule that ")
	if s.hedged && !named {
		return candidate{}, false
	}
	if !strings.Contains(s.lower, "must") && !strings.Contains(s.lower, "should never") &&
		!strings.Contains(s.lower, "should always") && !strings.Contains(s.lower, "shall not") {
		return candidate{}, false
	}
	loc := mustRE.FindStringIndex(s.lower)
	if loc == nil || strings.HasPrefix(s.lower[loc[1]:], " have been") || strings.HasPrefix(s.lower[loc[1]:], " be nice") {
		return candidate{}, false
	}
	start := 0
	for _, sep := range []string{", ", " that ", " which ", ": ", "; ", " because "} {
		if i := strings.LastIndex(s.lower[:loc[0]], sep); i >= 0 && i+len(sep) > start {
			start = i + len(sep)
		}
	}
	clause := s.text[start:]
	lc := asciiLower(clause)
	f := strings.Fields(lc)
	subject := strings.Fields(asciiLower(s.text[start:loc[0]]))
	if len(f) < 4 || len(f) > maxRuleWords || len(subject) == 0 || pronouns[subject[0]] || len(subject) > 8 {
		return candidate{}, false
	}
	if w := firstWord(lc); w == "if" || w == "when" {
		return candidate{}, false
	}
	after := strings.Fields(s.lower[loc[1]:])
	verb := ""
	if len(after) > 0 {
		verb = after[0]
	}
	return fact(RuleMust, clause, categoryFor(verb, CategoryConstraint))
}

var weUseRE = regexp.MustCompile(`^we (?:always |only )?use (.{2,80}?) (?:for|to|as) (.{2,})$`)

// weUse: "We use X for Y" (context-graph-dag.md: a tool or convention fact).
func weUse(s sentence) (candidate, bool) {
	if !s.statement() || !weUseRE.MatchString(s.lower) {
		return candidate{}, false
	}
	return fact(RuleWeUse, s.text, CategoryTool)
}

var patternRE = regexp.MustCompile(`^the (?:[a-z-]+ )?pattern (?:here |we use )?is (?:to )?(.{8,})$`)

// patternIs: "The pattern is …" (context-graph-dag.md: a pattern fact).
func patternIs(s sentence) (candidate, bool) {
	if !s.statement() || !patternRE.MatchString(s.lower) {
		return candidate{}, false
	}
	return fact(RulePattern, s.text, CategoryPattern)
}

var useNotRE = regexp.MustCompile(`^use (.{2,80}?)(?:,? not |,? no |,? instead of |,? rather than )(.{2,})$`)

// useNot: "Use X, not Y" / "use X instead of Y": a convention.
func useNot(s sentence) (candidate, bool) {
	if !s.statement() || !useNotRE.MatchString(s.lower) {
		return candidate{}, false
	}
	return fact(RuleUseNot, s.text, CategoryConvention)
}

var preferRE = regexp.MustCompile(`^(?:we |i )?(?:always )?prefer (.{2,80}?) (?:over|to|to using|instead of) (.{2,})$`)

// prefer: "We prefer X over Y": a convention.
func prefer(s sentence) (candidate, bool) {
	if !s.statement() || !preferRE.MatchString(s.lower) {
		return candidate{}, false
	}
	return fact(RulePrefer, s.text, CategoryConvention)
}

// noLets: "No, we should do a defensive copy …" / "No, let's …": the user
// overrides a proposal with a decision.
func noLets(s sentence) (candidate, bool) {
	if !s.noLead || !s.statement() {
		return candidate{}, false
	}
	for _, lead := range []string{"we should ", "let's ", "lets ", "we'll ", "we will "} {
		if strings.HasPrefix(s.lower, lead) {
			d := asRule(s.text[len(lead):])
			if strings.Count(d, " ") < 2 {
				return candidate{}, false
			}
			return candidate{rule: RuleNoLets, body: &Decision{Description: d}}, true
		}
	}
	return candidate{}, false
}

var switchRE = regexp.MustCompile(`^(?:let's |we'll |we will |we should )?(?:migrate|switch|move over)\b(.*?) from (.{2,80}?) to (.{2,})$`)

// switchFromTo: "Migrate internal/store from database/sql + lib/pq to pgx
// v5": a decision; what is left is an option considered.
func switchFromTo(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	m := switchRE.FindStringSubmatchIndex(s.lower)
	if m == nil {
		return candidate{}, false
	}
	from := strings.TrimSpace(s.text[m[4]:m[5]])
	return candidate{rule: RuleSwitch, body: &Decision{Description: asRule(s.text), OptionsConsidered: []string{from}}}, true
}

var goWithRE = regexp.MustCompile(`^(?:let's |lets |we'll |we will |we should |i'll )?go with (.{2,})$`)

// goWith: "Let's go with SQLite": a decision.
func goWith(s sentence) (candidate, bool) {
	if !s.statement() || !goWithRE.MatchString(s.lower) {
		return candidate{}, false
	}
	return candidate{rule: RuleGoWith, body: &Decision{Description: asRule(s.text)}}, true
}

var decidedRE = regexp.MustCompile(`^(?:we (?:have )?decided (?:to |that |on )|decision: )(.{4,})$`)

// decided: "We decided to keep the Store interface": a decision.
func decided(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	m := decidedRE.FindStringSubmatchIndex(s.lower)
	if m == nil {
		return candidate{}, false
	}
	return candidate{rule: RuleDecided, body: &Decision{Description: asRule(s.text[m[2]:m[3]])}}, true
}

// notImperative are first words that show a sentence is not an order: a
// subject, an article, an auxiliary or a question word.
var notImperative = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "that": true, "it": true, "i": true, "you": true,
	"they": true, "he": true, "she": true, "there": true, "is": true, "are": true, "was": true, "were": true,
	"do": true, "does": true, "did": true, "can": true, "could": true, "should": true, "would": true,
	"will": true, "what": true, "why": true, "how": true, "when": true, "where": true, "which": true,
	"who": true, "if": true, "because": true, "or": true, "our": true, "my": true, "your": true, "its": true,
	"we": true, "it's": true, "that's": true, "these": true, "those": true, "some": true, "all": true,
	"write": true, // "write a little poem instead of …" asks for a text, decides nothing
}

// insteadOf: "Document the middleware in docs/rate-limiting.md instead of
// the README" (an order choosing one option over another) or "Instead of X,
// let's Y": a decision, the option not taken as considered.
func insteadOf(s sentence) (candidate, bool) {
	if !s.statement() {
		return candidate{}, false
	}
	if strings.HasPrefix(s.lower, "instead of ") {
		rest := s.text[len("instead of "):]
		i := strings.Index(rest, ", ")
		if i < 0 {
			return candidate{}, false
		}
		alt, do := rest[:i], strings.TrimSpace(rest[i+2:])
		ld := asciiLower(do)
		for _, lead := range []string{"let's ", "lets ", "we'll ", "we will ", "we should "} {
			if strings.HasPrefix(ld, lead) {
				do, ld = do[len(lead):], ld[len(lead):]
				break
			}
		}
		if strings.Count(do, " ") < 1 || notImperative[firstWord(ld)] {
			return candidate{}, false
		}
		return candidate{rule: RuleInsteadOf, body: &Decision{Description: asRule(do), OptionsConsidered: []string{strings.TrimSpace(alt)}}}, true
	}
	i := strings.Index(s.lower, " instead of ")
	if i < 0 {
		return candidate{}, false
	}
	do, alt := s.text[:i], strings.TrimRight(s.text[i+len(" instead of "):], " .!")
	ld := asciiLower(do)
	for _, lead := range []string{"let's ", "lets ", "we'll ", "we will ", "we should "} {
		if strings.HasPrefix(ld, lead) {
			do, ld = do[len(lead):], ld[len(lead):]
		}
	}
	w := firstWord(ld)
	if notImperative[w] || strings.Count(do, " ") < 1 || strings.Contains(do, ",") || alt == "" || !isWord(w) {
		return candidate{}, false
	}
	return candidate{rule: RuleInsteadOf, body: &Decision{Description: asRule(do), OptionsConsidered: []string{alt}}}, true
}

// isWord reports whether w is a plain lowercase word (a verb, for an order).
func isWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

var wrongRE = regexp.MustCompile(`^(?:(?:that|this|it)(?:'s| is| was) (?:wrong|incorrect|not (?:true|right|correct)|not how (?:it|this|that|[a-z-]+) works|not it|not the (?:problem|issue|cause|case))|(?:you're|you are) wrong|(?:that's |this is )?not what i (?:wanted|meant|asked for))\b[.,;:!]*\s*`)

// correction: "That's wrong, X", "This is not how it works. X", "That's not
// it, X" or "Not what I wanted. X": X, a statement in the same message, is
// the right belief. Without one (or when
// the complaint is a question: "that's wrong, no?") nothing is recorded.
func correction(sents []sentence, i int) (candidate, bool) {
	s := sents[i]
	if s.question || s.hedged {
		return candidate{}, false
	}
	loc := wrongRE.FindStringIndex(s.lower)
	if loc == nil {
		return candidate{}, false
	}
	right := strings.TrimSpace(s.text[loc[1]:])
	if right == "" && i+1 < len(sents) {
		n := sents[i+1]
		if n.question || n.hedged || n.words < minRuleWords || n.words > maxRuleWords || !notImperative[firstWord(n.lower)] && !startsWithNoun(n.lower) {
			return candidate{}, false
		}
		right = n.text
	}
	if strings.Count(right, " ") < 2 {
		return candidate{}, false
	}
	return candidate{rule: RuleThatWasWrong, body: &Correction{RightBelief: asRule(right)}}, true
}

// startsWithNoun is a weak test that a sentence states rather than orders:
// its first word is not a bare verb we know (it has a digit, a dot or a
// capital, or is a file or code name).
func startsWithNoun(lower string) bool {
	w := firstWord(lower)
	return strings.ContainsAny(w, "._/0123456789")
}

// questionWords open a question asking for information (not a request: "can
// you …", "could we …" ask for work).
var questionWords = map[string]bool{
	"what": true, "what's": true, "why": true, "how": true, "where": true, "when": true, "who": true, "does": true, "do": true, "is": true, "are": true, "did": true, "was": true, "were": true,
	"has": true, "have": true, "don't": true, "doesn't": true, "isn't": true, "any": true,
}

// referents make a question lean on what came before ("does it capture …",
// "is that how …"): unreadable as a record on its own.
var referents = map[string]bool{
	"it": true, "this": true, "that": true, "these": true, "those": true, "they": true, "them": true,
	"he": true, "she": true, "its": true, "it's": true, "that's": true,
}

// askedQuestion is a question the user asked, as userQuestion reads it.
type askedQuestion struct {
	text string // the question as recorded
	// leans: it leans on what came before (a pronoun, a lead-in, fewer
	// than minQuestWords words) or asks to confirm a statement. Such a
	// question is kept only when the assistant answers it: the answer says
	// what it is about.
	leans bool
	tag   bool // it asks to confirm a statement ("…, right?", "… it seems?"): "You're right" answers it
}

var wonderRE = regexp.MustCompile(`^i (?:wonder|am wondering|'m wondering) ((?:why|whether|if|how|what|where|when) .+)$`)

// codeOps mark a "question" that is code (a condition pasted with "no?").
var codeOps = []string{"&&", "||", "==", "=>", "{", "}"}

// tagEnds close a statement the user asks the assistant to confirm.
var tagEnds = []string{" right", " no", " correct", " it seems", " do we", " don't we", " isn't it", " aren't we",
	" doesn't it", " is it"}

// userQuestion: a question the user asked for information: opening with a
// question word (after a lead-in such as "hooks, do they …?"), or a
// statement with a tag asking to confirm it ("… is a bad name, no?"); not a
// request of the assistant ("do you …", "can you …"), not hedged, not code,
// of at least three words. A question that leans on context is marked so
// (see askedQuestion.leans).
func userQuestion(s sentence) (askedQuestion, bool) {
	if s.words > maxRuleWords {
		return askedQuestion{}, false
	}
	if m := wonderRE.FindStringSubmatchIndex(s.lower); m != nil && !s.question {
		// "i wonder why that's not a method on SessionManager": asked, but
		// it leans on the answer to say what it is about.
		q := strings.TrimRight(s.text[m[2]:], " .!") + "?"
		if len(strings.Fields(q)) < 4 {
			return askedQuestion{}, false
		}
		return askedQuestion{text: asQuestion(q), leans: true}, true
	}
	if s.hedged || !s.question {
		return askedQuestion{}, false
	}
	q := s.text
	if i := strings.IndexByte(q, '?'); i >= 0 {
		q = q[:i+1]
	}
	for _, op := range codeOps {
		if strings.Contains(q, op) {
			return askedQuestion{}, false
		}
	}
	var aq askedQuestion
	lq := asciiLower(q)
	f := strings.Fields(questionPunct.Replace(lq))
	if len(f) == 0 {
		return askedQuestion{}, false
	}
	if !questionWords[f[0]] {
		if i := strings.Index(q, ", "); i > 0 {
			rest := q[i+2:]
			if fr := strings.Fields(questionPunct.Replace(asciiLower(rest))); len(fr) > 0 && questionWords[fr[0]] {
				q, f, aq.leans = rest, fr, true
			}
		}
	}
	if !questionWords[f[0]] {
		end := strings.TrimRight(lq, "?!. ")
		for _, t := range tagEnds {
			aq.tag = aq.tag || strings.HasSuffix(end, t)
		}
		if !aq.tag {
			return askedQuestion{}, false
		}
		aq.leans = true
	}
	if !aq.tag && (f[0] == "any" && (len(f) < 2 || f[1] != "idea") || f[0] == "what" && len(f) > 1 && f[1] == "about") {
		return askedQuestion{}, false // "what about X?" proposes, it does not ask
	}
	for i, w := range f {
		if referents[w] {
			aq.leans = true
		}
		if w == "you" && i <= 2 { // "do you know", "what do you think", "are you …"
			return askedQuestion{}, false
		}
	}
	if len(f) < 3 {
		return askedQuestion{}, false
	}
	if len(f) < minQuestWords {
		aq.leans = true
	}
	aq.text = asQuestion(q)
	return aq, true
}

// asQuestion capitalizes a question's first letter.
func asQuestion(q string) string {
	r, n := utf8.DecodeRuneInString(q)
	return string(unicode.ToUpper(r)) + q[n:]
}

// questionContext is the rest of the message a question was asked in.
func questionContext(sents []sentence, question string) string {
	var parts []string
	stem := asciiLower(strings.TrimSuffix(question, "?"))
	for _, s := range sents {
		if !strings.HasPrefix(asciiLower(s.text), stem) {
			parts = append(parts, s.text)
		}
	}
	return clip(strings.Join(parts, " "), maxContextLen)
}

// yesNo reports whether a question asks yes or no (its first word is an
// auxiliary, not a question word).
func yesNo(q string) bool {
	switch firstWord(asciiLower(q)) {
	case "what", "what's", "why", "how", "where", "when", "who", "any":
		return false
	}
	return true
}

// processOpeners open an assistant sentence that reports work rather than
// answers ("Let me check:", "Done!", "You're right, …").
var processOpeners = []string{"let me", "let's", "i'll", "i will", "i need", "i see", "wait", "looking at",
	"now ", "done", "perfect", "great", "good question", "good,", "you're right", "ok", "okay", "alright",
	"hmm", "first,", "checking", "added", "fixed", "updated", "here's", "sure"}

// process reports whether an assistant sentence reports work (see
// processOpeners) or leads into something it shows (ends with ":").
func process(s string) bool {
	l := asciiLower(strings.TrimSpace(s))
	if strings.HasSuffix(l, ":") {
		return true
	}
	for _, p := range processOpeners {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// acks are assistant sentences that only acknowledge what the user said
// ("Good question!", "I see.", "You're right."): an answer may follow them.
var acks = map[string]bool{"good question": true, "good catch": true, "good point": true, "i see": true,
	"you're right": true, "you're absolutely right": true, "right": true, "ah": true, "aha": true,
	"interesting": true, "you're right to question that": true, "you're right to question this": true}

// ack reports whether an assistant sentence only acknowledges.
func ack(s string) bool {
	return acks[strings.TrimRight(asciiLower(strings.TrimSpace(s)), ".!,")]
}

// replySentences are the prose sentences of an assistant reply (after
// summary.CleanUserText strips code and pastes).
func replySentences(reply string) []string {
	var out []string
	for _, s := range summary.Sentences(summary.CleanUserText(reply)) {
		if s = strings.TrimSpace(strings.TrimLeft(s, "-*• ")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// leadIns open an assistant sentence with how it got to what it says
// ("Looking at it, X", "OK, so X"): X is what it says.
var leadInRE = regexp.MustCompile(`^(?i:(?:looking at [^,:]{1,60}|ok|okay|so),(?: so)? |so )`)

// directAnswer is the answer a reply (its replySentences) gives straight
// away: after what only acknowledges the question ("Good question!"), its
// first sentence and the next unless that one reports work; "" when the
// first reports work. A lead-in ("Looking at it, …", "OK, so …") is
// dropped from the first.
func directAnswer(sents []string) string {
	sents = slices.Clone(sents)
	for len(sents) > 0 && ack(sents[0]) {
		sents = sents[1:]
	}
	if len(sents) > 0 {
		if m := leadInRE.FindString(sents[0]); m != "" && len(sents[0]) > len(m)+8 {
			sents[0] = sents[0][len(m):]
			if w, _, _ := strings.Cut(sents[0], " "); w == asciiLower(w) && isWord(strings.TrimRight(w, ",.:;")) {
				sents[0] = asQuestion(sents[0]) // a word, not a code name: capitalized
			}
		}
	}
	var parts []string
	for i, s := range sents {
		if i == 2 || process(s) {
			break
		}
		parts = append(parts, s)
	}
	return clip(strings.Join(parts, " "), maxAnswerLen)
}

// yesOpeners open a reply that answers yes or no; tagOpeners, besides
// them, one that confirms a statement the user asked about ("You're right.").
var (
	yesOpeners = []string{"yes", "no", "yeah", "yep", "nope"}
	tagOpeners = []string{"yes", "no", "yeah", "yep", "nope", "you're right", "you're absolutely right", "right",
		"exactly", "correct", "not quite"}
)

// yesNoAnswer is the answer of a reply (its replySentences) that opens
// with one of openers ("Yes", "No", …): its sentences up to the first that
// reports work (at most two); "" when the reply opens otherwise.
func yesNoAnswer(sents []string, openers []string) string {
	if len(sents) == 0 {
		return ""
	}
	first := asciiLower(sents[0])
	opens := false
	for _, o := range openers {
		if first == o || strings.HasPrefix(first, o) && !isLetter(first[len(o)]) {
			opens = true
		}
	}
	if !opens {
		return ""
	}
	var parts []string
	for i, s := range sents {
		if i == 2 || i > 0 && process(s) {
			break
		}
		parts = append(parts, s)
	}
	return clip(strings.Join(parts, " "), maxAnswerLen)
}

// stopwords are words too common to tie an answer to its question.
var stopwords = map[string]bool{"that": true, "this": true, "with": true, "from": true, "have": true, "what": true,
	"when": true, "where": true, "which": true, "does": true, "will": true, "would": true, "should": true,
	"could": true, "there": true, "their": true, "about": true, "into": true, "only": true, "just": true,
	"also": true, "been": true, "were": true, "they": true, "them": true, "then": true, "than": true, "your": true,
	"maybe": true, "some": true, "something": true, "doing": true, "these": true, "those": true, "it's": true,
	"that's": true, "here": true, "very": true, "really": true, "like": true, "need": true, "know": true,
	"think": true, "make": true}

// contentWords are the words of s that can tie an answer to a question:
// four letters or more, not stopwords, lowercased.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(asciiLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r == '_' || r >= 0x80)
	}) {
		if len(w) >= 4 && !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// relevant reports whether an answer shares a content word with what was
// asked (the same word, or the same first five letters): an answer taken
// from further into the turn, or for a question it does not open by
// answering, must be about it ("Is Theme.fg/bg doing something stupid?" is
// not answered by "It's not exported.").
func relevant(answer, asked string) bool {
	words := contentWords(asked)
	for _, a := range contentWords(answer) {
		for _, q := range words {
			if a == q || len(a) >= 5 && len(q) >= 5 && a[:5] == q[:5] {
				return true
			}
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'' }

// clip cuts s to at most n bytes at a word boundary, marking the cut with
// "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

var didntWorkRE = regexp.MustCompile(`^((?:the |my |our |your )?[^ ]+(?: [^ ]+){0,6}?) (?:didn't|did not|doesn't|does not|won't|failed to) work(?: properly)? ((?:because|since|as|due to) .{6,})$`)

// tellsFailure reports whether a lowercased sentence holds a negation
// didntWork reads, sparing the others its regular expressions.
func tellsFailure(lower string) bool {
	for _, neg := range []string{"didn't", "did not", "doesn't", "does not", "won't", "failed to"} {
		if strings.Contains(lower, neg) {
			return true
		}
	}
	return false
}

var didntCatchRE = regexp.MustCompile(`^((?:the |my |our |your )?[^ ]+(?: [^ ]+){0,6}?) (?:didn't|did not|failed to) (?:catch|match|handle|fix|cover|pick up|replace|apply to) (.{6,})$`)

// didntWork: "The sed command didn't work because of the multiline
// format", "The regex didn't catch multiline constructions": a failed
// approach, the reason (or what it missed) its outcome. The subject must
// name the approach (not "it" or "that"), and what it missed must be named.
func didntWork(s sentence) (candidate, bool) {
	if s.question || s.words > maxRuleWords || !tellsFailure(s.lower) {
		return candidate{}, false
	}
	m := didntWorkRE.FindStringSubmatchIndex(s.lower)
	outcome := ""
	if m != nil {
		outcome = asRule("didn't work " + s.text[m[4]:m[5]])
	} else if m = didntCatchRE.FindStringSubmatchIndex(s.lower); m != nil && !leansOnContext(s.lower[m[4]:m[5]]) {
		outcome = asRule(s.text[m[3]+1:])
		if strings.HasPrefix(outcome, "Did not") {
			outcome = "Didn't" + outcome[len("Did not"):]
		}
	} else {
		return candidate{}, false
	}
	subj := strings.Fields(s.lower[m[2]:m[3]])
	head := subj[0]
	if (head == "the" || head == "my" || head == "our" || head == "your") && len(subj) > 1 {
		head = subj[1]
	}
	if pronouns[head] || head == "we" || head == "still" || head == "now" {
		return candidate{}, false
	}
	approach := asQuestion(strings.TrimSpace(s.text[m[2]:m[3]]))
	return candidate{rule: RuleDidntWork, body: &FailedApproach{Approach: approach, Outcome: outcome}}, true
}
