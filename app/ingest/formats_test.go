package ingest

import (
	"testing"

	"rhizome/backend/sessionformat"
)

// The import's format names are sessionformat's.
func TestFormatNames(t *testing.T) {
	if formatPi != sessionformat.Pi || formatClaudeCode != sessionformat.ClaudeCode || formatCodex != sessionformat.Codex ||
		formatQwen != sessionformat.QwenCode {
		t.Errorf("the import's format names %q %q %q %q, sessionformat's %q %q %q %q", formatPi, formatClaudeCode, formatCodex, formatQwen,
			sessionformat.Pi, sessionformat.ClaudeCode, sessionformat.Codex, sessionformat.QwenCode)
	}
}
