package summary

import (
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"rhizome/backend/segment"
)

// Segment makes the offline summary of the segment whose entries were added:
// one sentence of at most 30 words and a 3-6 word label for its graph node.
// Rules, in order:
//
//  1. a branch_summary opens the next segment (see Followed): it is pi's
//     summary of this abandoned branch, and its goal and done items make the
//     sentence (see Digest);
//  2. the segment has requests: the main one (see mainTurn) as an imperative
//     phrase, then what came of it (the outcome the assistant reported,
//     "added X", possibly a few requests later; else the new state or the
//     answer to a question; else the files edited) and, when room is left,
//     the last deed of the segment ("; finally released v0.27.3");
//  3. a compaction segment with no request of its own: the outcome the
//     agent reported after the compaction, if any; else the compaction
//     itself, said as such ("Context compacted": pi's summary in it is the
//     summary of the work before, see Pass, not of this segment);
//  4. a branch summary inside the segment with no request of its own: its
//     goal and done items;
//  5. the first sentence of the last assistant text;
//  6. "No conversation", for segments of settings changes and labels only.
//
// The summary's source is SourcePi under rule 1 (pi wrote it), else
// SourceOffline. sessionID and seg name the segment for its InputHash (see
// SegmentHash).
func (a *Accumulator) Segment(sessionID string, seg segment.Segment, now time.Time) Summary {
	s := Summary{Kind: KindSegment, Source: SourceOffline, MadeAt: now.UTC(),
		InputHash: SegmentHash(a.segmentInputs(sessionID, seg))}
	_, replyState := outcomeOf(a.lastReply)
	switch {
	case a.following != nil:
		s.Text, s.Label = digestSentence(*a.following, MaxSentenceWords), digestLabel(*a.following)
		s.Source = SourcePi
	case a.first != nil:
		main := a.mainTurn()
		s.Text = a.requestSentence(main, MaxSentenceWords, true)
		s.Label = makeLabel(main.req.phrase)
	case len(a.digests) > 0 && a.digests[len(a.digests)-1].compaction && !(a.lastReply != "" && replyState >= outcomeState):
		s.Text, s.Label = compactionNotice(a.digests[len(a.digests)-1]), "Context compacted"
	case len(a.digests) > 0 && !a.digests[len(a.digests)-1].compaction:
		d := a.digests[len(a.digests)-1].d
		s.Text, s.Label = digestSentence(d, MaxSentenceWords), digestLabel(d)
	case a.lastReply != "":
		if o, st := outcomeOf(a.lastReply); st >= outcomeState {
			s.Text = endSentence(capitalize(o))
		} else {
			s.Text = endSentence(capitalize(cutWords(firstProse(a.lastReply), MaxSentenceWords, 8)))
		}
		s.Label = makeLabel(s.Text)
	default:
		s.Text, s.Label = "No conversation: settings changes and labels only.", "No conversation"
	}
	if s.Text == "" {
		s.Text = "No conversation: settings changes and labels only."
	}
	if s.Label == "" {
		s.Label = "Untitled segment"
	}
	return s
}

// compactionNotice is the sentence of a segment that is a compaction and
// nothing more (yet): how much context the agent compacted, and what its
// summary of the work before is about. Every agent's compactions read so
// (pi, Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI): the
// sentence names none.
func compactionNotice(d digestAt) string {
	s := "The context was compacted here"
	if d.tokens > 0 {
		s += " (" + thousands(d.tokens) + " tokens)"
	}
	if about := digestLabel(d.d); about != "" {
		s += " into a summary of the work before it: " + strings.TrimRight(about, " .")
	}
	return endSentence(s)
}

// thousands writes n with a comma between thousands: 186,045.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// segmentInputs are the inputs of the segment seg whose entries were added.
func (a *Accumulator) segmentInputs(sessionID string, seg segment.Segment) SegmentInputs {
	return SegmentInputs{SessionID: sessionID, StartSeq: seg.StartSeq, EntryCount: seg.EntryCount,
		StartEntryID: seg.StartEntryID, EndEntryID: seg.EndEntryID, FollowedBy: a.followingID}
}

// mainTurn is the turn a run of entries is about: the first request among
// the first three that asks for a change (an action verb, or an issue or PR
// to work on), else the first, unless one of the next two weighs at least 2
// more (see turn.weight). A question or a look at the code usually leads up
// to the task.
func (a *Accumulator) mainTurn() turn {
	ts := a.turns()
	head := ts[:min(3, len(ts))]
	for _, t := range head {
		if t.req.score >= 3 && actionVerbs[strings.ToLower(firstWord(t.req.phrase))] || reference.MatchString(t.req.phrase) {
			return t
		}
	}
	main := head[0]
	for _, t := range head[1:] {
		if t.weight() >= head[0].weight()+2 && t.weight() > main.weight() {
			main = t
		}
	}
	return main
}

// requestSentence writes a turn as one sentence of at most max words: the
// request as a phrase, then what came of it and, when later turns of the run
// ended in another deed, the last of those ("; finally …").
func (a *Accumulator) requestSentence(t turn, max int, finally bool) string {
	req := strings.TrimRight(t.req.phrase, " .!?")
	question := strings.HasSuffix(t.req.phrase, "?")
	what := cutWords(a.result(t), 16, 4)
	fin := ""
	if finally && !question {
		if f := a.finalDeed(t); f != "" && f != what && overlap(f, what) < 3 {
			fin = f
		}
	}
	if what == "" && fin != "" {
		what, fin = "finally "+cutWords(fin, 16, 4), ""
	}
	if what == "" {
		if question {
			return cutWords(req, max, 6) + "?"
		}
		return endSentence(capitalize(cutWords(req, max, 6)))
	}
	// A request the outcome repeats ("port X to the patterns …" — "ported X
	// to match the patterns …") is cut to its first phrase.
	if overlap(req, what) >= 3 {
		req = cutWords(req, MaxLabelWords, labelTargetWords)
	}
	// When the outcome says all the request did ("Port over X" — "ported
	// X to match …"), the outcome alone is the sentence.
	restated := false
	if n := len(contentWords(req)); !question && n >= 2 && overlap(req, what) == n && pastVerbs[strings.ToLower(firstWord(what))] {
		req, restated = "", true
	}
	// The request keeps at least 8 words (or all it has); the last deed gets
	// what is left, if that is 6 words or more.
	reqMin := min(wordCount(req), 8)
	if fin != "" {
		if room := max - reqMin - wordCount(what) - 3; room >= 6 {
			what += "; finally " + cutWords(fin, room, 5)
		}
	}
	if restated {
		return endSentence(capitalize(what))
	}
	room := max - wordCount(what) - 1
	if question {
		room -= 1 // "Asked"
	}
	req = capitalize(cutWords(req, room, min(5, room)))
	if question {
		// One sentence: the question quoted, then its answer.
		req = "Asked “" + req + "?”"
	}
	return endSentence(req + " — " + what)
}

// relatedDeed is the first strong outcome of a turn after t that shares at
// least two content words with t's request: the work a request asked for is
// often reported a few turns later ("add syntax highlighting" … "added
// syntax highlighting to HTML export"). "" when there is none, or when t
// asked a question.
func (a *Accumulator) relatedDeed(t turn) string {
	if strings.HasSuffix(t.req.phrase, "?") {
		return "" // a question is answered, not done
	}
	want := contentWords(t.req.phrase)
	if len(want) < 2 {
		return ""
	}
	for _, u := range a.turns() {
		if u.seq <= t.seq || u.strength != outcomeStrong {
			continue
		}
		shared := 0
		for w := range contentWords(u.outcome) {
			if want[w] {
				shared++
			}
		}
		if shared >= 2 {
			return u.outcome
		}
	}
	return ""
}

// overlap is the number of content words a and b share.
func overlap(a, b string) int {
	n := 0
	wb := contentWords(b)
	for w := range contentWords(a) {
		if wb[w] {
			n++
		}
	}
	return n
}

// contentWords are the lowercase words of s of at least four letters that
// are not common function words, stemmed crudely (a final "s", "ed", "ing"
// removed) so that "add highlighting" meets "added highlighting".
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}) {
		w = strings.Trim(w, ".-_")
		if len(w) < 4 || commonWords[w] {
			continue
		}
		for _, suf := range []string{"ing", "ed", "es", "s"} {
			if len(w) > len(suf)+3 {
				if t, ok := strings.CutSuffix(w, suf); ok {
					w = t
					break
				}
			}
		}
		out[w] = true
	}
	return out
}

// commonWords carry no topic.
var commonWords = wordSet(`that this with from into have will would should could there their about what when
where which while also just then than them they these those some more most much make made need want like
does done using used uses use well very really only over under after before other each every same such
because please maybe probably actually think know look good better files file code change changes added
update updated fixed fix instead again still first last next`)

// finalDeed is the strong outcome of the last turn after t that has one, or
// "".
func (a *Accumulator) finalDeed(t turn) string {
	ts := a.turns()
	for i := len(ts) - 1; i >= 0 && ts[i].seq > t.seq; i-- {
		if ts[i].strength == outcomeStrong {
			return ts[i].outcome
		}
	}
	return ""
}

// result says what came of a turn: its reported deed, else its new state or
// answer, else the files it edited, else its passing checks; "" when nothing
// is known.
func (a *Accumulator) result(t turn) string {
	switch {
	case t.strength == outcomeStrong:
		return t.outcome
	}
	if later := a.relatedDeed(t); later != "" {
		return later
	}
	switch {
	case t.strength == outcomeState:
		return t.outcome
	case len(t.files) > 0:
		return "edited " + fileList(t.files)
	case t.strength == outcomeChecks:
		return t.outcome
	}
	return ""
}

// fileList names up to three files and says how many more.
func fileList(files []string) string {
	if len(files) <= 3 {
		return joinList(files)
	}
	return strings.Join(files[:3], ", ") + " and " + strconv.Itoa(len(files)-3) + " more"
}

// firstProse is the first sentence of prose of a markdown text.
func firstProse(md string) string {
	for _, l := range replyLines(md) {
		if ss := Sentences(l.text); len(ss) > 0 {
			return ss[0]
		}
	}
	return ""
}

// digestSentence writes a pi summary as one sentence of at most max words:
// its goal (or lead sentence), then "done:" and its first done items.
func digestSentence(d Digest, max int) string {
	core := strings.TrimRight(d.Goal, " .")
	if core == "" {
		core = strings.TrimRight(d.Lead, " .")
	}
	done := d.Done
	if core == "" && len(done) == 0 {
		if d.Title != "" {
			return endSentence(d.Title)
		}
		if len(d.Next) > 0 {
			return endSentence("Next: " + joinList(d.Next[:min(3, len(d.Next))]))
		}
		return ""
	}
	if core == "" {
		for k := min(4, len(done)); k > 0; k-- {
			s := "Done: " + joinList(moreItems(done, k))
			if wordCount(s) <= max || k == 1 {
				return endSentence(cutWords(s, max, 4))
			}
		}
	}
	coreWords := wordCount(core)
	for k := min(4, len(done)); k > 0; k-- {
		list := "; done: " + joinList(moreItems(done, k))
		if coreWords+wordCount(list) <= max {
			return endSentence(capitalize(core) + list)
		}
	}
	if len(done) > 0 && coreWords < max-6 {
		list := cutWords("done: "+done[0], max-coreWords-1, 2)
		return endSentence(capitalize(core) + "; " + list)
	}
	return endSentence(capitalize(cutWords(core, max, 8)))
}

// moreItems is the first k items, the k-th replaced by "N more" when items
// are left over.
func moreItems(items []string, k int) []string {
	if k >= len(items) {
		return items
	}
	if k < 2 {
		return items[:1]
	}
	out := append([]string(nil), items[:k-1]...)
	return append(out, strconv.Itoa(len(items)-k+1)+" more")
}

// digestLabel is the label of a pi summary: its specific title, else its
// goal, lead or first done item, cut.
func digestLabel(d Digest) string {
	for _, s := range []string{d.Title, d.Goal, d.Lead} {
		if s != "" {
			return makeLabel(s)
		}
	}
	if len(d.Done) > 0 {
		return makeLabel(d.Done[0])
	}
	return ""
}

// Session makes the offline summary of the session whose entries were all
// added: a title, two or three sentences and a label for its lane.
//
// The title is, in order: the user's name for it (the latest session_info
// name, as written); the specific title or goal of pi's first compaction summary; the
// user's first request, as an imperative phrase, cut at a phrase boundary
// (as chat apps title conversations); the first done item of the first
// compaction; any request; "Session in <project>".
//
// The text: what the session set out to do (the first compaction's goal,
// else the first request and what came of it); what it went on to do (the
// requests of later turns, spread over the session, as verb phrases, or the
// compaction's done items); how it ended (the last request's outcome) and
// how many files were edited.
//
// sessionID gives the InputHash (with the entry count, last entry id and
// name the accumulator saw: see SessionHash); project is the session's
// working directory (the header's cwd), whose last element names the session
// when nothing else does.
func (a *Accumulator) Session(sessionID, project string, now time.Time) Summary {
	s := Summary{Kind: KindSession, Source: SourceOffline, MadeAt: now.UTC(),
		InputHash: SessionHash(SessionInputs{SessionID: sessionID, Entries: a.entries,
			LastEntryID: a.lastEntryID, Name: a.name})}
	s.Title = a.sessionTitle(project)
	s.Text = a.sessionText()
	s.Label = makeLabel(s.Title)
	return s
}

// firstCompaction is the digest of the first compaction, or nil.
func (a *Accumulator) firstCompaction() *Digest {
	for i := range a.digests {
		if a.digests[i].compaction {
			return &a.digests[i].d
		}
	}
	return nil
}

func (a *Accumulator) sessionTitle(project string) string {
	if a.name != "" {
		return cutRunes(a.name, MaxTitleRunes) // the user's own words, as written
	}
	c := a.firstCompaction()
	if c != nil && c.Title != "" {
		return makeTitle(c.Title)
	}
	if c != nil && c.Goal != "" {
		return makeTitle(c.Goal)
	}
	if a.first != nil && a.first.req.score >= 1 && wordCount(a.first.req.phrase) >= 3 {
		return makeTitle(a.first.req.phrase)
	}
	if c != nil && len(c.Done) > 0 {
		return makeTitle(c.Done[0])
	}
	if a.first != nil {
		return makeTitle(a.mainTurn().req.phrase)
	}
	for _, d := range a.digests {
		if l := digestLabel(d.d); l != "" {
			return makeTitle(l)
		}
	}
	if p := baseName(project); p != "" && p != "/" {
		return "Session in " + p
	}
	return "Untitled session"
}

func (a *Accumulator) sessionText() string {
	var sents []string
	ts := a.turns()
	c := a.firstCompaction()
	var cseq int
	if c != nil {
		for _, d := range a.digests {
			if d.compaction {
				cseq = d.seq
				break
			}
		}
	}
	switch {
	case c != nil && (c.Goal != "" || len(c.Done) > 0):
		if c.Goal != "" {
			sents = append(sents, endSentence(cutWords(c.Goal, 30, 8)))
		}
		if len(c.Done) > 0 {
			sents = append(sents, endSentence("Done: "+joinList(moreItems(c.Done, min(4, len(c.Done))))))
		}
		// Later work: the requests after the compaction.
		var later []turn
		for _, t := range ts {
			if t.seq > cseq {
				later = append(later, t)
			}
		}
		if v := wentOn(later, 3, "Later it went on to "); v != "" && len(sents) < 3 {
			sents = append(sents, v)
		}
	case len(ts) > 0:
		main := ts[0]
		if main.req.score < 1 {
			main = a.mainTurn()
		}
		sents = append(sents, a.requestSentence(main, 30, false))
		var rest []turn
		for _, t := range ts {
			if t.seq != main.seq {
				rest = append(rest, t)
			}
		}
		if v := wentOn(rest, 3, "It went on to "); v != "" {
			sents = append(sents, v)
		}
	case len(a.digests) > 0:
		if d := digestSentence(a.digests[0].d, 30); d != "" {
			sents = append(sents, d)
		}
	case a.lastReply != "":
		sents = append(sents, endSentence(capitalize(cutWords(firstProse(a.lastReply), 30, 8))))
	}
	if e := a.ending(ts, strings.Join(sents, " ")); e != "" && len(sents) < 3 {
		sents = append(sents, e)
	}
	if len(sents) == 0 {
		return "No conversation: settings changes and labels only."
	}
	return strings.Join(sents, " ")
}

// wentOn writes "It went on to a, b and c." from up to n turns spread over
// ts whose requests are verb phrases, best first within each stretch.
func wentOn(ts []turn, n int, lead string) string {
	var verbs []turn
	for _, t := range ts {
		if t.req.verb && t.req.score >= 2 {
			verbs = append(verbs, t)
		}
	}
	if len(verbs) == 0 {
		return ""
	}
	picked := spread(verbs, n)
	var phrases []string
	seen := map[string]bool{}
	for _, t := range picked {
		p := lowerFirst(cutWords(strings.TrimRight(t.req.phrase, " .!?"), 10, 3))
		if !seen[p] {
			seen[p] = true
			phrases = append(phrases, p)
		}
	}
	return endSentence(lead + joinList(phrases))
}

// spread picks up to n turns from ts, one from each of n equal stretches,
// the heaviest of its stretch, in order.
func spread(ts []turn, n int) []turn {
	if len(ts) <= n {
		return ts
	}
	var out []turn
	for i := range n {
		lo, hi := i*len(ts)/n, (i+1)*len(ts)/n
		best := ts[lo]
		for _, t := range ts[lo:hi] {
			if t.weight() > best.weight() {
				best = t
			}
		}
		out = append(out, best)
	}
	return out
}

// ending says how the session ended: the last request's deed (unless used
// already), and the number of files edited with the directory most of them
// are in.
func (a *Accumulator) ending(ts []turn, used string) string {
	deed := ""
	if len(ts) > 1 {
		if last := ts[len(ts)-1]; last.strength == outcomeStrong && !strings.Contains(used, last.outcome) {
			deed = "Finally it " + last.outcome
		}
	}
	files := ""
	if n := len(a.fileOrder); n == 1 {
		files = "1 file edited (" + baseName(a.fileOrder[0]) + ")"
	} else if n > 1 {
		files = strconv.Itoa(n) + " files edited"
		if dir := commonDir(a.fileOrder); dir != "" {
			files += ", mostly in " + dir
		}
	}
	switch {
	case deed != "" && files != "":
		return endSentence(deed + " (" + files + ")")
	case deed != "":
		return endSentence(deed)
	case files != "":
		return endSentence(capitalize(files))
	}
	return ""
}

// commonDir is the directory holding most of the files (its last two
// elements), when it holds at least half of them; "" otherwise.
func commonDir(files []string) string {
	count := map[string]int{}
	for _, f := range files {
		d := path.Dir(strings.ReplaceAll(f, `\`, "/"))
		if d != "." && d != "/" {
			count[d]++
		}
	}
	var dirs []string
	for d := range count {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		if count[dirs[i]] != count[dirs[j]] {
			return count[dirs[i]] > count[dirs[j]]
		}
		return dirs[i] < dirs[j]
	})
	if len(dirs) == 0 || count[dirs[0]]*2 < len(files) {
		return ""
	}
	d := dirs[0]
	parts := strings.Split(strings.Trim(d, "/"), "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/") + "/"
}
