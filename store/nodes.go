package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
)

// Version triggers: why a node version was written. See
// pi-brain-node-model.md, "Versioning"; "append" and "replace" are
// Rhizome's: the segment grew when its session file was appended to, or the
// session file was rewritten.
const (
	TriggerInitial = "initial"
	TriggerAppend  = "append"
	TriggerReplace = "replace"
)

// NodeVersion is one stored version of a node.
type NodeVersion struct {
	Version         int
	AnalyzedAt      string
	AnalyzerVersion string
	TriggerReason   string
}

// PutNode stores n as the node of segment segmentIdx of the session
// sessionPK. A new node gets version 1 (trigger "initial"); a node already
// stored gets the next version, with the given trigger, its previous one
// added to n.PreviousVersions ("{id}-v{n}"). Either way n.Version and
// n.PreviousVersions are set, the version is recorded in node_versions, and
// the node row becomes this version. See pi-brain-node-model.md,
// "Versioning Rules".
func (t *Tx) PutNode(sessionPK int64, segmentIdx int, n *graph.Node, trigger string) error {
	var version int
	var prevJSON string
	err := t.queryRow(`SELECT version, json_extract(node, '$.previousVersions') FROM nodes WHERE id = ?`, n.ID).
		Scan(&version, &prevJSON)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		n.Version, n.PreviousVersions = 1, []string{}
		trigger = TriggerInitial
	case err != nil:
		return fmt.Errorf("store: unable to look up node %s: %w", n.ID, err)
	default:
		var prev []string
		if prevJSON != "" {
			if err := json.Unmarshal([]byte(prevJSON), &prev); err != nil {
				return fmt.Errorf("store: unable to read the versions of node %s: %w", n.ID, err)
			}
		}
		n.Version = version + 1
		n.PreviousVersions = append(prev, fmt.Sprintf("%s-v%d", n.ID, version))
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("store: unable to encode node %s: %w", n.ID, err)
	}
	_, err = t.exec(`INSERT INTO nodes (id, session_pk, segment_idx, version, type, outcome, project,
		summary, tags, topics, files, timestamp, cost, tokens, entry_count, node)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET session_pk = excluded.session_pk, segment_idx = excluded.segment_idx,
		version = excluded.version, type = excluded.type, outcome = excluded.outcome, project = excluded.project,
		summary = excluded.summary, tags = excluded.tags, topics = excluded.topics, files = excluded.files,
		timestamp = excluded.timestamp, cost = excluded.cost, tokens = excluded.tokens,
		entry_count = excluded.entry_count, node = excluded.node`,
		n.ID, sessionPK, segmentIdx, n.Version, string(n.Classification.Type), string(n.Content.Outcome),
		n.Classification.Project, n.Content.Summary, strings.Join(n.Semantic.Tags, "\n"),
		strings.Join(n.Semantic.Topics, "\n"), strings.Join(n.Content.FilesTouched, "\n"),
		n.Metadata.Timestamp, n.Metadata.Cost, n.Metadata.TokensUsed, n.Source.Segment.EntryCount, string(b))
	if err != nil {
		return fmt.Errorf("store: unable to save node %s: %w", n.ID, err)
	}
	_, err = t.exec(`INSERT INTO node_versions (node_id, version, node, analyzer_version, analyzed_at, trigger_reason)
	VALUES (?, ?, ?, ?, ?, ?)`, n.ID, n.Version, string(b), n.Metadata.AnalyzerVersion, n.Metadata.AnalyzedAt, trigger)
	if err != nil {
		return fmt.Errorf("store: unable to record version %d of node %s: %w", n.Version, n.ID, err)
	}
	return nil
}

// SetNodeSummary gives node id the sentence of its segment's summary as its
// content.summary, in place: the current version is the same analysis
// with its label derived after the import (issue 25), so no version is
// added. It reports whether the node changed; a node not stored is not
// an error (its session was rewritten meanwhile).
func (t *Tx) SetNodeSummary(id, text string) (bool, error) {
	n, err := t.Node(id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil || n.Content.Summary == text {
		return false, err
	}
	n.Content.Summary = text
	b, err := json.Marshal(n) // as PutNode encodes it
	if err != nil {
		return false, fmt.Errorf("store: unable to encode node %s: %w", id, err)
	}
	if _, err := t.exec(`UPDATE nodes SET summary = ?, node = ? WHERE id = ?`, text, string(b), id); err != nil {
		return false, fmt.Errorf("store: unable to set the summary of node %s: %w", id, err)
	}
	if _, err := t.exec(`UPDATE node_versions SET node = ? WHERE node_id = ? AND version = ?`, string(b), id, n.Version); err != nil {
		return false, fmt.Errorf("store: unable to set the summary of node %s: %w", id, err)
	}
	return true, nil
}

// Node returns the current version of node id inside the transaction; the
// error wraps ErrNotFound when it is not stored.
func (t *Tx) Node(id string) (*graph.Node, error) {
	var b string
	err := t.queryRow(`SELECT node FROM nodes WHERE id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find node %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch node %s: %w", id, err)
	}
	var n graph.Node
	if err := json.Unmarshal([]byte(b), &n); err != nil {
		return nil, fmt.Errorf("store: unable to decode node %s: %w", id, err)
	}
	return &n, nil
}

// DeleteDetachedNodes removes the nodes of the session that ClearSession
// detached and PutNode did not re-attach (their segments are gone from the
// rewritten file), with their versions and edges.
func (t *Tx) DeleteDetachedNodes(sessionPK int64) error {
	if _, err := t.exec(`DELETE FROM nodes WHERE session_pk = ? AND segment_idx < 0`, sessionPK); err != nil {
		return fmt.Errorf("store: unable to delete the old nodes of session %d: %w", sessionPK, err)
	}
	return nil
}

// NodeRecord is a node's current version with where it comes from.
type NodeRecord struct {
	Node        graph.Node
	SessionID   string
	SessionName string // session_info name, else the file name
	Segment     int
	Boundaries  []segment.Boundary // that start its segment
}

// Node returns the current version of node id; the error wraps ErrNotFound
// when it is not stored.
func (s *Store) Node(ctx context.Context, id string) (*NodeRecord, error) {
	var r NodeRecord
	var node, bs string
	err := s.db.QueryRowContext(ctx, `SELECT n.node, n.segment_idx, s.id, CASE WHEN s.name <> '' THEN s.name ELSE s.file_name END,
		coalesce(g.boundaries, '[]')
	FROM nodes n JOIN sessions s ON s.pk = n.session_pk
	LEFT JOIN segments g ON g.session_pk = n.session_pk AND g.idx = n.segment_idx
	WHERE n.id = ?`, id).Scan(&node, &r.Segment, &r.SessionID, &r.SessionName, &bs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find node %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch node %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(node), &r.Node); err != nil {
		return nil, fmt.Errorf("store: unable to decode node %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(bs), &r.Boundaries); err != nil {
		return nil, fmt.Errorf("store: unable to decode the boundaries of node %s: %w", id, err)
	}
	if r.Boundaries == nil {
		r.Boundaries = []segment.Boundary{}
	}
	return &r, nil
}

// NodeVersions lists the stored versions of node id, oldest first.
func (s *Store) NodeVersions(ctx context.Context, id string) ([]NodeVersion, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version, analyzed_at, analyzer_version, trigger_reason
		FROM node_versions WHERE node_id = ? ORDER BY version`, id)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the versions of node %s: %w", id, err)
	}
	defer rows.Close()
	out := []NodeVersion{}
	for rows.Next() {
		var v NodeVersion
		if err := rows.Scan(&v.Version, &v.AnalyzedAt, &v.AnalyzerVersion, &v.TriggerReason); err != nil {
			return nil, fmt.Errorf("store: unable to read a version of node %s: %w", id, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the versions of node %s: %w", id, err)
	}
	return out, nil
}

// NodeAtVersion returns node id as it was at a stored version
// (node_versions.node). Errors wrap ErrNotFound when that version is not
// stored. See pi-brain-node-model.md, "Versioning" (all versions kept).
func (s *Store) NodeAtVersion(ctx context.Context, id string, version int) (*graph.Node, error) {
	var node string
	err := s.db.QueryRowContext(ctx, `SELECT node FROM node_versions WHERE node_id = ? AND version = ?`, id, version).Scan(&node)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find version %d of node %s: %w", version, id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch version %d of node %s: %w", version, id, err)
	}
	var n graph.Node
	if err := json.Unmarshal([]byte(node), &n); err != nil {
		return nil, fmt.Errorf("store: unable to decode version %d of node %s: %w", version, id, err)
	}
	return &n, nil
}

// NodeSummary is a node as lists and the graph view show it.
type NodeSummary struct {
	ID      string
	Summary string
	// Label is the label of the segment summary the node shows (the
	// summaries table, kind "segment"); "" when it has none yet.
	Label     string
	Type      string
	Outcome   string
	SessionID string
	Project   string
	Segment   int
	Timestamp string
	Cost      float64 // USD
	Tokens    int64
	Entries   int
}

// NodeFilter narrows Nodes; empty fields do not filter. From and To are ISO
// 8601 dates or times compared with the node timestamp (segment start); a
// date-only To includes that whole day.
type NodeFilter struct {
	Project   string
	SessionID string
	Types     []string
	From      string
	To        string
}

// Nodes lists the current nodes matching f, by timestamp.
func (s *Store) Nodes(ctx context.Context, f NodeFilter) ([]NodeSummary, error) {
	query := `SELECT n.id, n.summary, coalesce(sm.label, ''), n.type, n.outcome, s.id, n.project, n.segment_idx, n.timestamp,
		n.cost, n.tokens, n.entry_count FROM nodes n JOIN sessions s ON s.pk = n.session_pk
		LEFT JOIN summaries sm ON sm.kind = 'segment' AND sm.subject = n.id WHERE 1 = 1`
	var args []any
	if f.Project != "" {
		query += ` AND n.project = ?`
		args = append(args, f.Project)
	}
	if f.SessionID != "" {
		query += ` AND s.id = ?`
		args = append(args, f.SessionID)
	}
	if len(f.Types) > 0 {
		query += ` AND n.type IN (?` + strings.Repeat(`, ?`, len(f.Types)-1) + `)`
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	if f.From != "" {
		query += ` AND n.timestamp >= ?`
		args = append(args, f.From)
	}
	if f.To != "" {
		to := f.To
		if len(to) == len("2006-01-02") {
			to += "T99" // the whole day: any time on it sorts before this
		}
		query += ` AND n.timestamp <= ?`
		args = append(args, to)
	}
	query += ` ORDER BY n.timestamp, s.pk, n.segment_idx`
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list nodes: %w", err)
	}
	defer rows.Close()
	out := []NodeSummary{}
	for rows.Next() {
		var n NodeSummary
		if err := rows.Scan(&n.ID, &n.Summary, &n.Label, &n.Type, &n.Outcome, &n.SessionID, &n.Project, &n.Segment,
			&n.Timestamp, &n.Cost, &n.Tokens, &n.Entries); err != nil {
			return nil, fmt.Errorf("store: unable to read a node: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list nodes: %w", err)
	}
	return out, nil
}
