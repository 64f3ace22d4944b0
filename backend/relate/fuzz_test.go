package relate

import (
	"strings"
	"testing"

	"rhizome/backend/link"
)

// Refs never panics, and every reference it returns is a bare number or a
// URL the link vocabulary accepts.
func FuzzRefs(f *testing.F) {
	for _, s := range []string{"https://github.com/o/r/issues/1 #2", "issue 3, (#4) #b5bd68", "http://[::1", "https://x.y/#frag."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range Refs(text) {
			if strings.HasPrefix(r, "#") {
				continue
			}
			if it, err := link.Parse(r); err != nil || it.Kind != link.KindURL {
				t.Fatalf("%q gave ref %q: %v", text, r, err)
			}
		}
	})
}
