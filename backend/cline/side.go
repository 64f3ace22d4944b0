package cline

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Side is what lies beside a conversation document that its reading uses:
// the zero Side for a document alone (dropped on the window, or the rows
// of a database exported as one). Bytes that do not parse say nothing.
type Side struct {
	// Manifest is the root session's <id>.json (for a sub-agent, its root
	// session's: the working directory), ManifestName its path.
	Manifest     []byte
	ManifestName string
	// Compaction is <id>.compaction.json, the compacted view of the
	// conversation (the last compaction's), CompactionName its path.
	Compaction     []byte
	CompactionName string
	// Row is the session's row of db/sessions.db (nil: none read).
	Row *IndexRow
	// Subagents are the sub-agents whose conversations lie beside a root
	// session's (<agentId>.messages.json in its folder), with their tasks.
	Subagents []Subagent
}

// Subagent is a sub-agent beside a root session: its agent id and its
// task (its conversation's first message: spawn_agent's "task").
type Subagent struct {
	AgentID string `json:"agentId"`
	Task    string `json:"task"`
}

// MessagesSuffix ends the name of a conversation document:
// <sessionId>.messages.json, <agentId>.messages.json.
const MessagesSuffix = ".messages.json"

// maxSideBytes bounds a manifest or compaction file read beside a
// conversation, and the head of a sub-agent's conversation read for its
// task.
const maxSideBytes = 16 << 20

// SideOf reads what lies beside the conversation document at path (a
// sessions/<rootId>/<name>.messages.json): the manifest <rootId>.json, the
// compaction <name>.compaction.json, and for a root session
// (<rootId>.messages.json) the sub-agents' conversations in its folder.
// The index row is the caller's to add (ReadIndex). A file that cannot be
// read is left out.
func SideOf(path string) Side {
	dir := filepath.Dir(path)
	name := strings.TrimSuffix(filepath.Base(path), MessagesSuffix)
	root := filepath.Base(dir)
	var s Side
	s.ManifestName = filepath.Join(dir, root+".json")
	s.Manifest = readSmall(s.ManifestName)
	s.CompactionName = filepath.Join(dir, name+".compaction.json")
	s.Compaction = readSmall(s.CompactionName)
	if name != root {
		return s
	}
	agents, _ := filepath.Glob(filepath.Join(dir, "*"+MessagesSuffix))
	for _, a := range agents {
		if a == path {
			continue
		}
		if sub, ok := subagentOf(a); ok {
			s.Subagents = append(s.Subagents, sub)
		}
	}
	return s
}

// DocumentFor returns the conversation document a file beside it belongs
// to: for a manifest <id>.json or a compaction <id>.compaction.json in a
// sessions/<id>/ folder, <id>.messages.json there (ok when it exists). A
// change of either changes the conversation's reading.
func DocumentFor(path string) (string, bool) {
	base := filepath.Base(path)
	var name string
	switch {
	case strings.HasSuffix(base, ".compaction.json"):
		name = strings.TrimSuffix(base, ".compaction.json")
	case strings.HasSuffix(base, ".json") && !strings.HasSuffix(base, MessagesSuffix):
		name = strings.TrimSuffix(base, ".json")
		if name != filepath.Base(filepath.Dir(path)) {
			return "", false
		}
	default:
		return "", false
	}
	doc := filepath.Join(filepath.Dir(path), name+MessagesSuffix)
	if info, err := os.Stat(doc); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return doc, true
}

// readSmall reads a file of at most maxSideBytes; nil when it cannot.
func readSmall(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSideBytes+1))
	if err != nil || len(b) > maxSideBytes {
		return nil
	}
	return b
}

// subagentOf reads a sub-agent's conversation for its agent id and task.
func subagentOf(path string) (Subagent, bool) {
	b := readSmall(path)
	if b == nil {
		return Subagent{}, false
	}
	var doc struct {
		SessionID string     `json:"sessionId"`
		Origin    wireOrigin `json:"origin"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return Subagent{}, false
	}
	s := Subagent{AgentID: doc.Origin.Subagent}
	if s.AgentID == "" {
		_, s.AgentID, _ = splitAgentSession(doc.SessionID)
	}
	for _, m := range doc.Messages {
		if m.Role != "user" {
			continue
		}
		blocks, _, _ := decodeContent(m.Content)
		for _, bl := range blocks {
			if bl.Type == "text" {
				s.Task = bl.Text
				break
			}
		}
		break
	}
	return s, s.AgentID != ""
}

// manifest decodes the manifest (nil: none, or it does not parse).
func (s Side) manifest() *wireManifest {
	if len(s.Manifest) == 0 {
		return nil
	}
	var m wireManifest
	if json.Unmarshal(s.Manifest, &m) != nil {
		return nil
	}
	return &m
}

// compaction decodes the compaction document (nil: none, or it does not
// parse).
func (s Side) compaction() *wireCompaction {
	if len(s.Compaction) == 0 {
		return nil
	}
	var c wireCompaction
	var has struct {
		Count *int `json:"source_message_count"`
	}
	if json.Unmarshal(s.Compaction, &has) != nil || has.Count == nil || json.Unmarshal(s.Compaction, &c) != nil || c.SourceMessageCount < 0 {
		return nil // not a compaction document
	}
	c.Raw = s.Compaction
	return &c
}

// title is the session's own title: the manifest's metadata.title (the
// bare first prompt), else the index row's; a sub-agent's (sub) is its
// row's (the manifest beside it is its root session's).
func (s Side) title(sub bool) string {
	if m := s.manifest(); !sub && m != nil && len(m.Metadata) > 0 {
		var md wireSessionMeta
		if json.Unmarshal(m.Metadata, &md) == nil && md.Title != "" {
			return md.Title
		}
	}
	if s.Row != nil {
		return s.Row.Title()
	}
	return ""
}
