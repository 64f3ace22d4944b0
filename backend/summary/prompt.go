package summary

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rhizome/backend/loom"
	"rhizome/backend/segment"
)

// Prompt is what to send a model to get a summary: a system message, one user
// message and a bound on the reply. The app sends it through backend/llm
// (dialogue mode: a system and a user message) and hands the reply to
// ParseReply with the same Kind and InputHash.
type Prompt struct {
	Kind   Kind   `json:"kind"`   // the kind of summary asked for
	System string `json:"system"` // the system message
	User   string `json:"user"`   // the user message: the material and the instructions
	// MaxTokens bounds the reply, in tokens.
	MaxTokens int `json:"maxTokens"`
	// InputHash is the hash of the inputs the prompt shows: the InputHash of
	// the summary the reply will make.
	InputHash string `json:"inputHash"`
}

// Size bounds of a prompt, in runes. Long inputs are cut, never dropped
// silently: a cut text ends in " […]", and a list with items left out says
// how many ("[… 37 more requests not shown]").
const (
	maxPromptRunes      = 12000 // the whole user message (about 3000 tokens)
	maxPromptTurns      = 14    // requests shown of a segment or session
	maxPromptResult     = 300   // an outcome
	maxLoomNodeRunes    = 4000  // the node being summarised: head and tail kept
	maxLoomContextRunes = 1500  // its parent
	maxLoomGrandRunes   = 800   // its grandparent
	maxTreePathNodes    = 24    // main-path nodes of a tree prompt
)

// systemPrompt frames every summary request.
const systemPrompt = "You write short, specific summaries for Rhizome, a tool that shows a person's AI-assisted work as a graph. " +
	"Use the words of the material: file names, feature names, issue numbers. Never invent facts. " +
	"Never address the reader, never refuse, and reply exactly in the format asked."

// PromptContext is what a segment or session prompt says besides the
// entries: where the work happened.
type PromptContext struct {
	Project      string // the session's working directory
	SessionTitle string // the session's current title, for a segment prompt ("" if none)
}

// SegmentPrompt is the model prompt for the summary of the segment whose
// entries were added: the Aspen Grove "Node Summaries" prompt adapted to a
// run of requests. It shows the project, the session title, pi's own
// summaries in the segment, and up to 14 requests spread over the segment
// (the first, the last, and the weightiest of the stretches between), each
// with its outcome and edited files; longer texts are cut (see
// maxPromptRunes). sessionID and seg give its InputHash (see Segment).
func (a *Accumulator) SegmentPrompt(ctx PromptContext, sessionID string, seg segment.Segment) Prompt {
	var b strings.Builder
	b.WriteString("Given this part of a coding-agent session:\n---\n")
	a.writeContext(&b, ctx)
	if a.following != nil {
		b.WriteString("When the user left this part, the agent summarised it as: " + digestLine(*a.following) + "\n")
	}
	a.writeTurns(&b)
	b.WriteString("---\n\nSummarize this part in ONE sentence (max 30 words).\n" +
		"Capture the key point, action, or decision. Be specific, not generic.\n" +
		"Then give it a label of 3 to 6 words for a graph node.\n\n" +
		"Reply with exactly two lines:\nSummary: <the sentence>\nLabel: <the label>")
	return Prompt{Kind: KindSegment, System: systemPrompt, User: b.String(), MaxTokens: 100,
		InputHash: SegmentHash(a.segmentInputs(sessionID, seg))}
}

// SessionPrompt is the model prompt for the summary of the session whose
// entries were all added: a title and two or three sentences, from the same
// material as SegmentPrompt over the whole session.
func (a *Accumulator) SessionPrompt(ctx PromptContext, sessionID string) Prompt {
	var b strings.Builder
	b.WriteString("Given this coding-agent session:\n---\n")
	ctx.SessionTitle = a.name
	a.writeContext(&b, ctx)
	a.writeTurns(&b)
	if n := len(a.fileOrder); n > 0 {
		b.WriteString("Files edited in the session: " + strconv.Itoa(n) + "\n")
	}
	b.WriteString("---\n\nGive this session a title of at most 10 words, and summarize it in 2 or 3 sentences: " +
		"what the user set out to do, what was done, how it ended. Be specific, not generic.\n\n" +
		"Reply with exactly two lines:\nTitle: <the title>\nSummary: <the sentences>")
	h := SessionHash(SessionInputs{SessionID: sessionID, Entries: a.entries, LastEntryID: a.lastEntryID, Name: a.name})
	return Prompt{Kind: KindSession, System: systemPrompt, User: b.String(), MaxTokens: 250, InputHash: h}
}

// writeContext writes the project, the session's title and pi's summaries.
func (a *Accumulator) writeContext(b *strings.Builder, ctx PromptContext) {
	if ctx.Project != "" {
		b.WriteString("Project: " + clipRunes(ctx.Project, 200) + "\n")
	}
	if ctx.SessionTitle != "" {
		b.WriteString("Session title (the user's): " + clipRunes(ctx.SessionTitle, 200) + "\n")
	}
	for _, d := range a.digests {
		what := "A branch summary"
		if d.compaction {
			what = "A summary the agent wrote of the work before it (compaction)"
		}
		b.WriteString(what + ": " + digestLine(d.d) + "\n")
	}
}

// writeTurns writes the requests, their results and the files edited.
func (a *Accumulator) writeTurns(b *strings.Builder) {
	ts := a.turns()
	if len(ts) == 0 {
		if a.lastReply != "" {
			b.WriteString("No user requests. The agent's last reply: " + clipRunes(collapseSpace(a.lastReply), 800) + "\n")
		}
		return
	}
	shown := ts
	if len(ts) > maxPromptTurns {
		mid := spread(ts[1:len(ts)-1], maxPromptTurns-2)
		shown = append(append([]turn{ts[0]}, mid...), ts[len(ts)-1])
	}
	// Share the room between the requests; a short one leaves its share.
	room := maxPromptRunes - 2000
	per := room / len(shown)
	fmt.Fprintf(b, "User requests, in order (%d of %d shown; a text cut short ends in \"[…]\"):\n", len(shown), a.requests)
	for i, t := range shown {
		fmt.Fprintf(b, "%d. User: %s\n", i+1, clipRunes(t.req.text, per))
		if r := a.result(t); r != "" {
			b.WriteString("   Result: " + clipRunes(r, maxPromptResult) + "\n")
		}
		if len(t.files) > 0 {
			b.WriteString("   Files edited: " + strings.Join(t.files, ", ") + "\n")
		}
	}
	if hidden := a.requests - len(shown); hidden > 0 {
		fmt.Fprintf(b, "[… %d more requests not shown]\n", hidden)
	}
}

// digestLine writes a pi summary on one line: goal or lead, done, next.
func digestLine(d Digest) string {
	var parts []string
	if d.Title != "" {
		parts = append(parts, d.Title+".")
	}
	if d.Goal != "" {
		parts = append(parts, "Goal: "+d.Goal)
	} else if d.Lead != "" {
		parts = append(parts, d.Lead)
	}
	if len(d.Done) > 0 {
		parts = append(parts, "Done: "+strings.Join(d.Done, "; ")+".")
	}
	if len(d.Next) > 0 {
		parts = append(parts, "Next: "+strings.Join(d.Next, "; ")+".")
	}
	return clipRunes(strings.Join(parts, " "), 1200)
}

// clipRunes cuts s to at most n runes, marking a cut with " […]".
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-6 {
			break
		}
		k++
	}
	if sp := strings.LastIndexByte(s[:i], ' '); sp > i*3/4 {
		i = sp
	}
	return strings.TrimRight(s[:i], " ") + " […]"
}

// clipMiddle cuts s to at most n runes by keeping its head (three quarters)
// and its tail, marking the cut with " […] ".
func clipMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 7) * 3 / 4
	tail := n - 7 - head
	return string(r[:head]) + " […] " + string(r[len(r)-tail:])
}

// LoomNodePrompt is the Aspen Grove "Node Summaries" prompt for node nodeID
// of tree t: the tree title, the parent's summary (or its text when it has
// none), the grandparent too when the node is short (under about 50
// tokens), and the node's text. The node's text keeps its head and tail when
// it is longer than 4000 runes; the parent's is cut at 1500, the
// grandparent's at 800. See aspen-grove-core-entities.md, "Node Summaries".
func LoomNodePrompt(t *loom.Tree, nodeID string) (Prompt, error) {
	c, err := nodeContext(t, nodeID)
	if err != nil {
		return Prompt{}, err
	}
	var b strings.Builder
	b.WriteString("Given this conversation context:\n---\n")
	b.WriteString("Tree: " + clipRunes(t.Title, 200) + "\n")
	if c.grandparent != nil {
		b.WriteString("Before that: " + clipRunes(summaryOrText(c.grandparent), maxLoomGrandRunes) + "\n")
	}
	if c.parent != nil {
		b.WriteString("Previous: " + clipRunes(summaryOrText(c.parent), maxLoomContextRunes) + "\n")
	} else {
		b.WriteString("Previous: (none: this is the first message of the tree)\n")
	}
	b.WriteString("---\n\nSummarize the following message in ONE sentence (max 30 words).\n" +
		"Capture the key point, action, or decision. Be specific, not generic.\n" +
		"Reply with the sentence only.\n\n")
	b.WriteString("Message: " + clipMiddle(nodeText(c.node.Content), maxLoomNodeRunes))
	return Prompt{Kind: KindLoomNode, System: systemPrompt, User: b.String(), MaxTokens: 50, InputHash: LoomNodeHash(c.inputs(t))}, nil
}

// summaryOrText is a node's summary, else its text.
func summaryOrText(n *loom.Node) string {
	if s := strings.TrimSpace(n.Summary); s != "" {
		return s
	}
	return nodeText(n.Content)
}

// nodeText is a node's text for a prompt, media described.
func nodeText(c loom.Content) string {
	if t := strings.TrimSpace(c.PlainText()); t != "" {
		return t
	}
	switch c.Type {
	case loom.ContentImage:
		return "(an image without a description)"
	case loom.ContentAudio:
		return "(an audio clip)"
	}
	return "(empty)"
}

// LoomTreePrompt is the Aspen Grove "LoomTree Summaries" prompt for tree t:
// its description, the summaries of its main path's nodes (each node's
// summary, else its offline sentence; at most 24, the first 8 and the last
// 16 when the path is longer), the summaries of its branch points, and how
// many there are. It also asks for a title. main is the main path (zero for
// the path to the newest leaf). See aspen-grove-core-entities.md, "LoomTree
// Summaries".
func LoomTreePrompt(t *loom.Tree, main loom.ActivePath) (Prompt, error) {
	path, err := mainPath(t, main)
	if err != nil {
		return Prompt{}, err
	}
	var b strings.Builder
	b.WriteString("This is a branching conversation tree. ")
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString("The user describes it as:\n\"" + clipRunes(d, 1000) + "\"\n\n")
	} else {
		b.WriteString("The user has not described it; its title is \"" + clipRunes(t.Title, 200) + "\".\n\n")
	}
	b.WriteString("Key node summaries from the main path:\n")
	shown := path
	hidden := 0
	if len(path) > maxTreePathNodes {
		hidden = len(path) - maxTreePathNodes
		shown = append(append([]*loom.Node(nil), path[:8]...), path[len(path)-16:]...)
	}
	for i, n := range shown {
		if hidden > 0 && i == 8 {
			fmt.Fprintf(&b, "[… %d nodes not shown]\n", hidden)
		}
		if n.Content.Type == loom.ContentText && strings.TrimSpace(n.Content.Text) == "" {
			continue // an empty root
		}
		b.WriteString("- " + nodeLine(n) + "\n")
	}
	bps := t.BranchPoints()
	if len(bps) > 0 {
		b.WriteString("\nBranch point node summaries:\n")
		for i, n := range bps {
			if i == 8 {
				fmt.Fprintf(&b, "[… %d more]\n", len(bps)-8)
				break
			}
			b.WriteString("- " + nodeLine(n) + "\n")
		}
	}
	fmt.Fprintf(&b, "\nBranch points explored: %d\n\n", len(bps))
	b.WriteString("Summarize this tree's purpose and main themes in 2 sentences, and suggest a title of at most 8 words.\n\n" +
		"Reply with exactly two lines:\nTitle: <the title>\nSummary: <the two sentences>")
	return Prompt{Kind: KindLoomTree, System: systemPrompt, User: b.String(), MaxTokens: 150,
		InputHash: LoomTreeHash(treeInputs(t, path))}, nil
}

// nodeLine is a node's summary for a tree prompt: its summary, else its
// offline sentence.
func nodeLine(n *loom.Node) string {
	if s := strings.TrimSpace(n.Summary); s != "" {
		return clipRunes(collapseSpace(s), 400)
	}
	return nodeSentence(n.Content)
}

// ProjectPrompt is the model prompt for a project's summary: its path and
// its sessions' titles and summaries, oldest first (at most 40, then how
// many more).
func ProjectPrompt(path string, sessions []Summary) Prompt {
	var b strings.Builder
	b.WriteString("Given the sessions of one project:\n---\nProject: " + clipRunes(path, 300) + "\n")
	in := ProjectInputs{Path: path}
	for i, s := range sessions {
		in.SessionHashes = append(in.SessionHashes, s.InputHash)
		if i < 40 {
			fmt.Fprintf(&b, "%d. %s: %s\n", i+1, clipRunes(s.Title, 120), clipRunes(collapseSpace(s.Text), 300))
		}
	}
	if len(sessions) > 40 {
		fmt.Fprintf(&b, "[… %d more sessions not shown]\n", len(sessions)-40)
	}
	b.WriteString("---\n\nSay what the sessions in this project were about in 2 to 4 sentences, and give the project a title of at most 6 words. " +
		"Be specific, not generic.\n\nReply with exactly two lines:\nTitle: <the title>\nSummary: <the sentences>")
	return Prompt{Kind: KindProject, System: systemPrompt, User: clipRunes(b.String(), maxPromptRunes), MaxTokens: 300,
		InputHash: ProjectHash(in)}
}

// ErrBadReply is what ParseReply's errors wrap: the caller keeps the
// previous summary and records the error on the item.
var ErrBadReply = errors.New("summary: unusable model reply")

// ReplyError says why a model's reply was not used.
type ReplyError struct {
	Kind   Kind   // the kind of summary the reply was for
	Reason string // "empty", "refusal", "overlong", "no title", "prompt echoed", …
	Reply  string // the reply, cut to 200 runes
}

// Error says what the reply was for, why it was rejected, and quotes it.
func (e *ReplyError) Error() string {
	return fmt.Sprintf("summary: unusable model reply for a %s summary: %s: %q", e.Kind, e.Reason, e.Reply)
}

// Unwrap makes errors.Is(err, ErrBadReply) true.
func (e *ReplyError) Unwrap() error { return ErrBadReply }

var (
	replyKey = regexp.MustCompile(`(?i)^[\s*_#>-]*(title|summary|label)[\s*_]*:[\s*_]*(.*)$`)
	refusal  = regexp.MustCompile(`(?i)^(i'?m sorry|i am sorry|sorry[,.!]|i apologi[sz]e|i cannot|i can'?t|i'?m unable|i am unable|i'?m not able|i am not able|as an ai|i won'?t|i will not|i do not have|i don'?t have|unfortunately,? i|there is no (message|content|text)|no (message|content) (was )?provided|please provide)`)
	echoed   = regexp.MustCompile(`(?i)(summarize (the following|this)|capture the key point|reply with exactly|be specific, not generic)`)
)

// ParseReply reads a model's reply to a Prompt of kind p.Kind into a
// summary with source (ModelSource(provider, model)), p.InputHash and now.
// Replies are read leniently where that is safe: "Title:", "Summary:" and
// "Label:" lines in any case, with markdown emphasis or list markers; a
// wrapping code fence or quotes; a loom node's bare sentence. A text over
// its kind's word limit by at most half is cut at a phrase boundary; a
// missing label is made from the text, an overlong one cut.
//
// It returns a *ReplyError (wrapping ErrBadReply) and no summary for an
// empty reply, a refusal ("I'm sorry, I can't…"), a reply that echoes the
// prompt, a text more than half again over its word limit, or a missing
// title for a kind that has one.
func ParseReply(p Prompt, reply, source string, now time.Time) (Summary, error) {
	bad := func(reason string) (Summary, error) {
		return Summary{}, &ReplyError{Kind: p.Kind, Reason: reason, Reply: clipRunes(collapseSpace(reply), 200)}
	}
	body := strings.TrimSpace(reply)
	if strings.HasPrefix(body, "```") {
		body = strings.TrimPrefix(body[strings.IndexByte(body+"\n", '\n'):], "\n")
		body = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "```"))
	}
	if body == "" {
		return bad("empty")
	}
	fields := map[string]string{}
	var loose []string
	key := ""
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if m := replyKey.FindStringSubmatch(line); m != nil {
			key = strings.ToLower(m[1])
			fields[key] = strings.TrimSpace(m[2])
			continue
		}
		if line == "" {
			continue
		}
		if key == "" {
			loose = append(loose, line)
		} else {
			fields[key] = strings.TrimSpace(fields[key] + " " + line)
		}
	}
	text := fields["summary"]
	if text == "" && len(fields) == 0 {
		text = strings.Join(loose, " ")
	}
	text = unquote(collapseSpace(strings.NewReplacer("**", "", "__", "").Replace(text)))
	title := unquote(collapseSpace(strings.NewReplacer("**", "", "__", "", "#", "").Replace(fields["title"])))
	label := unquote(collapseSpace(fields["label"]))
	switch {
	case text == "":
		return bad("no summary")
	case refusal.MatchString(text) || refusal.MatchString(title):
		return bad("refusal")
	case echoed.MatchString(text):
		return bad("prompt echoed")
	case hasTitle(p.Kind) && title == "":
		return bad("no title")
	}
	limit := maxTextWords(p.Kind)
	if n := wordCount(text); n > limit {
		if n > limit*3/2 {
			return bad(fmt.Sprintf("overlong: %d words, the limit is %d", n, limit))
		}
		text = endSentence(cutWords(text, limit, limit/2))
	}
	if !hasTitle(p.Kind) {
		title = ""
	} else {
		title = makeTitle(strings.TrimRight(title, "."))
	}
	if label == "" {
		from := title
		if from == "" {
			from = firstSentence(text)
		}
		label = from
	}
	s := Summary{Kind: p.Kind, Title: title, Text: text, Label: makeLabel(label), Source: source,
		InputHash: p.InputHash, MadeAt: now.UTC()}
	if err := s.Validate(); err != nil {
		return bad(err.Error())
	}
	return s, nil
}

// unquote removes quotes wrapped around a whole reply field.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"`", "`"}} {
		if len(s) >= 2 && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			inner := s[len(q[0]) : len(s)-len(q[1])]
			if !strings.ContainsAny(inner, q[0]+q[1]) {
				return strings.TrimSpace(inner)
			}
		}
	}
	return s
}
