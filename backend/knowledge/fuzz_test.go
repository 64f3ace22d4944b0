package knowledge

import (
	"testing"
	"time"
)

// The offline rules never panic and never yield an invalid item, whatever
// the user and the assistant wrote.
func FuzzExtractor(f *testing.F) {
	for _, s := range []string{"never use sync I/O in request handlers", "That's wrong, X is Y. ok", "don't we?",
		"no, let's go", "Instead of , let's", "use x, not", "the invariant that must", "\x00\xff [[x]] ```", "What does it do?"} {
		f.Add(s, "Yes, it does. Let me check:")
	}
	f.Fuzz(func(t *testing.T, user, reply string) {
		x := NewExtractor()
		for i := 0; i < 2; i++ {
			u := userEntry("u", user, t0)
			a := assistantEntry("a", reply, t0.Add(time.Second))
			x.Add(&u)
			x.Add(&a)
		}
		for _, it := range x.Items(Source{Project: "/p", SessionID: "s", SegmentNodeID: "n"}, t0) {
			if err := it.Validate(); err != nil {
				t.Fatalf("%q / %q: %v", user, reply, err)
			}
		}
	})
}
