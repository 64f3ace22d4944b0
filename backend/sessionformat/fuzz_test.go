package sessionformat

import "testing"

// FuzzDetect: any input gets a format and a reason, never a panic.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"", "{", "[", `{"type":"session","id":"s"}`, `{"nodes":{"1":{"node_id":1,"kind":"task"}}}`, "\xEF\xBB\xBF[", "<graphml", "---\nTapestryLoomWeave"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		format, why := Detect(b)
		if why == "" {
			t.Fatalf("no reason for %q (format %q)", b, format)
		}
	})
}
