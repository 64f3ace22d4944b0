package ingest

import (
	"encoding/json"
	"errors"
	"sort"
	"time"

	"rhizome/backend/graph"
	"rhizome/store"
)

// Sub-agent linking: a sub-agent's transcript is a session of its own
// (Claude Code <sessionId>/subagents/agent-<agentId>.jsonl, Qwen Code
// subagents/<sessionId>/agent-<agentId>.jsonl, a Codex thread spawned by
// spawn_agent), linked by a subagent edge from the parent's node
// holding the tool call that spawned it to the sub-agent's first node,
// whichever of the two was imported first. See
// claude-code-codex-formats.md §1.4 (Task/Agent, toolUseResult.agentId) and
// §2.4 (spawn_agent's agent id); Qwen Code's in backend/qwen (the agent
// call's result names <subagentName>-<call id>, the sub-agent's agentId).

// linkSubagents makes the subagent edges of sess: into its first node when
// it is a sub-agent whose parent's spawning entry is stored, and from its
// nodes into the first node of every stored sub-agent that one of its tool
// calls spawned (spawns: agent id -> seq of the entry naming it). The
// spawning entry is the one naming the agent (a Claude Code Task/Agent
// result's agentId, a Codex spawn_agent's output), else, for a Claude Code
// sub-agent, the call its sidecar names (spawnedBy: its toolUseId; the call
// was interrupted before a result named the agent).
func linkSubagents(tx *store.Tx, sess *store.Session, spawns map[string]int, spawnedBy string, now time.Time) error {
	if sess.AgentID != "" && sess.ParentSession != "" {
		ppk, seq, err := tx.SubagentSpawn(sess.ParentSession, sess.AgentID)
		if errors.Is(err, store.ErrNotFound) && spawnedBy != "" {
			ppk, seq, err = tx.ToolCallEntry(sess.ParentSession, spawnedBy)
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return err
		default:
			if err := linkSubagent(tx, ppk, seq, sess, now); err != nil {
				return err
			}
		}
	}
	if sess.Format == formatClaudeCode || sess.Format == formatQwen {
		// Sub-agents stored before it whose result never came: linked to
		// the call their sidecar names, when it is in this session.
		if err := linkBySidecar(tx, sess, now); err != nil {
			return err
		}
	}
	if len(spawns) == 0 {
		return nil
	}
	ids := make([]string, 0, len(spawns))
	for id := range spawns {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	children, err := tx.SubagentSessions(sess.ID, ids)
	if err != nil {
		return err
	}
	for i := range children {
		if err := linkSubagent(tx, sess.PK, spawns[children[i].AgentID], &children[i], now); err != nil {
			return err
		}
	}
	return nil
}

// linkSubagent makes the subagent edge from the node of session parentPK
// holding entry seq to child's first node.
func linkSubagent(tx *store.Tx, parentPK int64, seq int, child *store.Session, now time.Time) error {
	first, err := tx.SegmentAt(child.PK, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	from, err := tx.SegmentOfSeq(parentPK, seq)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if from.NodeID == "" || first.NodeID == "" {
		return nil
	}
	if err := tx.DeleteEdgesInto(first.NodeID, graph.EdgeSubagent); err != nil {
		return err
	}
	return tx.PutEdge(&graph.Edge{
		SourceNodeID: from.NodeID,
		TargetNodeID: first.NodeID,
		Type:         graph.EdgeSubagent,
		Metadata:     map[string]any{"agentId": child.AgentID, "parentSession": child.ParentSession, "childSession": child.ID},
		CreatedAt:    isoMillis(now),
		CreatedBy:    graph.CreatedByBoundary,
	})
}

// linkBySidecar makes the subagent edges from sess into its stored
// sub-agents that no edge joins yet, whose sidecar names the tool call of
// sess that spawned them (SessionMeta.SpawnedBy).
func linkBySidecar(tx *store.Tx, sess *store.Session, now time.Time) error {
	children, err := tx.UnlinkedSubagents(sess.ID)
	if err != nil || len(children) == 0 {
		return err
	}
	for i := range children {
		var m SessionMeta
		if json.Unmarshal(children[i].Meta, &m) != nil || m.SpawnedBy == "" {
			continue
		}
		_, seq, err := tx.ToolCallEntry(sess.ID, m.SpawnedBy)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := linkSubagent(tx, sess.PK, seq, &children[i], now); err != nil {
			return err
		}
	}
	return nil
}
