package summary

import (
	"fmt"
	"strings"
	"time"
)

// Which summary an item shows, of those made for it.
//
// An item may hold several summaries at once: the offline one, pi's (a
// compaction or branch summary), a model's, and a person's edit. The rules:
//
//  1. A person's edit in force wins, field by field: an edited title or
//     text is shown whatever else is made later, and is never replaced by a
//     model's (a field the person left alone shows the generated one).
//  2. Of the generated ones, a fresh one (made from the item's current
//     inputs) wins over a stale one: the UI shows the offline summary of
//     what is there now until the model's arrives.
//  3. Among fresh ones: a model's, then pi's, then the offline one.
//  4. When none is fresh, the newest (by MadeAt), so that a model failure
//     leaves the previous summary in place.

// rank orders the generated sources: a model's first, then pi's, then the
// offline summarizer's.
func rank(source string) int {
	switch {
	case strings.HasPrefix(source, modelPrefix):
		return 3
	case source == SourcePi:
		return 2
	case source == SourceOffline:
		return 1
	}
	return 0
}

// IsModel reports whether source is a model's ("model:<provider>/<model>").
func IsModel(source string) bool { return strings.HasPrefix(source, modelPrefix) }

// Choose returns the index in generated of the summary to show for an item
// whose current input hash is current (rules 2 to 4 above), or -1 when
// generated holds none. Human summaries in generated are ignored: see
// Shown.
func Choose(generated []Summary, current string) int {
	best := -1
	for i, s := range generated {
		if rank(s.Source) == 0 {
			continue
		}
		if best < 0 || better(s, generated[best], current) {
			best = i
		}
	}
	return best
}

// better reports whether a beats b for an item whose inputs hash to current.
func better(a, b Summary, current string) bool {
	af, bf := a.InputHash == current, b.InputHash == current
	switch {
	case af != bf:
		return af
	case af: // both fresh
		if rank(a.Source) != rank(b.Source) {
			return rank(a.Source) > rank(b.Source)
		}
		return a.MadeAt.After(b.MadeAt)
	}
	if !a.MadeAt.Equal(b.MadeAt) {
		return a.MadeAt.After(b.MadeAt)
	}
	return rank(a.Source) > rank(b.Source)
}

// Shown is the summary an item shows: generated (the one Choose picked;
// zero when none) with a person's edit laid over it (rule 1): the edit's
// title and text where it set them (an empty field leaves the generated
// one), its label when it has one (see Edit), else the generated label.
// Source is SourceHuman when the edit set any field.
// edit is nil when no edit is in force.
func Shown(generated Summary, edit *Summary) Summary {
	if edit == nil {
		return generated
	}
	out := generated
	out.Kind = edit.Kind
	if edit.Title != "" {
		out.Title = edit.Title
	}
	if edit.Text != "" {
		out.Text = edit.Text
	}
	if edit.Title != "" || edit.Text != "" {
		out.Source, out.MadeAt = SourceHuman, edit.MadeAt
		if edit.Label != "" {
			out.Label = edit.Label
		}
		if out.Label == "" {
			from := out.Title
			if from == "" {
				from = firstSentence(out.Text)
			}
			out.Label = makeLabel(from)
		}
	}
	return out
}

// Edit is the record of a person's edit of an item's title or text (or
// both): an empty field is left alone, so the generated one shows through
// (see Shown). The label is made from the edited title; for a kind without
// a title, from the edited text's first sentence; else it is empty (the
// label follows the title, which is then the generated one). inputHash is
// the hash of the inputs the person saw. It returns an error wrapping ErrInvalid when both fields are
// empty, a title is given to a kind that has none, or a field is over its
// limit.
func Edit(kind Kind, title, text, inputHash string, now time.Time) (Summary, error) {
	title, text = strings.TrimSpace(title), strings.TrimSpace(text)
	if title == "" && text == "" {
		return Summary{}, fmt.Errorf("%w: %s summary: an edit needs a title or a text", ErrInvalid, kind)
	}
	if title != "" && !hasTitle(kind) {
		return Summary{}, fmt.Errorf("%w: %s summary: field title: a %s has no title", ErrInvalid, kind, kind)
	}
	// Validate the fields as a whole summary would hold them.
	probe := Summary{Kind: kind, Title: title, Text: text, Source: SourceHuman, InputHash: inputHash, MadeAt: now.UTC()}
	if probe.Text == "" {
		probe.Text = "x"
	}
	if probe.Title == "" && hasTitle(kind) {
		probe.Title = "x"
	}
	label := ""
	switch {
	case title != "":
		label = makeLabel(title)
	case !hasTitle(kind):
		label = makeLabel(firstSentence(text))
	}
	probe.Label = label
	if probe.Label == "" {
		probe.Label = "Edited"
	}
	if err := probe.Validate(); err != nil {
		return Summary{}, err
	}
	return Summary{Kind: kind, Title: title, Text: text, Label: label, Source: SourceHuman,
		InputHash: inputHash, MadeAt: now.UTC()}, nil
}
