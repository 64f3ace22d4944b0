package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/eval"
)

// The hybrid search bridges a question's words to the words an answer is
// written in through WordNet (search.NarrowerIndex): "which city" finds
// the turn that names Spokane, "which animal" the one about a kitten, "how
// she eats" the one that says vegetarian, though none holds a word of its
// question.
func TestHybridFindsNarrowerTerms(t *testing.T) {
	turns := []string{
		"Rent in Spokane went up again. I swear every landlord got the same memo.",
		"Ha! Sprout is my new black shorthair kitten, from the rescue listings.",
		"I went vegetarian last week. So far, so good!",
		"Long day at the office today. I need a nap and a snack.",
		"Did you watch the game last night? The ending was unreal.",
		"My sister and I are planning a surprise for our mom's birthday.",
		"I finally cleaned out my car. Found three water bottles and a sock.",
		"The weather has been so grey lately, I miss the sun.",
	}
	conv := eval.Conversation{ID: "c1", SpeakerA: "Olivia", SpeakerB: "Kenji"}
	s := eval.Session{ID: "session_1", Time: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)}
	for i, text := range turns {
		sp, role := "Olivia", "user"
		if i%2 == 1 {
			sp, role = "Kenji", "assistant"
		}
		s.Turns = append(s.Turns, eval.Turn{ID: "D1:" + string(rune('1'+i)), Speaker: sp, Role: role, Text: text})
	}
	conv.Sessions = []eval.Session{s}
	dir := t.TempDir()
	if _, err := eval.WritePiSessions(&eval.Benchmark{Name: "locomo", Conversations: []eval.Conversation{conv}}, dir); err != nil {
		t.Fatal(err)
	}
	l := newTestLib(t)
	l.StartBackground(false)
	l.importPaths(t, filepath.Join(dir))
	// The keyword index (whose terms the bridges are built over) is
	// brought up to date by the background queue, as in the window.
	if err := l.WaitBackground(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ query, want string }{
		{"which city is that", "Spokane"},
		{"what animal came home", "kitten"},
		{"how has the way she eats changed", "vegetarian"},
	} {
		res, err := l.Search.Hybrid(HybridQuery{Query: c.query, Limit: 3, Filter: SearchFilter{Kinds: []string{"entry"}}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			found = found || strings.Contains(h.Snippet, c.want)
		}
		if !found {
			t.Errorf("%q: no hit with %q among %+v", c.query, c.want, res.Hits)
		}
	}
}
