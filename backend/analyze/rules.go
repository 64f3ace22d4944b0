package analyze

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
)

// isoMillis is the node's timestamp format: ISO 8601 in UTC with
// milliseconds, as JavaScript's Date.toISOString writes it.
const isoMillis = "2006-01-02T15:04:05.000Z"

// maxSummaryRunes is the longest summary, in runes.
const maxSummaryRunes = 300

// Node builds the segment's node from what was added and what in says about
// the segment. now is the analysis time (metadata.analyzedAt). The node is
// version 1 with no previous versions; every list is non-nil. Node does not
// change the accumulator: more entries may be added and Node called again.
//
// See pi-brain-node-model.md, "Node Data Structure". The rules of most
// fields are documented on the functions that compute them: classify,
// outcome, hadClearGoal, summarize, tags, topics, fileFacts and modelsUsed.
// The others:
//   - id: NodeID of the session id and the segment's first entry id;
//   - source, timestamps: from in.Segment when set (its ids, count, start and
//     end), else from the entries added;
//   - metadata.tokensUsed: the sum over assistant messages of
//     usage.totalTokens or, when a message has none (version 1 files),
//     input + output + cacheRead + cacheWrite, which is how pi computes
//     totalTokens. The spec's "input + output" would leave the cache out and
//     make old and new files disagree;
//   - metadata.cost: the sum of usage.cost.total (USD) over assistant
//     messages, exact to 1e-12 USD (see modelsUsed);
//   - metadata.durationMinutes: end minus start, to 0.1 minute;
//   - daemonMeta.segmentTokenCount: the bytes of all text in the segment
//     (messages, thinking, tool arguments and results, summaries) / 4;
//   - lessons, keyDecisions, daemonMeta.decisions and the observations other
//     than modelsUsed: empty, an offline analyzer cannot know them.
func (a *Accumulator) Node(in Input, now time.Time) graph.Node {
	start, end, count := in.Segment.StartEntryID, in.Segment.EndEntryID, in.Segment.EntryCount
	if start == "" {
		start, end, count = a.firstID, a.lastID, a.entries
	}
	startTime, endTime := in.Segment.StartTimestamp, in.Segment.EndTimestamp
	if startTime.IsZero() || endTime.IsZero() {
		startTime, endTime = a.firstTime, a.lastTime
	}

	files, langCounts, frameworks := a.fileFacts(in.Header.Cwd)
	language := primaryLanguage(langCounts)
	var languages []string
	if language != "" {
		languages = append(languages, language)
	}
	for _, l := range sortedByCount(langCounts) {
		if l != language && len(languages) < 2 {
			languages = append(languages, l)
		}
	}

	models, costPico := a.modelsUsed()
	n := graph.Node{
		ID:               NodeID(in.Header.ID, in.Segment.StartSeq),
		Version:          1,
		PreviousVersions: []string{},
		Source: graph.NodeSource{
			SessionFile:   in.SessionFile,
			Segment:       graph.SegmentSource{StartEntryID: start, EndEntryID: end, EntryCount: count},
			Computer:      in.Computer,
			SessionID:     in.Header.ID,
			ParentSession: in.Header.ParentSession,
		},
		Classification: graph.Classification{
			Type:         a.classify(in.Segment),
			Project:      in.Header.Cwd,
			IsNewProject: in.IsNewProject,
			HadClearGoal: a.hadClearGoal(),
			Language:     language,
			Frameworks:   frameworks,
		},
		Content: graph.Content{
			Summary:      a.summarize(),
			Outcome:      a.outcome(in.Abandoned),
			KeyDecisions: []graph.Decision{},
			FilesTouched: files,
			ToolsUsed:    sortedKeys(a.tools),
			ErrorsSeen:   append([]graph.ErrorSummary{}, a.errs...),
		},
		Lessons: graph.LessonsByLevel{
			Project: []graph.Lesson{}, Task: []graph.Lesson{}, User: []graph.Lesson{}, Model: []graph.Lesson{},
			Tool: []graph.Lesson{}, Skill: []graph.Lesson{}, Subagent: []graph.Lesson{},
		},
		Observations: graph.ModelObservations{
			ModelsUsed:        models,
			PromptingWins:     []string{},
			PromptingFailures: []string{},
			ModelQuirks:       []graph.ModelQuirk{},
			ToolUseErrors:     []graph.ToolError{},
		},
		Metadata: graph.NodeMetadata{
			TokensUsed:      a.tokens,
			Cost:            float64(costPico) / picoPerUSD,
			DurationMinutes: durationMinutes(startTime, endTime),
			Timestamp:       isoTime(startTime),
			AnalyzedAt:      isoTime(now),
			AnalyzerVersion: Version,
		},
		Semantic: graph.SemanticData{
			Tags:   a.tags(languages, files),
			Topics: a.topics(files),
		},
		DaemonMeta: graph.DaemonMeta{
			Decisions:         []graph.DaemonDecision{},
			SegmentTokenCount: (a.textBytes + 3) / 4,
		},
	}
	return n
}

// isoTime formats t as isoMillis, or "" for the zero time.
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(isoMillis)
}

// durationMinutes is the wall clock time from start to end in minutes,
// rounded to 0.1; 0 when either is unknown or the clock went backwards.
func durationMinutes(start, end time.Time) float64 {
	if start.IsZero() || end.IsZero() || end.Before(start) {
		return 0
	}
	return math.Round(end.Sub(start).Minutes()*10) / 10
}

// fileFacts returns the touched files made relative to the project directory
// cwd (deduplicated, sorted), the touches per programming language, and the
// frameworks evidenced by file names and by markers in manifests and written
// code (sorted).
func (a *Accumulator) fileFacts(cwd string) ([]string, map[string]int, []string) {
	rel := make(map[string]int, len(a.files))
	for p, f := range a.files {
		rel[relativeTo(p, cwd)] += f.touches
	}
	files := make([]string, 0, len(rel))
	langs := map[string]int{}
	fw := map[string]bool{}
	for p, touches := range rel {
		files = append(files, p)
		if kind, lang := classifyFile(p); kind == kindCode && lang != "" {
			langs[lang] += touches
		}
		if f := fileFramework(p); f != "" {
			fw[f] = true
		}
	}
	slices.Sort(files)
	for f := range a.frameworks {
		fw[f] = true
	}
	return files, langs, sortedKeys(fw)
}

// primaryLanguage is the language with the most file touches (reads, edits
// and writes by tools, file names in bash commands); ties go to the
// alphabetically first. "" when no code file was touched.
func primaryLanguage(counts map[string]int) string {
	l := sortedByCount(counts)
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// sortedByCount is the keys of counts by count (highest first), then
// alphabetically.
func sortedByCount(counts map[string]int) []string {
	keys := sortedKeys(counts)
	slices.SortStableFunc(keys, func(x, y string) int { return counts[y] - counts[x] })
	return keys
}

// sortedKeys is the keys of m, sorted; non-nil.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// modelsUsed is the usage per provider and model, sorted by provider then
// model, and the total cost in 1e-12 USD. Costs are summed as integers of
// 1e-12 USD (usage.cost.total of each assistant message, rounded), so a
// session's node costs add up exactly.
func (a *Accumulator) modelsUsed() ([]graph.ModelUsage, int64) {
	out := make([]graph.ModelUsage, 0, len(a.models))
	var total int64
	for k, s := range a.models {
		out = append(out, graph.ModelUsage{
			Provider: k.provider, Model: k.model,
			TokensInput: s.input, TokensOutput: s.output, CacheRead: s.cacheRead, CacheWrite: s.cacheWrite,
			Cost: float64(s.costPico) / picoPerUSD,
		})
		total += s.costPico
	}
	slices.SortFunc(out, func(x, y graph.ModelUsage) int {
		return cmp.Or(strings.Compare(x.Provider, y.Provider), strings.Compare(x.Model, y.Model))
	})
	return out, total
}

// classify gives the node type. Rules, in order of precedence (the first that
// matches wins); "edits" are edit and write tool calls; "asked" means words of
// the user's requests in the first meaningful request or in at least a third
// of the meaningful requests (see asked); "commands" are bash commands (the
// model's and the user's "!" commands):
//
//  1. handoff: the segment starts at a handoff boundary, holds a custom
//     handoff entry, or a user asks to "hand off to" someone (or /handoff).
//
// Without edits (the segment changed no file through a tool):
//
//  2. sysadmin: a system command ran (apt, brew, systemctl, ssh, docker,
//     sudo, kubectl, ...).
//  3. data: a database or data command ran (sqlite3, psql, duckdb, ...), a
//     data file was touched (.csv, .sql, .ipynb, .parquet, ...), or asked
//     about data (csv, dataset, pandas, sql, ...).
//  4. qa: tests ran (go test, npm test, pytest, ...) or asked to test or
//     review.
//  5. planning: asked to plan or design (plan, design, architecture,
//     approach, ...).
//  6. brainstorm: asked to brainstorm (brainstorm, ideas).
//  7. research: files were read, searched or fetched (read, grep, cat, git
//     log, curl, web tools).
//  8. other.
//
// With edits, by the kind of file edited most (ties: code, tests, prose,
// configuration, data):
//
//  9. code (not tests): refactoring if asked to refactor (refactor, rename,
//     restructure, simplify, ...), else debugging if asked to fix (fix, bug,
//     error, crash, broken, ...), else coding.
//  10. tests: qa.
//  11. prose (.md, .rst, .txt, docs/): documentation.
//  12. configuration (json, yaml, toml, Makefile, Dockerfile, .env, ...):
//     debugging if asked to fix, else configuration.
//  13. data files: data.
//  14. anything else (images, unknown files): sysadmin if a system command
//     ran, else other.
func (a *Accumulator) classify(seg segment.Segment) graph.NodeType {
	handoff := a.handoff
	for _, b := range seg.Boundaries {
		if b.Type == segment.Handoff {
			handoff = true
		}
	}
	if handoff {
		return graph.TypeHandoff
	}
	edits := 0
	for _, n := range a.edits {
		edits += n
	}
	if edits == 0 {
		switch {
		case a.bash.sysadmin > 0:
			return graph.TypeSysadmin
		case a.bash.data > 0 || a.touchedKind(kindData) || a.asked(wData):
			return graph.TypeData
		case a.bash.testRuns > 0 || a.asked(wQA):
			return graph.TypeQA
		case a.asked(wPlan):
			return graph.TypePlanning
		case a.asked(wBrainstorm):
			return graph.TypeBrainstorm
		case a.readCalls > 0 || a.webCalls > 0 || a.bash.reads > 0 || a.bash.web > 0 || len(a.files) > 0:
			return graph.TypeResearch
		}
		return graph.TypeOther
	}
	code := a.edits[kindCode] - a.testEdits
	kinds := []struct {
		n int
		t graph.NodeType
	}{
		{code, graph.TypeCoding}, {a.testEdits, graph.TypeQA}, {a.edits[kindDoc], graph.TypeDocumentation},
		{a.edits[kindConfig], graph.TypeConfiguration}, {a.edits[kindData], graph.TypeData},
	}
	best := -1
	for i, k := range kinds {
		if k.n > 0 && (best < 0 || k.n > kinds[best].n) {
			best = i
		}
	}
	if best < 0 {
		if a.bash.sysadmin > 0 {
			return graph.TypeSysadmin
		}
		return graph.TypeOther
	}
	switch t := kinds[best].t; {
	case t == graph.TypeCoding && a.asked(wRefactor):
		return graph.TypeRefactoring
	case (t == graph.TypeCoding || t == graph.TypeConfiguration) && a.asked(wDebug):
		return graph.TypeDebugging
	default:
		return t
	}
}

// touchedKind reports whether a file of kind k was touched.
func (a *Accumulator) touchedKind(k fileKind) bool {
	for p := range a.files {
		if kind, _ := classifyFile(p); kind == k {
			return true
		}
	}
	return false
}

// outcome gives the segment's outcome. Rules, in order:
//
//  1. abandoned: the user navigated away from the segment's leaf (a branch or
//     tree_jump follows it: Input.Abandoned, see LeftByNavigation), or the
//     segment holds a user request that no assistant message answered.
//  2. failed: the last assistant message stopped with "error" or "aborted",
//     or the segment's last tool result is an error (its failure was not
//     retried successfully).
//  3. partial: the last assistant message stopped at the output limit
//     ("length"), or some error stayed unresolved (no later success of the
//     same tool or model) while work went on.
//  4. success: otherwise (no errors, or every error was resolved by a later
//     successful call of the same tool, or a later answer of the model).
func (a *Accumulator) outcome(abandoned bool) graph.Outcome {
	switch {
	case abandoned || a.assistantMessages == 0 && a.sawRequest:
		return graph.OutcomeAbandoned
	case a.lastStop == "error" || a.lastStop == "aborted" || a.lastResultError:
		return graph.OutcomeFailed
	case a.lastStop == "length" || a.unresolvedErrors() > 0:
		return graph.OutcomePartial
	}
	return graph.OutcomeSuccess
}

// hadClearGoal reports whether the user gave a specific goal: the first user
// message of the segment that is not a slash command is a meaningful request
// (see isTrivial: at least 12 runes and not "ok", "continue", "yes", ...) of
// at least three words. A segment that starts with "continue" after a resume
// had no clear goal of its own.
func (a *Accumulator) hadClearGoal() bool {
	if !a.sawRequest || isTrivial(a.firstRequest) {
		return false
	}
	return len(strings.Fields(a.firstRequest)) >= 3
}

// Summary labels: the summary says whose words it quotes.
const (
	labelAsked      = "User asked: "
	labelLast       = "Last request: "
	labelReply      = "Final reply: "
	labelDetailed   = "Last detailed reply: "
	labelCompaction = "Compaction summary: "
)

// summarize writes the extractive summary, at most maxSummaryRunes runes, of
// up to three parts:
//
//		User asked: <first request> Last request: <last request> Final reply: <reply>
//
//	  - <first request> is the first meaningful user request of the segment
//	    (slash commands such as "/mode" and trivial messages such as "ok" or
//	    "continue" skipped, see isTrivial);
//	  - <last request> is the last meaningful request, when there is another;
//	  - <reply> is the text of the last assistant message that had text or,
//	    when that says next to nothing ("Done."), of the last one that said
//	    more, then labelled "Last detailed reply:" (see bestReply); markdown,
//	    code blocks and opening filler ("Perfect!") removed.
//
// Parts share the room fairly (a short part leaves its room to the others)
// and each is cut at a sentence end when one is near, else at a word with
// "…". A segment with none of them falls back to its compaction or branch
// summary. Nothing is written that the session does not say.
func (a *Accumulator) summarize() string {
	var labels, texts []string
	if len(a.requests) > 0 {
		labels, texts = append(labels, labelAsked), append(texts, plainRequest(a.requests[0]))
		if a.meaningful > 1 && a.lastRequest != a.requests[0] {
			labels, texts = append(labels, labelLast), append(texts, plainRequest(a.lastRequest))
		}
	}
	if reply, final := a.bestReply(); reply != "" {
		label := labelReply
		if !final {
			label = labelDetailed
		}
		labels, texts = append(labels, label), append(texts, reply)
	}
	if len(texts) == 0 {
		if a.fallback == "" {
			return ""
		}
		return labelCompaction + cutSentences(plainReply(a.fallback), maxSummaryRunes-len(labelCompaction))
	}
	room := maxSummaryRunes
	for _, l := range labels {
		room -= len(l) + 1
	}
	budgets := shareRoom(texts, room)
	var b strings.Builder
	for i, t := range texts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(labels[i])
		part := cutSentences(t, budgets[i])
		if i < len(texts)-1 {
			part = endSentence(part)
		}
		b.WriteString(part)
	}
	return b.String()
}

// bestReply is the final assistant text as prose (plainReply), and true; or,
// when that has fewer than three words ("Done.", "All fixed!"), the last
// assistant text of at least substantialReply bytes, and false.
func (a *Accumulator) bestReply() (string, bool) {
	reply := plainReply(a.replyText())
	if len(strings.Fields(reply)) >= 3 || len(a.longReply) == 0 {
		return reply, true
	}
	if long := plainReply(string(bytes.TrimSpace(a.longReply))); long != "" && long != reply {
		return long, false
	}
	return reply, true
}

// shareRoom splits room runes between texts by water-filling: every text gets
// an equal share, and what a shorter text does not need goes to the others.
// It returns each text's budget in runes.
func shareRoom(texts []string, room int) []int {
	budgets := make([]int, len(texts))
	need := make([]int, len(texts))
	open := len(texts)
	for i, t := range texts {
		need[i] = utf8.RuneCountInString(t)
	}
	for open > 0 && room >= open {
		share := room / open
		for i := range texts {
			if budgets[i] >= need[i] {
				continue
			}
			give := min(share, need[i]-budgets[i])
			budgets[i] += give
			room -= give
			if budgets[i] >= need[i] {
				open--
			}
		}
	}
	return budgets
}

// endSentence ends s so that the next summary part reads as a new sentence:
// a trailing comma, semicolon or colon becomes a period, and a period is
// added after a final letter. Text ending in other characters (a URL's digit,
// a closing quote or parenthesis, "…") is left as is.
func endSentence(s string) string {
	s = strings.TrimRight(s, " ,;:")
	if unicode.IsLetter(lastRune(s)) {
		return s + "."
	}
	return s
}

// maxTags is the most tags a node gets.
const maxTags = 8

// tags are the node's specific terms, lowercase, at most maxTags: the
// languages of the touched code (primary first, at most two), then the most
// frequent words of the user's requests (paths and identifiers left out, see
// forEachProseWord) and of the touched files' names (each distinct file
// counts twice: a touched file is evidence), stopwords, numbers, ids and
// words under three letters left out; ties go to the word seen first, and a
// word counted once is a tag only while there are few others (see
// rankTerms).
func (a *Accumulator) tags(languages []string, files []string) []string {
	terms := make(map[string]termStat, len(a.terms))
	for w, s := range a.terms {
		terms[w] = s
	}
	seq := a.termSeq
	for _, f := range files {
		fileNameWords(f, func(w []byte) {
			s, ok := terms[string(w)]
			if !ok {
				seq++
				s.first = seq
			}
			s.count += 2
			terms[string(w)] = s
		})
	}
	out := make([]string, 0, maxTags)
	skip := map[string]bool{}
	for _, l := range languages {
		out = append(out, l)
		skip[l] = true
	}
	return append(out, rankTerms(terms, maxTags-len(out), skip)...)
}

// maxTopics is the most topics a node gets.
const maxTopics = 5

// topics are the broader concepts evidenced in the segment: each word of the
// user's requests and of the touched files' names that topicKeywords lists
// counts for its topic, and running tests counts for "testing". The topics
// with evidence, most evidence first (ties alphabetical), at most maxTopics.
func (a *Accumulator) topics(files []string) []string {
	score := map[string]int{}
	for w, s := range a.terms {
		if t, ok := topicKeywords[w]; ok {
			score[t] += s.count
		}
	}
	for _, f := range files {
		fileNameWords(f, func(w []byte) {
			if t, ok := topicKeywords[string(w)]; ok {
				score[t]++
			}
		})
	}
	if a.bash.testRuns > 0 {
		score["testing"] += a.bash.testRuns
	}
	out := sortedByCount(score)
	if len(out) > maxTopics {
		out = out[:maxTopics]
	}
	return out
}
