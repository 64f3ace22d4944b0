package ingest

import (
	"testing"

	"rhizome/backend/copilot"
	"rhizome/backend/gemini"
	"rhizome/backend/opencode"
	"rhizome/backend/sessionformat"
)

// The import's format names are sessionformat's.
func TestFormatNames(t *testing.T) {
	if formatPi != sessionformat.Pi || formatClaudeCode != sessionformat.ClaudeCode || formatCodex != sessionformat.Codex ||
		formatQwen != sessionformat.QwenCode || formatCopilot != sessionformat.Copilot || sessionformat.Copilot != copilot.Format {
		t.Errorf("the import's format names %q %q %q %q %q, sessionformat's %q %q %q %q %q (copilot.Format %q)", formatPi, formatClaudeCode, formatCodex,
			formatQwen, formatCopilot, sessionformat.Pi, sessionformat.ClaudeCode, sessionformat.Codex, sessionformat.QwenCode, sessionformat.Copilot,
			copilot.Format)
	}
	if formatGemini != sessionformat.Gemini || sessionformat.Gemini != gemini.Format {
		t.Errorf("the import's Gemini CLI format %q, sessionformat's %q, gemini.Format %q", formatGemini, sessionformat.Gemini, gemini.Format)
	}
	if formatOpenCode != sessionformat.OpenCode || sessionformat.OpenCode != opencode.Format {
		t.Errorf("the import's OpenCode format %q, sessionformat's %q, opencode.Format %q", formatOpenCode, sessionformat.OpenCode, opencode.Format)
	}
}
