package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"rhizome/backend/session"
)

// The files around a session (claude-code-codex-formats.md §1.1):
//
//	<project>/<sessionId>.jsonl
//	<project>/<sessionId>/subagents/agent-<agentId>.jsonl (+ .meta.json)
//	<project>/<sessionId>/tool-results/<id>.txt

// SessionDir returns the folder beside a session file that holds its
// sub-agents and tool results: the path without ".jsonl".
func SessionDir(sessionPath string) string {
	return strings.TrimSuffix(sessionPath, ".jsonl")
}

// AgentMeta is a sub-agent's sidecar, agent-<agentId>.meta.json: the call
// that spawned it (ToolUseID is the Task/Agent tool_use id in the parent
// session), its type and depth.
type AgentMeta struct {
	AgentType   string `json:"agentType"`
	Description string `json:"description"`
	ToolUseID   string `json:"toolUseId"`
	SpawnDepth  int    `json:"spawnDepth"`
	Model       string `json:"model"`
}

// AgentMetaOf reads the sidecar of the sub-agent transcript at path
// (<dir>/agent-<agentId>.jsonl): <dir>/agent-<agentId>.meta.json. ok is
// false when path is not a sub-agent transcript's or its sidecar is
// missing or does not parse.
func AgentMetaOf(path string) (meta *AgentMeta, ok bool) {
	m := agentFile.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(path), "agent-"+m[1]+".meta.json"))
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

var agentFile = regexp.MustCompile(`^agent-(.+)\.jsonl$`)

// Subagents lists the sub-agent transcripts of the session at sessionPath
// (<sessionDir>/subagents/agent-*.jsonl, sorted by name) with their
// sidecars. A session without sub-agents gives none and no error; a
// sidecar that does not parse leaves Meta nil.
func Subagents(sessionPath string) ([]SubagentFile, error) {
	dir := filepath.Join(SessionDir(sessionPath), "subagents")
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claudecode: unable to list sub-agents: %w", err)
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

// PersistedOutput is a tool output Claude Code saved to tool-results/
// because it was too large for the line, which keeps only a preview in a
// <persisted-output> block (and toolUseResult.persistedOutputPath).
type PersistedOutput struct {
	// RecordedPath is the path the line names, on the machine that wrote
	// it; Path is the file beside this session it resolves to; Name its
	// base name.
	RecordedPath string
	Path         string
	Name         string
	// Size is the file's size in bytes (0 when it is missing); Content its
	// bytes, nil when it is missing or larger than MaxPersistedOutputBytes
	// (Err says which).
	Size    int64
	Content []byte
	Err     error
}

// MaxPersistedOutputBytes is the largest tool-results/ file PersistedOutputs
// reads (32 MiB): a larger one is named, its size given, and not read.
const MaxPersistedOutputBytes = 32 << 20

// ErrPersistedOutputTooLarge matches (errors.Is) PersistedOutput.Err for a
// file larger than MaxPersistedOutputBytes.
var ErrPersistedOutputTooLarge = errors.New("larger than 32 MiB")

var persistedPath = regexp.MustCompile(`(?:Full output saved to|Output saved to|saved to):\s*(\S+)`)

// PersistedOutputs resolves the <persisted-output> pointers of a tool
// result entry read from the session file at sessionPath: each recorded
// path is looked up by its base name (the recorded path belongs to the
// machine and HOME that wrote the file, and is never opened itself) in
// <sessionDir>/tool-results/, and for a sub-agent transcript
// (<sessionDir>/subagents/agent-<id>.jsonl) in its session's, then read
// (at most MaxPersistedOutputBytes). The entry itself is left as it is (its
// Raw stays exact). An entry without pointers gives none.
func PersistedOutputs(sessionPath string, e *session.Entry) []PersistedOutput {
	if e == nil || e.Message == nil || e.Message.Role != session.RoleToolResult {
		return nil
	}
	seen := map[string]bool{}
	var recorded []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			recorded = append(recorded, p)
		}
	}
	var r wireToolUseResult
	// Most tool results name no file: the field is looked for before the
	// object is decoded (every tool result of an import comes here).
	if d := e.Message.Details; len(d) > 0 && d[0] == '{' && bytes.Contains(d, []byte(`"persistedOutputPath"`)) && json.Unmarshal(d, &r) == nil {
		add(r.PersistedOutputPath)
	}
	for _, b := range e.Message.Content {
		if b.Type == session.BlockText && strings.Contains(b.Text, "<persisted-output>") {
			for _, m := range persistedPath.FindAllStringSubmatch(b.Text, -1) {
				add(m[1])
			}
		}
	}
	dirs := []string{filepath.Join(SessionDir(sessionPath), "tool-results")}
	if parent := filepath.Dir(sessionPath); filepath.Base(parent) == "subagents" {
		dirs = append(dirs, filepath.Join(filepath.Dir(parent), "tool-results"))
	}
	out := make([]PersistedOutput, 0, len(recorded))
	for _, p := range recorded {
		name := filepath.Base(strings.ReplaceAll(p, "\\", "/"))
		po := PersistedOutput{RecordedPath: p, Name: name, Path: filepath.Join(dirs[0], name)}
		if name == "." || name == ".." || name == "/" {
			po.Err = fmt.Errorf("claudecode: persisted output %q names no file", p)
			out = append(out, po)
			continue
		}
		found := false
		for _, d := range dirs {
			local := filepath.Join(d, name)
			fi, err := os.Stat(local)
			if err != nil || !fi.Mode().IsRegular() {
				continue // a pipe or a device is never opened: it could block or never end
			}
			po.Path, po.Size, found = local, fi.Size(), true
			break
		}
		switch {
		case !found:
			po.Err = fmt.Errorf("claudecode: persisted output %s: no such file: %w", po.Path, os.ErrNotExist)
		case po.Size > MaxPersistedOutputBytes:
			po.Err = fmt.Errorf("claudecode: persisted output %s: %d bytes: %w", po.Path, po.Size, ErrPersistedOutputTooLarge)
		default:
			po.Content, po.Err = readAtMost(po.Path, MaxPersistedOutputBytes)
			if po.Err != nil {
				po.Err = fmt.Errorf("claudecode: unable to read persisted output %s: %w", po.Path, po.Err)
				po.Content = nil
			} else {
				po.Size = int64(len(po.Content))
			}
		}
		out = append(out, po)
	}
	return out
}

// readAtMost reads the file at path, failing with ErrPersistedOutputTooLarge
// when it holds more than limit bytes (it may have grown since it was
// looked at).
func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, ErrPersistedOutputTooLarge
	}
	return b, nil
}

// DedupeKey is what the copies of a line in other files share: a chain
// line's uuid (resumed and forked copies keep it, with a new sessionId;
// keep the earliest). Lines without a uuid (metadata, "L<line>" ids) have
// no key: "".
func DedupeKey(e *session.Entry) string {
	if e == nil || syntheticID.MatchString(e.ID) {
		return ""
	}
	return e.ID
}

var syntheticID = regexp.MustCompile(`^L\d+(\.\d+)?$`)
