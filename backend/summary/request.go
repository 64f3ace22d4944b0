package summary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// request is a user request as the summarizer keeps it: the sentence that
// best says what the user wanted, and that sentence rewritten as a phrase
// for labels and titles.
type request struct {
	// phrase is the chosen sentence with its openers ("ok, so", "can you",
	// "we need to") removed and its swearing toned down: an imperative when
	// the user asked for something ("Port user-message-selector.ts to …").
	phrase string
	// text is the whole message, cleaned (CleanUserText) and cut to
	// maxPromptRequestRunes: what a model reads.
	text string
	// score ranks requests: see rewriteRequest.
	score int
	// verb says phrase starts with a verb of verbs; look, with one that
	// asks to look, ask or think (lookVerbs): its answer is its outcome.
	verb, look bool
}

// Bounds of a kept request: its phrase, and the text a prompt quotes.
const (
	maxRequestRunes       = 400
	maxPromptRequestRunes = 600
)

// minRequestRunes is the length under which a user message is steering
// ("ok", "yes", "go on"), not a request.
const minRequestRunes = 8

// steering are user messages that carry no task of their own: they steer a
// conversation under way (lowercase, end punctuation removed).
var steering = map[string]bool{
	"ok": true, "okay": true, "k": true, "yes": true, "y": true, "yep": true, "yeah": true, "no": true,
	"nope": true, "sure": true, "continue": true, "go on": true, "go": true, "go ahead": true,
	"do it": true, "proceed": true, "thanks": true, "thank you": true, "thx": true, "stop": true,
	"still there": true, "are you there": true, "hello": true, "hi": true, "test": true, "retry": true,
	"try again": true, "again": true, "next": true, "done": true, "good": true, "great": true,
	"perfect": true, "nice": true, "cool": true, "lgtm": true, "looks good": true, "yes please": true,
	"sounds good": true, "sounds good, do it": true, "yeah, do it all": true, "do it all": true,
	"ok do it": true, "ok, do it": true, "yes, do it": true, "please continue": true, "keep going": true,
	"sleep": true, "wait": true, "hm": true, "hmm": true, "ok, continue": true, "sounds good, go": true,
}

// isSlashCommand reports whether a user message is a pi slash command such
// as "/mode" or "/theme dark": its first word starts with "/" and has no
// other "/" (a pasted path is not a command).
func isSlashCommand(s string) bool {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(s, "/") {
		return false
	}
	w := firstWord(s)
	return !strings.Contains(w[1:], "/")
}

// isSteering reports whether a cleaned user message carries no task.
func isSteering(s string) bool {
	l := strings.TrimRight(strings.ToLower(collapseSpace(s)), " .!?,")
	return utf8.RuneCountInString(l) < minRequestRunes || steering[l]
}

// parseRequest reads the raw text of a user message and returns its best
// request sentence, or false when the message is a slash command, steering,
// or nothing but paste.
func parseRequest(raw string) (request, bool) {
	if isSlashCommand(raw) {
		return request{}, false
	}
	clean := CleanUserText(raw)
	if clean == "" || isSteering(clean) {
		return request{}, false
	}
	best, bestScore := request{}, -100
	for i, s := range Sentences(clean) {
		r := rewriteRequest(s)
		if r.phrase == "" {
			continue
		}
		// Earlier sentences win ties; a later one must say more.
		if r.score > bestScore || r.score == bestScore && i == 0 {
			best, bestScore = r, r.score
		}
	}
	if best.phrase == "" || isSteering(best.phrase) {
		return request{}, false
	}
	best.text = clipRunes(collapseSpace(clean), maxPromptRequestRunes)
	return best, true
}

// Openers: words that start a request without saying anything, and phrases
// that wrap the request in a question or a wish ("can you", "we need to").
var (
	interjection = regexp.MustCompile(`(?i)^(ok(ay)?|alright|all right|right|so|well|h+m+|ah+|oh+|yes|yeah|yep|now|also|and|then|great|good|nice|cool|perfect|awesome|sure|dude|my dude|man|please|pls|plz|actually|btw|first|next|finally|lastly|anyway|fine|thanks|thank you|uh+|um+|wait|hey|hi|hello|ugh|lol|wow|but|or)\b[,.!:;]*\s+`)
	hedge        = regexp.MustCompile(`(?i)^(i think|i guess|i suppose|i believe|i feel like|maybe|perhaps|probably|ideally|honestly|basically)\b,?\s+`)
	modal        = regexp.MustCompile(`(?i)^((can|could|would|will|should|shall)\s+(you|we|i)|(we|you|i)\s+(still\s+|also\s+|now\s+|then\s+|really\s+)?(need to|should|must|have to|gotta|got to|want to|wanna|could|can|might want to|ought to)|let'?s|let us|i'?d like( you)? to|i would like( you)? to|i want( you)? to|i need( you)? to|help me|go ahead and|make sure( to| that)?|try to|would you mind|do you mind|it would( also)? be (nice|good|great|cool|better)( if you could| if we could| to)?|it'?d( also)? be (nice|good|great|cool|better)( if you could| if we could| to)?)\b[,]?\s+((please|also|probably|maybe|just|now|then|first|still)\s+)*`)
	howTo        = regexp.MustCompile(`(?i)^(do you know|do you remember|can you tell me|could you tell me|tell me)\s+(how|what|why|where|when|whether|if)\b`)
	swearIntens  = regexp.MustCompile(`(?i)\b(the\s+)?(fucking|fuckin|fucken|freaking|friggin|goddamn|damn|bloody|fuckoing|fkn)\b\s*`)
	swearNoun    = regexp.MustCompile(`(?i)\bshit\b`)
	tagQuestion  = regexp.MustCompile(`(?i),\s*(no|right|ok|okay|yes|yeah|eh|correct|isn't it|don't you think)\s*\?+\s*$`)
	reference    = regexp.MustCompile(`(?i)^(issue|pr|discussion) #\d+$`)
	deictic      = regexp.MustCompile(`(?i)^\w+( \w+)?\s+(this|that|these|those|it|them)\b( (one|two|stuff|thing|things|file|files))?\s*[.!?]*$|^\w+( \w+)? (this|these|those|it|them)( (one|two|three))?\b`)
	swearAny     = regexp.MustCompile(`(?i)(fuck|shit|stupid|idiot|wtf|omfg|jesus|crap|dumb|moron)`)
)

// Words one of which a sentence must hold, in any case, for the swearing
// expressions to match it: most sentences hold none, and a test for them is
// much cheaper than the expressions (TestSwearWordsPrefilter).
var (
	swearAnyWords    = []string{"fuck", "shit", "stupid", "idiot", "wtf", "omfg", "jesus", "crap", "dumb", "moron"}
	swearIntensWords = []string{"fuck", "freaking", "friggin", "damn", "bloody", "fkn"}
	swearNounWords   = []string{"shit"}
)

// mayContain reports whether s may hold one of words (lower-case ASCII) in
// any case: true when it does, or when s is not all ASCII (case folding
// then matches letters outside ASCII: the Kelvin sign is a k).
func mayContain(s string, words []string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	l := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// rewriteRequest turns one sentence of a user message into a request: the
// phrase and its score.
func rewriteRequest(s string) request {
	// Only the start of a long sentence can become a phrase: the regular
	// expressions below need not read the rest.
	s = strings.TrimSpace(capBytes(s, 4*maxRequestRunes))
	profane := mayContain(s, swearAnyWords) && swearAny.MatchString(s)
	hadModal := false
	for range 6 {
		before := s
		s = interjection.ReplaceAllString(s, "")
		s = hedge.ReplaceAllString(s, "")
		if m := modal.FindString(s); m != "" {
			s = s[len(m):]
			hadModal = true
		}
		if m := howTo.FindStringSubmatchIndex(s); m != nil {
			s = s[m[4]:] // "do you know how to x" -> "how to x"
		}
		if s == before {
			break
		}
	}
	s = tagQuestion.ReplaceAllString(s, "?")
	if mayContain(s, swearIntensWords) {
		s = swearIntens.ReplaceAllString(s, "")
	}
	if mayContain(s, swearNounWords) {
		s = swearNoun.ReplaceAllString(s, "stuff")
	}
	s = strings.TrimLeft(s, " ,;:-—–")
	s = collapseSpace(s)
	if s == "" {
		return request{}
	}
	question := strings.HasSuffix(s, "?")
	if hadModal {
		// "can you add X?" asks for X: the phrase is an imperative.
		s = strings.TrimRight(s, "?")
	}
	s = strings.TrimRight(cutRunOn(s), " .!,;:")
	s = cutRunes(s, maxRequestRunes)
	w := strings.ToLower(strings.Trim(firstWord(s), ",.:;!?"))
	r := request{phrase: capitalize(s)}
	switch {
	case actionVerbs[w]:
		r.score, r.verb = 3, true
	case lookVerbs[w]:
		r.score, r.verb, r.look = 2, true, true
	case question || questionWords[w]:
		r.score = 1
	}
	if hadModal {
		r.score++
	}
	n := wordCount(s)
	switch {
	case reference.MatchString(s):
		r.score = 2 // "issue #288": the task is what the issue says
	case n < 3:
		r.score -= 2
	case n > 40:
		r.score--
	}
	if deictic.MatchString(s) {
		r.score -= 2 // "kill this", "make those two also use …": the object is elsewhere
	}
	if profane {
		r.score -= 2
	}
	if recap.MatchString(s) || recapQuestion.MatchString(s) {
		// "summarise everything we did so far": a request about the
		// conversation (often the last before a compaction), not a task.
		r.score, r.verb = -1, false
	}
	return r
}

// recap and recapQuestion match a request to sum up the conversation
// itself ("summarise everything we did so far", "what have we done?").
var (
	recap         = regexp.MustCompile(`(?i)^(summari[sz]e|recap|sum up|write up|go over|give me (a |an )?(summary|recap|overview) of)\b.*\b(so far|we('ve| have)? (did|done|discussed|talked about|changed)|you('ve| have)? (did|done|changed)|(this|our) (session|conversation|chat|discussion)|the (conversation|chat|discussion)|our (work|progress))\b`)
	recapQuestion = regexp.MustCompile(`(?i)^(what|tell me|list)\b.*\b(so far|(we|you)('ve| have)? (did|done|changed))\b`)
)

// runOnSubjects start a new clause when they follow a word without a
// conjunction: "create a custom light theme i'll edit it in code".
var runOnSubjects = wordSet(`i i'll i'd i'm i've we we'll we'd we're`)

// cutRunOn ends a request at a run-on clause: a subject pronoun (see
// runOnSubjects) after the third word that no conjunction or relative word
// introduces.
func cutRunOn(s string) string {
	words := strings.Fields(s)
	for i := 3; i < len(words); i++ {
		w := strings.ToLower(words[i])
		prev := strings.ToLower(strings.TrimRight(words[i-1], ",;:"))
		if runOnSubjects[w] && !breakWords[prev] && !clauseOpeners[prev] && !strings.HasSuffix(words[i-1], ",") {
			return strings.Join(words[:i], " ")
		}
	}
	return s
}

// actionVerbs are the verbs of requests that change something.
var actionVerbs = wordSet(`add fix make create update remove write port change implement refactor rename move
run commit push release publish delete use adjust improve clean build set copy kill convert replace
support modify document merge install configure migrate rewrite generate extract split wire hook expose bump
tag revert undo restore deploy integrate enable disable allow prevent handle ensure put display hide drop
simplify optimize optimise speed reduce increase format lint upgrade downgrade pass return load save export
import parse render draw style align center centre resize shorten expand standardize standardise unify
consolidate inline introduce deprecate mention reference link describe summarize summarise translate close
comment reply respond answer draft plan design propose outline sketch brainstorm edit append insert prepend
switch split rework restructure reorganize reorganise tighten bundle package ship patch upload download fetch
send post keep give turn start stop pin unpin cache store persist delete kill start get bring wrap unwrap
mark flag sort filter group limit cap bound validate sanitize sanitise escape encode decode serialize test
benchmark profile measure print log emit`)

// lookVerbs are the verbs of requests that look, ask or think.
var lookVerbs = wordSet(`read look check investigate review explain find search analyze analyse inspect compare
verify tell show figure debug trace see try think consider evaluate study explore understand diagnose audit
open list count ask`)

// questionWords open questions ("what does X do", "is this true").
var questionWords = wordSet(`what why how where which who when whether is are does do did can could would should`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
