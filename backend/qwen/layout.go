package qwen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The files of a project (testdata/generate/README.md, "Where"):
//
//	~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl          a session or a fork
//	~/.qwen/projects/<sanitized cwd>/subagents/<parent sessionId>/agent-<agentId>.jsonl
//	~/.qwen/projects/<sanitized cwd>/subagents/<parent sessionId>/agent-<agentId>.meta.json

// AgentMeta is a sub-agent's sidecar, agent-<agentId>.meta.json: the call
// that spawned it (ToolUseID is the agent tool call's id in the parent
// session, ParentSessionID that session), its type, model and depth.
type AgentMeta struct {
	AgentID         string `json:"agentId"`
	AgentType       string `json:"agentType"`
	SubagentName    string `json:"subagentName"`
	Description     string `json:"description"`
	ParentSessionID string `json:"parentSessionId"`
	ToolUseID       string `json:"toolUseId"`
	Status          string `json:"status"`
	Model           string `json:"model"`
	Depth           int    `json:"depth"`
}

var agentFile = regexp.MustCompile(`^agent-(.+)\.jsonl$`)

// AgentMetaOf reads the sidecar of the sub-agent transcript at path
// (<dir>/agent-<agentId>.jsonl): <dir>/agent-<agentId>.meta.json. ok is
// false when path is not a sub-agent transcript's or its sidecar is
// missing, not a regular file, or does not parse.
func AgentMetaOf(path string) (meta *AgentMeta, ok bool) {
	m := agentFile.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return nil, false
	}
	side := filepath.Join(filepath.Dir(path), "agent-"+m[1]+".meta.json")
	if fi, err := os.Stat(side); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, false // a pipe is never opened; a sidecar is a few hundred bytes
	}
	b, err := os.ReadFile(side)
	if err != nil {
		return nil, false
	}
	var am AgentMeta
	if json.Unmarshal(b, &am) != nil {
		return nil, false
	}
	return &am, true
}

// SubagentFile is a sub-agent transcript of a session, with its sidecar.
type SubagentFile struct {
	Path    string
	AgentID string
	Meta    *AgentMeta // nil when there is no readable sidecar
}

// SubagentsDir returns the folder of the sub-agent transcripts of the
// session file at sessionPath (<project>/chats/<sessionId>.jsonl):
// <project>/subagents/<sessionId>.
func SubagentsDir(sessionPath string) string {
	project := filepath.Dir(filepath.Dir(sessionPath))
	return filepath.Join(project, "subagents", strings.TrimSuffix(filepath.Base(sessionPath), ".jsonl"))
}

// Subagents lists the sub-agent transcripts of the session at sessionPath
// (SubagentsDir/agent-*.jsonl, sorted by name) with their sidecars. A
// session without sub-agents gives none and no error.
func Subagents(sessionPath string) ([]SubagentFile, error) {
	dir := SubagentsDir(sessionPath)
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("qwen: unable to list sub-agents: %w", err)
	}
	var out []SubagentFile
	for _, e := range ents {
		m := agentFile.FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil {
			continue
		}
		f := SubagentFile{Path: filepath.Join(dir, e.Name()), AgentID: m[1]}
		f.Meta, _ = AgentMetaOf(f.Path)
		out = append(out, f)
	}
	return out, nil
}
