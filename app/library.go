package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"rhizome/app/ingest"
	"rhizome/backend/link"
	"rhizome/backend/project"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/backend/summary"
	"rhizome/store"
)

// Library is the read side of the library: projects, sessions, a session's
// timeline of segments, a segment's entries, and totals.
type Library struct {
	c *core
}

// Projects lists the working directories sessions ran in, by path, each
// with its summary once made.
func (l *Library) Projects() ([]Project, error) {
	ps, err := l.c.store.Projects(l.c.context())
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(ps))
	for i, p := range ps {
		paths[i] = p.Path
	}
	sums, err := l.c.store.SummariesOf(l.c.context(), string(summary.KindProject), paths)
	if err != nil {
		return nil, err
	}
	names := project.Names(paths)
	out := make([]Project, 0, len(ps))
	for _, p := range ps {
		v := Project{Path: p.Path, Name: names[p.Path], Sessions: p.Sessions, Nodes: p.Nodes, Cost: p.Cost, CostUnknown: p.CostUnknown}
		if r := sums[p.Path]; r != nil {
			v.Summary, v.SummarySource = r.Shown.Text, r.Shown.Source
		}
		out = append(out, v)
	}
	return out, nil
}

// projectNames names the library's projects (project.Names): path -> name.
func (c *core) projectNames() (map[string]string, error) {
	ps, err := c.store.Projects(c.context())
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(ps))
	for i, p := range ps {
		paths[i] = p.Path
	}
	return project.Names(paths), nil
}

// Sessions lists the sessions of a project (its path; "" for all), newest
// first.
func (l *Library) Sessions(project string) ([]SessionSummary, error) {
	ss, err := l.c.store.Sessions(l.c.context(), project)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	sums, err := l.c.store.SummariesOf(l.c.context(), string(summary.KindSession), ids)
	if err != nil {
		return nil, err
	}
	// A session without a summary yet (still being analysed, issue 25)
	// that names itself nothing is titled by its first prompt, not its
	// file name.
	var untitled []int64
	for _, s := range ss {
		if r := sums[s.ID]; s.Name == "" && (r == nil || r.Shown.Title == "") {
			untitled = append(untitled, s.PK)
		}
	}
	prompts, err := l.c.store.FirstPrompts(l.c.context(), untitled)
	if err != nil {
		return nil, err
	}
	out := make([]SessionSummary, 0, len(ss))
	for _, s := range ss {
		name := s.Name
		if name == "" {
			name = s.FileName
		}
		title, text, source := name, "", ""
		if p := promptTitle(prompts[s.PK]); p != "" {
			title = p
		}
		if r := sums[s.ID]; r != nil && r.Shown.Title != "" {
			title, text, source = r.Shown.Title, r.Shown.Text, r.Shown.Source
		}
		v := sessionSummary(&s, name)
		v.Title, v.Summary, v.TitleSource = title, text, source
		out = append(out, v)
	}
	return out, nil
}

// promptTitle is a prompt's first line, at most 80 runes: a title.
func promptTitle(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	return clipRunes(strings.TrimSpace(line), 80)
}

// sessionSummary is a stored session as the sidebar lists it, named name.
func sessionSummary(s *store.Session, name string) SessionSummary {
	var meta ingest.SessionMeta
	if len(s.Meta) > 0 {
		_ = json.Unmarshal(s.Meta, &meta) // what cannot be read says nothing
	}
	return SessionSummary{
		ID: s.ID, Path: s.Path, Name: name, Title: name, Project: s.Cwd, Timestamp: s.Timestamp,
		Version: s.Version, Entries: s.Entries, Segments: s.Segments, Cost: s.Cost, Tokens: s.Tokens,
		ParentSession: s.ParentSession, Malformed: s.Malformed, PendingTail: s.PendingTail,
		Format: s.Format, CostUnknown: len(meta.Unpriced) > 0, AgentID: s.AgentID,
		SourceDeleted: s.SourceDeletedAt != "", SourceDeletedAt: s.SourceDeletedAt, UpdatedAt: s.UpdatedAt,
	}
}

// Timeline returns the segments of a session in order, each with its node.
func (l *Library) Timeline(sessionID string) ([]TimelineSegment, error) {
	segs, err := l.c.store.Segments(l.c.context(), sessionID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(segs))
	for _, s := range segs {
		ids = append(ids, s.NodeID)
	}
	sums, err := l.c.store.SummariesOf(l.c.context(), string(summary.KindSegment), ids)
	if err != nil {
		return nil, err
	}
	out := make([]TimelineSegment, 0, len(segs))
	for _, s := range segs {
		text := s.NodeSummary
		if r := sums[s.NodeID]; r != nil && r.Shown.Text != "" {
			text = r.Shown.Text
		}
		out = append(out, TimelineSegment{
			Index: s.Index, NodeID: s.NodeID, Type: s.NodeType, Summary: text,
			Start: isoTime(s.StartTimestamp), End: isoTime(s.EndTimestamp), Entries: s.EntryCount,
			Boundaries: boundaryViews(s.Boundaries),
		})
	}
	return out, nil
}

// Page sizes of SegmentEntries, in entries.
const (
	DefaultEntryPage = 100
	MaxEntryPage     = 500
)

// SegmentEntries returns a page of the entries of a node's segment: at most
// limit of them (0 = DefaultEntryPage, at most MaxEntryPage) from the
// offset-th on (0 = the segment's first entry), in file order, their content
// decoded into blocks, with the labels that name them; and the segment's
// entry count, Total. A segment may hold a million entries: the frontend
// asks for the next page as the list scrolls. An offset at or past the end
// gives an empty page; a negative offset is an error, as is an unknown node
// (wrapping store.ErrNotFound).
func (l *Library) SegmentEntries(nodeID string, offset, limit int) (EntryPage, error) {
	if offset < 0 {
		return EntryPage{}, fmt.Errorf("app: entries of node %s from %d: the offset must not be negative", nodeID, offset)
	}
	if limit <= 0 {
		limit = DefaultEntryPage
	}
	limit = min(limit, MaxEntryPage)
	ctx := l.c.context()
	node, err := l.c.store.Node(ctx, nodeID)
	if err != nil {
		return EntryPage{}, err
	}
	sess, err := l.c.store.SessionByID(ctx, node.SessionID)
	if err != nil {
		return EntryPage{}, err
	}
	page, err := l.c.store.SegmentEntries(ctx, nodeID, offset, limit)
	if err != nil {
		return EntryPage{}, err
	}
	out := EntryPage{Entries: make([]EntryView, 0, len(page.Entries)), Offset: page.Offset, Total: page.Total}
	records := page.Entries
	if len(records) == 0 {
		return out, nil
	}
	entries, err := ingest.DecodeRecords(sess.Format, sess.Header, sess.Path, records)
	if err != nil {
		return EntryPage{}, fmt.Errorf("app: session %s: %w", sess.ID, err)
	}
	byTarget := map[string]string{}
	for _, lb := range page.Labels { // in file order: the last label wins, "" clears
		byTarget[lb.TargetID] = lb.Label
	}
	var outputs map[int][]store.ToolOutput
	if sess.Format == sessionformat.ClaudeCode {
		if outputs, err = l.c.store.ToolOutputsOf(ctx, sess.PK, records[0].Seq, records[len(records)-1].Seq); err != nil {
			return EntryPage{}, err
		}
	}
	for i, r := range records {
		e := entries[i]
		v := entryView(session.ViewEntry(e))
		v.Seq, v.Line, v.ID, v.ParentID, v.Type, v.Timestamp = r.Seq, r.Line, r.ID, r.ParentID, r.Type, r.Timestamp
		v.Label = byTarget[r.ID]
		v.Subtype, v.Sidechain, v.SubagentID = e.Subtype, e.Sidechain, e.SubagentID
		v.Rewind, v.DuplicateOf, v.Replayed, v.RolledBack = e.Rewind, e.DuplicateOf, e.Replayed, e.RolledBack
		if v.SubagentID != "" {
			v.SubagentNodeID = l.subagentNode(sess.ID, v.SubagentID)
		}
		for _, o := range outputs[r.Seq] {
			v.ToolOutputs = append(v.ToolOutputs, ToolOutputInfo{Name: o.Name, Bytes: o.Bytes, Kept: o.Absent == "", Absent: o.Absent})
		}
		out.Entries = append(out.Entries, v)
	}
	return out, nil
}

// MaxToolOutputView is how much of a tool output (bytes) ToolOutput gives
// to be shown: 4 MiB.
const MaxToolOutputView = 4 << 20

// ToolOutput returns the tool output name that the entry entryURI (a
// rhizome:entry/ URI) keeps in a file of its own (EntryView.ToolOutputs),
// as the library holds it: its text, cut to MaxToolOutputView bytes on a
// character boundary. Errors: a URI that is not an entry's, an output the
// library does not hold (wraps store.ErrNotFound), one it could not keep
// (it says why).
func (l *Library) ToolOutput(entryURI, name string) (ToolOutputText, error) {
	it, err := parseItem("entry", entryURI)
	if err != nil {
		return ToolOutputText{}, err
	}
	if it.Kind != link.KindEntry {
		return ToolOutputText{}, invalid(fmt.Errorf("app: %s is not an entry", entryURI))
	}
	o, err := l.c.store.ToolOutputOf(l.c.context(), it.Within, it.ID, name)
	if err != nil {
		return ToolOutputText{}, err
	}
	if o.Absent != "" {
		return ToolOutputText{}, fmt.Errorf("app: tool output %s of %s: %s", name, entryURI, o.Absent)
	}
	v := ToolOutputText{Name: o.Name, Bytes: o.Bytes}
	if !utf8.Valid(o.Content) {
		v.Binary = true
		return v, nil
	}
	v.Text = string(o.Content)
	if len(v.Text) > MaxToolOutputView {
		n := MaxToolOutputView
		for n > 0 && !utf8.RuneStart(v.Text[n]) {
			n--
		}
		v.Text, v.Truncated = v.Text[:n], true
	}
	return v, nil
}

// subagentNode is the first node of the transcript of sub-agent agentID
// spawned by session parentID, "" when the library does not hold it.
func (l *Library) subagentNode(parentID, agentID string) string {
	id, err := l.c.store.SubagentFirstNode(l.c.context(), parentID, agentID)
	if err != nil {
		return ""
	}
	return id
}

// entryView maps an entry's view (session.ViewEntry) to its DTO.
func entryView(pv session.View) EntryView {
	v := EntryView{Role: pv.Role, Model: pv.Model, ToolName: pv.ToolName, IsError: pv.IsError, Summary: pv.Summary,
		Blocks: make([]BlockView, 0, len(pv.Blocks)), ToolOutputs: []ToolOutputInfo{}}
	for _, b := range pv.Blocks {
		v.Blocks = append(v.Blocks, BlockView{Type: b.Type, Text: b.Text, Name: b.Name, Arguments: b.Arguments,
			MimeType: b.MimeType, Data: b.Data})
	}
	return v
}

// Stats counts what the library holds; ByType counts nodes by node type.
func (l *Library) Stats() (Stats, error) {
	st, err := l.c.store.Stats(l.c.context())
	if err != nil {
		return Stats{}, err
	}
	return Stats{
		Path: l.c.dbPath, Sessions: st.Sessions, Entries: st.Entries, Nodes: st.Nodes, Edges: st.Edges,
		Projects: st.Projects, Cost: st.Cost, Tokens: st.Tokens, ByType: st.NodesByType,
	}, nil
}

// boundaryViews turns boundaries into their display form; the previous and
// target entry ids go into the metadata.
func boundaryViews(bs []segment.Boundary) []BoundaryView {
	out := make([]BoundaryView, 0, len(bs))
	for _, b := range bs {
		md := map[string]any{}
		for k, v := range b.Metadata {
			md[k] = v
		}
		if b.PreviousEntryID != "" {
			md["previousEntryId"] = b.PreviousEntryID
		}
		if b.TargetEntryID != "" {
			md["targetEntryId"] = b.TargetEntryID
		}
		if len(md) == 0 {
			md = nil
		}
		out = append(out, BoundaryView{Type: string(b.Type), EntryID: b.EntryID, Timestamp: isoTime(b.Timestamp), Metadata: md})
	}
	return out
}

// isoTime formats t as ISO 8601 in UTC with milliseconds; "" for zero.
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return isoMillis(t)
}

// isoMillis formats t as ISO 8601 in UTC with milliseconds.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
