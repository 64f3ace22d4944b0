package knowledge

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var showMatched = flag.Bool("labelled.matched", false, "TestLabelledSet: with -labelled.show, print the items that match a label too")

var showLabelled = flag.String("labelled.show", "", "TestLabelledSet: print the misses and the unmatched items of these sessions (comma-separated file names, or \"tune\")")

// labelledSet is testdata/labelled.json: the knowledge stated in the real
// sessions, labelled by hand before the rules were tuned (see its "about").
type labelledSet struct {
	About   string     `json:"about"`
	HeldOut string     `json:"heldOut"`
	Tune    []string   `json:"tune"`
	Notes   string     `json:"notes,omitempty"`
	Items   []labelled `json:"items"`
}

// labelled is one hand-labelled item: its kind, the session file and the
// 1-based lines that state it.
type labelled struct {
	ID          string `json:"id"`
	Session     string `json:"session"`
	Kind        Kind   `json:"kind"`
	Lines       []int  `json:"lines"`
	By          string `json:"by"`
	Statement   string `json:"statement"`
	AnswerLines []int  `json:"answerLines,omitempty"`
}

// labelledKinds are the kinds the set labels; the rules make no others.
var labelledKinds = []Kind{KindDecision, KindProjectFact, KindCorrection, KindFailedApproach, KindQuestion}

// tally counts one kind (or all) of one session (or several).
type tally struct {
	extracted, correct int // items the rules made; of them, those matching a label
	labels, found      int // labelled items; of them, those some item matches
}

func (t *tally) add(o tally) {
	t.extracted += o.extracted
	t.correct += o.correct
	t.labels += o.labels
	t.found += o.found
}

// precision and recall; a tally with nothing to divide by scores 1.
func (t tally) precision() float64 { return ratio(t.correct, t.extracted) }
func (t tally) recall() float64    { return ratio(t.found, t.labels) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (t tally) String() string {
	return fmt.Sprintf("precision %.2f (%d/%d)  recall %.2f (%d/%d)",
		t.precision(), t.correct, t.extracted, t.recall(), t.found, t.labels)
}

// scored is one session's result: a tally per kind, the labels missed and
// the items that matched no label.
type scored struct {
	byKind    map[Kind]*tally
	missed    []labelled
	unmatched []string
	matched   []string
}

func (s scored) total() tally {
	var t tally
	for _, k := range labelledKinds {
		t.add(*s.byKind[k])
	}
	return t
}

// scoreSession runs the offline rules over one session the way the importer
// does (extractFileLines: one Extractor per segment) and matches what they
// find against the session's labels.
//
// The matching rule: an item matches a label when it is of the label's kind
// and the entry it was found in (its first entry id, the message whose text
// states it; a question's answer and a correction's preceding reply come
// after it) lies on one of the label's lines. Lines stand for messages: a
// line holds one message, or two where objects are concatenated, and a label
// lists every line where its statement is made. An item is correct when it
// matches some label, so two items stating one label are both correct (the
// count of such repeats is logged); a label is found when some item
// matches it.
func scoreSession(t *testing.T, path string, labels []labelled) scored {
	t.Helper()
	items, lines := extractFileLines(t, path)
	res := scored{byKind: map[Kind]*tally{}}
	for _, k := range labelledKinds {
		res.byKind[k] = &tally{}
	}
	found := make([]bool, len(labels))
	for _, l := range labels {
		res.byKind[l.Kind].labels++
	}
	for _, it := range items {
		tl := res.byKind[it.Kind]
		if tl == nil {
			tl = &tally{}
			res.byKind[it.Kind] = tl
		}
		tl.extracted++
		line := lines[it.Source.EntryIDs[0]]
		ok := false
		for i, l := range labels {
			if l.Kind == it.Kind && slices.Contains(l.Lines, line) {
				ok = true
				found[i] = true
			}
		}
		desc := fmt.Sprintf("line %d %s [%s]: %s", line, it.Kind, it.Source.Rule, it.Title())
		if it.Question != nil {
			desc += " — " + it.Question.Answer
		}
		if it.Decision != nil && it.Decision.Rationale != "" {
			desc += " (because " + it.Decision.Rationale + ")"
		}
		if ok {
			tl.correct++
			res.matched = append(res.matched, desc)
		} else {
			res.unmatched = append(res.unmatched, desc)
		}
	}
	for i, l := range labels {
		if found[i] {
			res.byKind[l.Kind].found++
		} else {
			res.missed = append(res.missed, l)
		}
	}
	return res
}

// TestLabelledSet measures the offline rules against the hand-labelled
// knowledge of the three real sessions (testdata/labelled.json): precision
// and recall per kind and overall, for the two sessions the rules were tuned
// on and for the held-out one, logged, and held above floors that a
// regression would break. The floors sit a little under the figures the
// rules reach now (see the log), not at them, so a new rule that trades one
// item for a better one still passes.
func TestLabelledSet(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "labelled.json"))
	if err != nil {
		t.Fatal(err)
	}
	var set labelledSet
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	bySession := map[string][]labelled{}
	for _, l := range set.Items {
		if !l.Kind.Valid() || !slices.Contains(labelledKinds, l.Kind) || len(l.Lines) == 0 || l.Statement == "" {
			t.Fatalf("label %s: bad kind %q, lines %v or statement %q", l.ID, l.Kind, l.Lines, l.Statement)
		}
		bySession[l.Session] = append(bySession[l.Session], l)
	}
	sessions := append(slices.Clone(set.Tune), set.HeldOut)
	if len(bySession) != len(sessions) {
		t.Fatalf("labels name %d sessions, tune + held out are %d", len(bySession), len(sessions))
	}
	show := map[string]bool{}
	for _, s := range strings.Split(*showLabelled, ",") {
		if s == "tune" {
			for _, tu := range set.Tune {
				show[tu] = true
			}
		} else if s != "" {
			show[s] = true
		}
	}

	var tune, held tally
	tuneKind, heldKind := map[Kind]*tally{}, map[Kind]*tally{}
	for _, k := range labelledKinds {
		tuneKind[k], heldKind[k] = &tally{}, &tally{}
	}
	for _, name := range sessions {
		res := scoreSession(t, filepath.Join(realDir, name), bySession[name])
		role, sum, sumKind := "tune", &tune, tuneKind
		if name == set.HeldOut {
			role, sum, sumKind = "held out", &held, heldKind
		}
		t.Logf("%s (%s): %s", name, role, res.total())
		for _, k := range labelledKinds {
			tl := *res.byKind[k]
			t.Logf("    %-15s %s", k, tl)
			sumKind[k].add(tl)
		}
		for k, tl := range res.byKind {
			if !slices.Contains(labelledKinds, k) && tl.extracted > 0 {
				t.Errorf("%s: %d items of kind %s, which the set does not label", name, tl.extracted, k)
			}
		}
		sum.add(res.total())
		if show[name] {
			for _, l := range res.missed {
				t.Logf("  missed %s %s lines %v: %s", l.ID, l.Kind, l.Lines, l.Statement)
			}
			for _, u := range res.unmatched {
				t.Logf("  unmatched %s", u)
			}
			if *showMatched {
				for _, m := range res.matched {
					t.Logf("  matched %s", m)
				}
			}
		}
	}
	all := tune
	all.add(held)
	t.Logf("tune sessions (%s): %s", strings.Join(set.Tune, ", "), tune)
	for _, k := range labelledKinds {
		t.Logf("    %-15s %s", k, *tuneKind[k])
	}
	t.Logf("held out (%s): %s", set.HeldOut, held)
	for _, k := range labelledKinds {
		t.Logf("    %-15s %s", k, *heldKind[k])
	}
	t.Logf("all three: %s", all)

	// Floors, a little under the figures reached (knowledge-offline-2):
	// tune sessions precision 0.96 (66/69), recall 0.70 (66/94); held out
	// 0.91 (10/11), 0.43 (10/23); all three 0.95 (76/80), 0.65 (76/117).
	// The rules before them (knowledge-offline-1) reached 1.00 (12/12) and
	// 0.13 (12/94) on the tune sessions, 1.00 (1/1) and 0.04 (1/23) held
	// out.
	floors := []struct {
		name              string
		t                 tally
		precision, recall float64
	}{
		{"tune sessions", tune, 0.93, 0.67},
		{"held-out session", held, 0.80, 0.39},
		{"all three", all, 0.92, 0.62},
	}
	for _, f := range floors {
		if f.t.precision() < f.precision || f.t.recall() < f.recall {
			t.Errorf("%s: %s; the floors are precision %.2f, recall %.2f", f.name, f.t, f.precision, f.recall)
		}
	}
}
