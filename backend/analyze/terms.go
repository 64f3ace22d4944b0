package analyze

import (
	"path"
	"slices"
	"strings"
)

// maxWordBytes is the longest word the analyzer counts; longer ones are ids,
// hashes or base64, not words.
const maxWordBytes = 32

// forEachWord calls fn with every word of s lowercased: a word is a run of
// ASCII letters and digits (other bytes separate words). The word passed to fn
// lives in buf: fn must copy it to keep it. Words longer than maxWordBytes
// are skipped.
func forEachWord(s string, buf *[maxWordBytes]byte, fn func(w []byte)) {
	n, long := 0, false
	for i := 0; i <= len(s); i++ {
		var c byte
		if i < len(s) {
			c = s[i]
		}
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		default:
			if n > 0 && !long {
				fn(buf[:n])
			}
			n, long = 0, false
			continue
		}
		if n == maxWordBytes {
			long = true
			continue
		}
		buf[n] = c
		n++
	}
}

// forEachProseWord calls fn with the words of the prose of s (see
// forEachWord), leaving out the white-space separated tokens that are paths,
// URLs, file names or identifiers: tokens holding "/", "\\", "@", "=", "_",
// or a "." followed by a letter or digit ("theme.ts", "foo.bar()"). Their
// words are noise as tags (users, workspaces, src); touched files give tags
// through their names instead.
func forEachProseWord(s string, fn func(w []byte)) {
	var buf [maxWordBytes]byte
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		if tok := s[i:j]; tok != "" && !pathLike(tok) {
			forEachWord(tok, &buf, fn)
		}
		i = j
	}
}

// pathLike reports whether a token is a path, URL, file name or identifier
// (see forEachProseWord).
func pathLike(tok string) bool {
	if strings.ContainsAny(tok, "/\\@=_") {
		return true
	}
	for k := 0; k+1 < len(tok); k++ {
		if tok[k] == '.' && isAlnum(tok[k+1]) {
			return true
		}
	}
	return false
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// wordClass flags what a word of a user request says about the work.
type wordClass uint8

const (
	wDebug      wordClass = 1 << iota // fix, bug, error, crash, ...
	wRefactor                         // refactor, rename, restructure, ...
	wQA                               // test, review, verify, ...
	wPlan                             // plan, design, architecture, ...
	wBrainstorm                       // brainstorm, ideas, ...
	wData                             // csv, dataset, pandas, ...
)

// keywordClasses are the words of user requests that the classifier counts.
// Past tenses that report work done ("fixed", "tested") are left out: "fixed
// in the next release" is not a request to fix.
var keywordClasses = map[string]wordClass{
	"fix": wDebug, "fixing": wDebug, "bug": wDebug, "bugs": wDebug,
	"buggy": wDebug, "broken": wDebug, "crash": wDebug, "crashes": wDebug, "crashed": wDebug,
	"crashing": wDebug, "error": wDebug, "errors": wDebug, "fails": wDebug, "failing": wDebug,
	"failure": wDebug, "exception": wDebug, "panic": wDebug, "regression": wDebug, "debug": wDebug,
	"debugging": wDebug, "exploded": wDebug, "wrong": wDebug, "doesn": wDebug, "broke": wDebug,

	"refactor": wRefactor, "refactoring": wRefactor, "refactored": wRefactor, "rename": wRefactor,
	"renamed": wRefactor, "renaming": wRefactor, "restructure": wRefactor, "restructuring": wRefactor,
	"cleanup": wRefactor, "reorganize": wRefactor, "reorganise": wRefactor, "simplify": wRefactor,
	"untangle": wRefactor, "dedupe": wRefactor, "deduplicate": wRefactor, "consolidate": wRefactor,

	"test": wQA, "tests": wQA, "testing": wQA, "review": wQA, "reviewing": wQA, "verify": wQA,
	"qa": wQA, "coverage": wQA, "audit": wQA,

	"plan": wPlan, "planning": wPlan, "design": wPlan, "architecture": wPlan, "architect": wPlan,
	"approach": wPlan, "proposal": wPlan, "roadmap": wPlan, "strategy": wPlan, "rfc": wPlan,
	"tradeoffs": wPlan,

	"brainstorm": wBrainstorm, "brainstorming": wBrainstorm, "ideas": wBrainstorm,

	"csv": wData, "dataset": wData, "datasets": wData, "pandas": wData, "dataframe": wData,
	"spreadsheet": wData, "sql": wData, "statistics": wData, "etl": wData,
}

// stopwords are words never used as tags: English function words, chat
// filler and profanity, and words every coding session uses (file, code,
// change, ...). Words of one or two letters and numbers are dropped anyway.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
the and for are but not you your yours all any can had her was one our out day get has him his how man
new now old see two way who boy did its let put say she too use that this with from they will would
there their what about which when make like time just know take into year good some could them than
then look only come over think also back after work first well even want because these give most
should here where shall been being were does done doing have having into onto upon more much many
such very same other each every both few own while again further once only just than too also still
yet ever never always sometimes maybe perhaps please thanks thank okay yes yeah yep nope sure right
ok hey hi hello dude man guys folks lol hmm hmmm well alright actually really basically probably
something anything nothing everything someone anyone thing things stuff kind sort lot lots bit little
need needs needed use used using uses make makes made making add adds added adding create created
creating update updated updating change changes changed changing fix fixed fixes fixing file files
code codes line lines write wrote written writing read reading run running runs ran try tried trying
check checked checking look looks looking looked seem seems seemed show shows shown showing tell
told let lets going gonna wanna got gets getting put puts set sets help keep keeps kept call called
calls calling find found finds start started stop stopped open opened close closed remove removed
delete deleted move moved copy copied same different instead without within between through during
before above below under again via per etc don doesn didn isn aren wasn weren won wouldn shouldn
couldn can't cant ive youre theyre thats whats lets its im id ill youll well weve theyll shit fuck
fucking fucked fuckoing damn hell crap wtf omfg omg jesus god bloody stupid idiot sucks suck
good great nice cool fine better best bad worse worst new old big small first last next previous
also now then here there today tomorrow yesterday way ways part parts place point points case cases
example examples index types type main src lib dist utils util mod package packages json https
http www com org github npm node tsx true false null undefined const let var function return import
export default async await class interface string number boolean void`) {
		m[w] = true
	}
	return m
}()

// topicKeywords map a word of the user's requests or of a touched file's
// name to a broader topic. A topic is reported only when at least one of its
// words was seen (see topics).
var topicKeywords = map[string]string{
	"sqlite": "database", "sqlite3": "database", "postgres": "database", "postgresql": "database",
	"mysql": "database", "sql": "database", "database": "database", "databases": "database",
	"db": "database", "migration": "database", "migrations": "database", "schema": "database",
	"mongodb": "database", "redis": "database", "duckdb": "database",

	"jwt": "authentication", "oauth": "authentication", "auth": "authentication",
	"authentication": "authentication", "login": "authentication", "logout": "authentication",
	"password": "authentication", "apikey": "authentication", "apikeys": "authentication",
	"credentials": "authentication", "sso": "authentication",

	"test": "testing", "tests": "testing", "testing": "testing", "vitest": "testing", "jest": "testing",
	"pytest": "testing", "e2e": "testing", "coverage": "testing", "tdd": "testing",

	"theme": "user interface", "themes": "user interface", "color": "user interface",
	"colors": "user interface", "colour": "user interface", "colours": "user interface",
	"css": "user interface", "styling": "user interface", "ui": "user interface", "tui": "user interface",
	"layout": "user interface", "render": "user interface", "rendering": "user interface",
	"component": "user interface", "components": "user interface", "font": "user interface",
	"selector": "user interface", "editor": "user interface",

	"docs": "documentation", "documentation": "documentation", "readme": "documentation",
	"changelog": "documentation",

	"release": "release management", "publish": "release management", "semver": "release management",

	"git": "version control", "commit": "version control", "merge": "version control",
	"rebase": "version control", "branch": "version control",

	"deploy": "deployment", "deployment": "deployment", "docker": "deployment", "kubernetes": "deployment",
	"k8s": "deployment", "ci": "deployment", "pipeline": "deployment",

	"performance": "performance", "perf": "performance", "slow": "performance", "optimize": "performance",
	"optimise": "performance", "benchmark": "performance", "latency": "performance",
	"profiling": "performance",

	"cache": "caching", "caching": "caching",

	"api": "api", "endpoint": "api", "endpoints": "api", "http": "api", "rest": "api", "graphql": "api",
	"grpc": "api", "websocket": "api",

	"concurrency": "concurrency", "goroutine": "concurrency", "goroutines": "concurrency",
	"async": "concurrency", "mutex": "concurrency", "race": "concurrency", "threads": "concurrency",

	"config": "configuration", "configuration": "configuration", "settings": "configuration",

	"cli": "command line", "terminal": "command line",

	"security": "security", "vulnerability": "security", "xss": "security", "csrf": "security",
	"sanitize": "security", "encryption": "security",

	"llm": "llm", "prompt": "llm", "prompts": "llm", "openai": "llm", "anthropic": "llm",
	"claude": "llm", "gemini": "llm", "gpt": "llm",

	"compaction": "context management", "compact": "context management",

	"hook": "extensibility", "hooks": "extensibility", "plugin": "extensibility",
	"plugins": "extensibility", "extension": "extensibility", "extensions": "extensibility",
	"skill": "extensibility", "skills": "extensibility",

	"search": "search", "fts": "search",

	"csv": "data analysis", "dataframe": "data analysis", "pandas": "data analysis",
	"statistics": "data analysis", "chart": "data analysis", "plot": "data analysis",
}

// termStat is a word's count and the order it was first seen in.
type termStat struct {
	count, first int
}

// maxTerms caps the distinct words an accumulator counts; later new words
// are ignored (known ones are still counted).
const maxTerms = 4096

// isTagWord reports whether a counted word may be a tag: three letters or
// more, not a stopword, not a number and not a hex id.
func isTagWord(w string) bool {
	if len(w) < 3 || stopwords[w] || isDigits(w) {
		return false
	}
	digits := 0
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			digits++
		}
	}
	return digits*2 < len(w)
}

// fileNameWords calls fn with the words of a file's base name without its
// extension ("user-message-selector.ts": user, message, selector).
func fileNameWords(p string, fn func(w []byte)) {
	base := path.Base(p)
	base = strings.TrimSuffix(base, path.Ext(base))
	var buf [maxWordBytes]byte
	forEachWord(splitCamel(base), &buf, fn)
}

// splitCamel puts a space before each upper-case letter that follows a lower
// case one ("toolExecution" becomes "tool Execution").
func splitCamel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i > 0 && c >= 'A' && c <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			b.WriteByte(' ')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// rankTerms returns up to n of the words of terms that may be tags, by
// count (highest first), then by first appearance, leaving out the words in
// skip. Words counted once are used only while fewer than minTags words
// counted more than once were found: a word said twice is salient, a word
// said once only when little else is.
func rankTerms(terms map[string]termStat, n int, skip map[string]bool) []string {
	type scored struct {
		w string
		termStat
	}
	var all []scored
	for w, s := range terms {
		if isTagWord(w) && !skip[w] {
			all = append(all, scored{w, s})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.count != b.count {
			return b.count - a.count
		}
		return a.first - b.first
	})
	out := make([]string, 0, n)
	for _, s := range all {
		if len(out) == n || s.count < 2 && len(out) >= minTags {
			break
		}
		out = append(out, s.w)
	}
	return out
}

// minTags is the number of tags under which words counted once are used.
const minTags = 4
