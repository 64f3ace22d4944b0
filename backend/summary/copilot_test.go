package summary

import (
	"strings"
	"testing"

	"rhizome/backend/copilot"
)

// The real GitHub Copilot CLI session (backend/copilot/testdata) changes
// two files: ledger.py with edit, and CHANGELOG.md, which its create tool
// ({path, file_text}) makes. Both are files edited.
func TestCopilotCreateIsAnEdit(t *testing.T) {
	s, err := copilot.ReadFile("../copilot/testdata/copilot-home/session-state/c0b1d2e3-4f56-4789-8abc-def012345678/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAccumulator()
	for i := range s.Entries {
		a.Add(&s.Entries[i])
	}
	const dir = "/tmp/rhizome-copilot-fixtures/work/ledger-cli/"
	if _, ok := a.files[dir+"CHANGELOG.md"]; !ok || len(a.fileOrder) != 2 || a.fileOrder[0] != dir+"ledger.py" {
		t.Errorf("files edited %q, want ledger.py then CHANGELOG.md", a.fileOrder)
	}
	if sum := a.Session(s.Header.ID, s.Header.Cwd, madeAt); !strings.Contains(sum.Text, "2 files edited") {
		t.Errorf("summary %q: want 2 files edited", sum.Text)
	}
}
