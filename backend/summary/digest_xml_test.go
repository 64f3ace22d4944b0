package summary

import (
	"strings"
	"testing"
)

// The XML-tagged summaries other agents write (Qwen Code's state
// snapshot, Copilot CLI's overview; both as their real programs wrote them
// in backend/qwen and backend/copilot testdata) read as sections: no tag
// reaches a digest.
func TestParseDigestXMLSections(t *testing.T) {
	qwen := "<state_snapshot>\n<overall_goal>Add a /health handler to acme-api.</overall_goal>\n" +
		"<file_system_state>MODIFIED: main.go (/health handler). CREATED: NOTES.md.</file_system_state>\n" +
		"<recent_actions>A sub-agent found the routes in main.go line 6.</recent_actions>\n</state_snapshot>\n\n" +
		"Resume the prior task using the summary above."
	d := ParseDigest(qwen)
	if d.Goal != "Add a /health handler to acme-api." {
		t.Errorf("Qwen Code's goal: %+v", d)
	}
	copilot := "<overview>Made total() skip entries without an amount, added CHANGELOG.md, and had a sub-agent review ledger.py.</overview>"
	for _, md := range []string{qwen, copilot} {
		d := ParseDigest(md)
		if d.Empty() {
			t.Errorf("nothing read from %q", md)
		}
		for _, s := range append(append([]string{d.Title, d.Goal, d.Lead}, d.Done...), d.Next...) {
			if strings.ContainsAny(s, "<>") {
				t.Errorf("a tag in the digest of %.30q: %q", md, s)
			}
		}
	}
	// A pi summary that mentions a tag in its prose is read as before.
	pi := "## Goal\nMake <kbd> render in the README\n"
	if d := ParseDigest(pi); d.Goal != ParseDigest(strings.ReplaceAll(pi, "<kbd>", "<kbd>")).Goal || !strings.Contains(d.Goal, "<kbd>") {
		t.Errorf("pi's goal with an unclosed tag: %+v", d)
	}
}
