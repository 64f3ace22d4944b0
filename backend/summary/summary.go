// Package summary says in a few words what every session, segment, loom node,
// loom tree and project is about: offline, from the entries themselves, and
// with a model, through prompts this package builds and replies it checks.
//
// Offline summaries are the default and must read well. They use what the
// session file already says first: a session_info name is the user's title;
// pi's compaction and branch_summary texts are model-written summaries of
// the entries before them (see Digest). Then they extract from the user's
// requests (noise stripped, the sentence that asks for something chosen and
// rewritten as an imperative: see CleanUserText) and from the outcome the
// assistant reported at the end of each request ("Added X", "Released v1.2").
// Labels come from summaries, never from file names.
//
// A summary records where it came from (Source) and a hash of what it was
// made from (InputHash, one function per kind): it is stale when the hash of
// the current inputs differs. The caller keeps a previous summary when a
// model's reply fails ParseReply.
//
// See aspen-grove-core-entities.md, "Summary Generation", adapted to sessions
// and segments by issue 8.
package summary

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is what a summary summarises.
type Kind string

// Summary kinds.
const (
	KindSession  Kind = "session"  // title + 2-3 sentences
	KindSegment  Kind = "segment"  // one sentence (at most 30 words) + a 3-6 word label: a knowledge-graph node
	KindLoomNode Kind = "loomNode" // one sentence
	KindLoomTree Kind = "loomTree" // title + 2 sentences
	KindProject  Kind = "project"  // title + what its sessions were about
)

// Sources of a summary. A model's source is ModelSource(provider, model).
//
// SourcePi marks a summary the session's agent itself wrote into the
// session file (named for pi, the first; Codex's compacted lines too): a
// compaction's text is the agent's (model-written) summary of the work
// before it, a branch_summary's of the branch the user left. Rhizome reads them
// (ParseDigest) and shows them as the summary of the segment they
// summarise (see Pass and Accumulator.Segment), under this source, so a
// reader can tell them from Rhizome's own offline summaries.
const (
	SourceOffline = "offline"
	SourceHuman   = "human"
	SourcePi      = "pi"
	modelPrefix   = "model:"
)

// ModelSource is the source of a summary a model wrote:
// "model:<provider>/<model>" ("model:anthropic/claude-haiku-4-5").
func ModelSource(provider, model string) string {
	return modelPrefix + provider + "/" + model
}

// OfflineVersion names the rules of the offline summarizer. It is not part
// of any InputHash (a model's summary does not go stale when these rules
// change); bump it when a rule changes, so that the app can remake its
// offline summaries.
const OfflineVersion = "offline-1"

// Summary says what one item is about.
type Summary struct {
	Kind Kind `json:"kind"` // what it summarises
	// Title names the item (sessions, loom trees, projects; "" for segments
	// and loom nodes): at most MaxTitleRunes runes, no end period.
	Title string `json:"title,omitempty"`
	// Text is the summary proper: one sentence for segments and loom nodes,
	// two or three for sessions and loom trees, a few for projects.
	Text string `json:"text"`
	// Label is 3 to 6 words for a graph node, a tree map or a lane; set for
	// every kind.
	Label string `json:"label"`
	// Source is SourceOffline, SourcePi, SourceHuman or
	// ModelSource(provider, model).
	Source string `json:"source"`
	// InputHash is the hash of the inputs the summary was made from (see
	// SessionHash, SegmentHash, LoomNodeHash, LoomTreeHash, ProjectHash).
	InputHash string `json:"inputHash"`
	// MadeAt is when the summary was made, UTC.
	MadeAt time.Time `json:"madeAt"`
}

// Stale reports whether the summary was made from other inputs than those
// whose hash is current.
func (s Summary) Stale(current string) bool { return s.InputHash != current }

// Limits of a summary, per field.
const (
	MaxTitleRunes    = 100 // a title
	MinLabelWords    = 1   // a label may be one word only when nothing longer is known
	MaxLabelWords    = 6   // a label
	MaxSentenceWords = 30  // the one sentence of a segment or loom node
	MaxTextWords     = 120 // the text of a session or loom tree
	MaxProjectWords  = 160 // the text of a project
	labelTargetWords = 3   // the fewest words a label is cut to when it can be
)

// maxTextWords is the longest text of a kind, in words.
func maxTextWords(k Kind) int {
	switch k {
	case KindSegment, KindLoomNode:
		return MaxSentenceWords
	case KindProject:
		return MaxProjectWords
	}
	return MaxTextWords
}

// hasTitle reports whether summaries of kind k have a title.
func hasTitle(k Kind) bool { return k == KindSession || k == KindLoomTree || k == KindProject }

// ErrInvalid is what Validate's errors wrap.
var ErrInvalid = errors.New("summary: invalid")

// Validate reports what is wrong with a summary: an unknown kind, an empty
// text, a text, title or label over its limit (MaxSentenceWords,
// MaxTextWords, MaxProjectWords, MaxTitleRunes, MaxLabelWords), a title on a
// kind that has none (or none on one that has), invalid UTF-8, an unknown
// source, no input hash or no time. Errors wrap ErrInvalid and name the field.
func (s Summary) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s summary: %s", ErrInvalid, s.Kind, fmt.Sprintf(format, args...))
	}
	switch s.Kind {
	case KindSession, KindSegment, KindLoomNode, KindLoomTree, KindProject:
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrInvalid, s.Kind)
	}
	for field, v := range map[string]string{"title": s.Title, "text": s.Text, "label": s.Label} {
		if !utf8.ValidString(v) {
			return bad("field %s is not valid UTF-8", field)
		}
	}
	switch {
	case strings.TrimSpace(s.Text) == "":
		return bad("field text is empty")
	case wordCount(s.Text) > maxTextWords(s.Kind):
		return bad("field text has %d words, the limit is %d", wordCount(s.Text), maxTextWords(s.Kind))
	case hasTitle(s.Kind) && strings.TrimSpace(s.Title) == "":
		return bad("field title is empty")
	case !hasTitle(s.Kind) && s.Title != "":
		return bad("field title must be empty")
	case utf8.RuneCountInString(s.Title) > MaxTitleRunes:
		return bad("field title has %d runes, the limit is %d", utf8.RuneCountInString(s.Title), MaxTitleRunes)
	case wordCount(s.Label) < MinLabelWords:
		return bad("field label is empty")
	case wordCount(s.Label) > MaxLabelWords:
		return bad("field label has %d words, the limit is %d", wordCount(s.Label), MaxLabelWords)
	case s.Source != SourceOffline && s.Source != SourceHuman && s.Source != SourcePi && !validModelSource(s.Source):
		return bad("field source %q: want %q, %q, %q or \"model:<provider>/<model>\"", s.Source, SourceOffline, SourcePi, SourceHuman)
	case s.InputHash == "":
		return bad("field inputHash is empty")
	case s.MadeAt.IsZero():
		return bad("field madeAt is not set")
	}
	return nil
}

func validModelSource(s string) bool {
	rest, ok := strings.CutPrefix(s, modelPrefix)
	p, m, ok2 := strings.Cut(rest, "/")
	return ok && ok2 && p != "" && m != ""
}

// Human makes the summary a person wrote or edited: source SourceHuman,
// white space trimmed, a missing label derived from the title or text.
// inputHash is the hash of the inputs the person saw; a human summary is
// never replaced by a model's, whatever its staleness (the app's rule). The
// error, wrapping ErrInvalid, says which field is over its limit.
func Human(kind Kind, title, text, label, inputHash string, now time.Time) (Summary, error) {
	s := Summary{
		Kind:      kind,
		Title:     strings.TrimSpace(title),
		Text:      strings.TrimSpace(text),
		Label:     collapseSpace(label),
		Source:    SourceHuman,
		InputHash: inputHash,
		MadeAt:    now.UTC(),
	}
	if s.Label == "" {
		from := s.Title
		if from == "" {
			from = firstSentence(s.Text)
		}
		s.Label = makeLabel(from)
	}
	return s, s.Validate()
}

// firstSentence is the first sentence of s ("" for none).
func firstSentence(s string) string {
	if ss := Sentences(s); len(ss) > 0 {
		return ss[0]
	}
	return ""
}

// makeLabel cuts a phrase to a label: at most MaxLabelWords words at a
// phrase boundary, end punctuation removed, first letter capitalised.
func makeLabel(phrase string) string {
	phrase = softener.ReplaceAllString(labelFiller.ReplaceAllString(phrase, " "), "$2")
	l := cutWords(strings.TrimRight(collapseSpace(phrase), " .!?…"), MaxLabelWords, labelTargetWords)
	return capitalize(strings.TrimRight(l, " .!?…,;:"))
}

// labelFiller are words a label can do without, and softener the
// softening of a comparative ("a bit better").
var (
	labelFiller = regexp.MustCompile(`(?i)\s(really|very|just|also|still|probably|maybe|actually|basically|please|quickly|real quick)\b`)
	softener    = regexp.MustCompile(`(?i)\s(a bit|a little|a lot|slightly|somewhat)(\s(?:more|less|\w+er)\b)`)
)

// makeTitle cuts a phrase to a title: at most 12 words and MaxTitleRunes
// runes, at a phrase boundary, without end period (a question keeps its
// question mark).
func makeTitle(phrase string) string {
	t := collapseSpace(phrase)
	t = cutWords(t, 12, 5)
	for utf8.RuneCountInString(t) > MaxTitleRunes-1 {
		t = cutWords(t, wordCount(t)-1, 3)
	}
	return capitalize(strings.TrimRight(t, " .!,;:"))
}
