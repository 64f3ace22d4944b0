package analyze

import (
	"slices"
	"testing"

	"rhizome/backend/copilot"
	"rhizome/backend/graph"
)

// GitHub Copilot CLI's create tool ({path, file_text}) writes a new file:
// an edit of that file, as Claude Code's Write and pi's write are, whose
// text is searched for frameworks.
func TestCopilotCreateIsAWrite(t *testing.T) {
	s := &sessionBuilder{}
	s.user("add a changelog entry for the total() fix")
	s.tool("create", map[string]any{"path": "/home/will/projects/demo/CHANGELOG.md", "file_text": "# Changelog\n\n- total() skips entries without an amount.\n"},
		"Created file /home/will/projects/demo/CHANGELOG.md with 58 characters", false)
	n := s.node()
	if n.Classification.Type != graph.TypeDocumentation || !slices.Equal(n.Content.FilesTouched, []string{"CHANGELOG.md"}) {
		t.Errorf("type %s, files %q: want documentation, CHANGELOG.md", n.Classification.Type, n.Content.FilesTouched)
	}
	s = &sessionBuilder{}
	s.user("start the desktop app")
	s.tool("create", map[string]any{"path": "app.go", "file_text": "package main\n\nimport \"github.com/wailsapp/wails/v2\"\n"}, "Created file app.go", false)
	if n := s.node(); n.Classification.Type != graph.TypeCoding || !slices.Equal(n.Classification.Frameworks, []string{"wails"}) {
		t.Errorf("type %s, frameworks %q: want coding, wails", n.Classification.Type, n.Classification.Frameworks)
	}
}

// The real Copilot CLI session (backend/copilot/testdata) edits ledger.py
// with edit and makes CHANGELOG.md with create: two edits.
func TestCopilotRealSessionEdits(t *testing.T) {
	s, err := copilot.ReadFile("../copilot/testdata/copilot-home/session-state/c0b1d2e3-4f56-4789-8abc-def012345678/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAccumulator()
	for i := range s.Entries {
		a.Add(&s.Entries[i])
	}
	edits := 0
	for _, n := range a.edits {
		edits += n
	}
	const dir = "/tmp/rhizome-copilot-fixtures/work/ledger-cli/"
	if edits != 2 || a.files[dir+"CHANGELOG.md"] == nil || a.files[dir+"ledger.py"] == nil {
		t.Errorf("%d edits, files %v: want 2, ledger.py and CHANGELOG.md", edits, a.files)
	}
}
