package app

import (
	"strings"
	"testing"

	"rhizome/backend/pisession/pitest"
)

// Issue 8, section 1: a project says what its sessions were about. Over the
// three real samples, once the worker has made it, Library.Projects gives
// the project's summary (naming its sessions' titles) and where it came from.
func TestProjectsCarryTheirSummary(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, pitest.Samples()...)
	l.summarize(t, SummarizeOptions{})
	ps, err := l.Library.Projects()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("projects %+v", ps)
	}
	p := ps[0]
	if p.SummarySource != "offline" || !strings.Contains(p.Summary, "Allow startup without API keys (#288)") {
		t.Errorf("project %+v: want the offline summary naming its sessions", p)
	}
}
