package app

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"rhizome/backend/knowledge"
	"rhizome/backend/link"
	"rhizome/backend/loom"
	"rhizome/store"
)

// Agent is what a coding agent may do with the library through `rhizome mcp`
// (issue 11, section 3): search it, read any item by its rhizome: URI, read a
// project's rules, its open questions and its recent work, and record a
// decision, lesson, fact or question marked as the agent's. It is not an
// area bound to the window: the window's user records as the user.
type Agent struct {
	c *core
	k *Knowledge
}

// AgentSearch narrows Agent.Search; empty fields do not filter. Kinds are
// "knowledge", "node" and "entry"; KnowledgeKinds narrow the knowledge hits
// to those kinds. From and To are dates (YYYY-MM-DD) or RFC 3339 times. The
// other filters are the hybrid search's (SearchFilter) and narrow the
// session hits only.
type AgentSearch struct {
	Query          string   `json:"query"`
	Project        string   `json:"project,omitempty"`
	Kinds          []string `json:"kinds,omitempty"`
	KnowledgeKinds []string `json:"knowledgeKinds,omitempty"`
	From           string   `json:"from,omitempty"`
	To             string   `json:"to,omitempty"`
	Limit          int      `json:"limit,omitempty"` // 0: 20, at most 100
	Roles          []string `json:"roles,omitempty"`
	Tools          []string `json:"tools,omitempty"`
	Files          []string `json:"files,omitempty"`
	Models         []string `json:"models,omitempty"`
	NodeTypes      []string `json:"nodeTypes,omitempty"`
	RelationTypes  []string `json:"relationTypes,omitempty"`
}

// AgentHit is one search result with the URI to `get` it by.
type AgentHit struct {
	URI       string  `json:"uri"`
	Kind      string  `json:"kind"` // knowledge, node or entry
	Title     string  `json:"title"`
	Snippet   string  `json:"snippet,omitempty"`
	Project   string  `json:"project,omitempty"`
	Timestamp string  `json:"timestamp,omitempty"`
	Score     float64 `json:"score"`
	// KnowledgeKind, Status and CreatedBy are a knowledge hit's.
	KnowledgeKind string `json:"knowledgeKind,omitempty"`
	Status        string `json:"status,omitempty"`
	CreatedBy     string `json:"createdBy,omitempty"`
	// Why is a session hit's hybrid score by component, largest first
	// (components that added nothing left out).
	Why []ScorePart `json:"why,omitempty"`
}

// Search finds knowledge items (every word of the query in their text) and
// session nodes and entries (the hybrid search, Search.Hybrid: vectors,
// bm25, relations, content, time expressions…, archived nodes left out),
// the knowledge first: active items before superseded ones. Each hit
// carries its rhizome: URI. A filter that cannot be read is an error naming
// its field.
func (a *Agent) Search(s AgentSearch) ([]AgentHit, error) {
	if strings.TrimSpace(s.Query) == "" {
		return nil, errors.New("app: search: field query is empty")
	}
	limit := s.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	wants := func(kind string) bool {
		if len(s.Kinds) == 0 {
			return true
		}
		for _, k := range s.Kinds {
			if k == kind {
				return true
			}
		}
		return false
	}
	for _, k := range s.Kinds {
		if k != "knowledge" && k != "node" && k != "entry" {
			return nil, fmt.Errorf("app: search: field kinds: unknown kind %q (want knowledge, node or entry)", k)
		}
	}
	out := []AgentHit{}
	if wants("knowledge") {
		items, err := a.k.List(KnowledgeFilter{Query: s.Query, Kinds: s.KnowledgeKinds, Project: s.Project,
			CrossProject: s.Project != "", Limit: limit})
		if err != nil {
			return nil, err
		}
		sort.SliceStable(items, func(i, j int) bool {
			return items[i].Status == "active" && items[j].Status != "active"
		})
		for _, it := range items {
			if (s.From != "" && it.Timestamp < s.From) || (s.To != "" && it.Timestamp > s.To && !strings.HasPrefix(it.Timestamp, s.To)) {
				continue
			}
			out = append(out, AgentHit{URI: it.URI, Kind: "knowledge", Title: it.Title, Project: it.Project,
				Timestamp: it.Timestamp, Score: it.Confidence, KnowledgeKind: it.Kind, Status: it.Status, CreatedBy: it.CreatedBy})
		}
	}
	if (wants("node") || wants("entry")) && len(out) < limit {
		f := SearchFilter{Project: s.Project, From: s.From, To: s.To, Roles: s.Roles, Tools: s.Tools, Files: s.Files,
			Models: s.Models, NodeTypes: s.NodeTypes, RelationTypes: s.RelationTypes}
		if !wants("node") {
			f.Kinds = []string{"entry"}
		} else if !wants("entry") {
			f.Kinds = []string{"node"}
		}
		res, err := (&Search{c: a.c}).Hybrid(HybridQuery{Query: s.Query, Filter: f, Limit: limit - len(out)})
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			hit := AgentHit{URI: h.URI, Kind: h.Kind, Title: h.Title, Snippet: h.Snippet, Project: h.Project,
				Timestamp: h.Time, Score: h.Score}
			for _, p := range h.Why {
				if p.Contribution > 0 {
					hit.Why = append(hit.Why, p)
				}
			}
			out = append(out, hit)
		}
	}
	return out, nil
}

// AgentItem is what `get` returns for a rhizome: URI: the one of its fields
// that the URI's kind names.
type AgentItem struct {
	URI           string              `json:"uri"`
	Kind          string              `json:"kind"` // knowledge, node, session, entry, project, loom, loomNode, note, reasoning, reasoningNode
	Knowledge     *KnowledgeDetail    `json:"knowledge,omitempty"`
	Node          *NodeDetail         `json:"node,omitempty"`
	Session       *AgentSession       `json:"session,omitempty"`
	Entry         *EntryView          `json:"entry,omitempty"`
	Project       *AgentProject       `json:"project,omitempty"`
	LoomTree      *AgentLoomTree      `json:"loomTree,omitempty"`
	LoomNode      *AgentLoomNode      `json:"loomNode,omitempty"`
	Note          *NoteView           `json:"note,omitempty"`
	Reasoning     *AgentReasoning     `json:"reasoning,omitempty"`
	ReasoningNode *AgentReasoningNode `json:"reasoningNode,omitempty"`
}

// AgentLoomTree is a loom tree as an agent reads it: what it is and the
// text of its active path (the branch a person last read), root first.
type AgentLoomTree struct {
	Tree         LoomTreeInfo    `json:"tree"`
	Path         []AgentLoomText `json:"path"`
	Leaves       int             `json:"leaves"`       // the ends of its branches
	BranchPoints int             `json:"branchPoints"` // nodes with more than one continuation
}

// AgentLoomNode is one node of a loom tree with the text it continues: the
// path from the root to it (Path ends with the node itself).
type AgentLoomNode struct {
	Tree     LoomTreeInfo    `json:"tree"`
	Node     LoomNode        `json:"node"`
	Path     []AgentLoomText `json:"path"`
	Children []string        `json:"children"` // the continuations' URIs
}

// AgentLoomText is a node of a path: its URI, who wrote it and its text.
type AgentLoomText struct {
	URI    string `json:"uri"`
	Author string `json:"author"` // human or model
	Model  string `json:"model,omitempty"`
	Text   string `json:"text"`
}

// AgentReasoning is a MemoBrain reasoning graph as it is now: its nodes
// (task, subtask, evidence, summary) and edges, without its history.
type AgentReasoning struct {
	Info  ReasoningGraphInfo  `json:"info"`
	Nodes []ReasoningNodeView `json:"nodes"`
	Edges []ReasoningEdgeView `json:"edges"`
}

// AgentReasoningNode is one node of a reasoning graph with the nodes its
// edges join it to (Parents: the sources of its incoming edges).
type AgentReasoningNode struct {
	Graph    ReasoningGraphInfo `json:"graph"`
	Node     ReasoningNodeView  `json:"node"`
	Parents  []string           `json:"parents"`  // URIs
	Children []string           `json:"children"` // URIs
}

// AgentSession is a session with its segments.
type AgentSession struct {
	Session  SessionSummary    `json:"session"`
	Segments []TimelineSegment `json:"segments"`
}

// AgentProject is a project: its rules and its recent work.
type AgentProject struct {
	Path       string       `json:"path"`
	Rules      ProjectRules `json:"rules"`
	RecentWork []WorkItem   `json:"recentWork"`
}

// ErrUnsupportedURI is returned (wrapped) by Agent.Get for a URI it cannot
// read: a URL or a file (not items of the library).
var ErrUnsupportedURI = errors.New("app: this kind of item cannot be read here")

// Get reads the item a rhizome: URI names: a knowledge item (with its
// versions and chain), a node, a session (with its segments), an entry, a
// project (its rules and recent work), a loom tree (its active path's
// text) or one of its nodes (with the path to it), a note, a reasoning
// graph or one of its nodes. A malformed URI is an error naming what is
// wrong; an unknown item wraps store.ErrNotFound; a URL or a file wraps
// ErrUnsupportedURI. It only reads: a library opened read-only serves it.
func (a *Agent) Get(uri string) (AgentItem, error) {
	it, err := link.Parse(strings.TrimSpace(uri))
	if err != nil {
		return AgentItem{}, fmt.Errorf("app: %w", err)
	}
	out := AgentItem{URI: it.String(), Kind: string(it.Kind)}
	switch it.Kind {
	case link.KindKnowledge:
		d, err := a.k.Get(it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		out.Knowledge = &d
	case link.KindNode:
		g := &Graph{c: a.c}
		d, err := g.Node(it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		out.Node = &d
	case link.KindSession:
		lib := &Library{c: a.c}
		sess, err := a.c.store.SessionByID(a.c.context(), it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		all, err := lib.Sessions(sess.Cwd)
		if err != nil {
			return AgentItem{}, err
		}
		var summary *SessionSummary
		for i := range all {
			if all[i].ID == it.ID {
				summary = &all[i]
			}
		}
		if summary == nil {
			return AgentItem{}, fmt.Errorf("app: session %s: %w", it.ID, store.ErrNotFound)
		}
		segs, err := lib.Timeline(it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		out.Session = &AgentSession{Session: *summary, Segments: segs}
	case link.KindEntry:
		nodeID, off, err := a.c.store.EntryLocation(a.c.context(), it.Within, it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		page, err := (&Library{c: a.c}).SegmentEntries(nodeID, off, 1)
		if err != nil {
			return AgentItem{}, err
		}
		if len(page.Entries) == 0 {
			return AgentItem{}, fmt.Errorf("app: entry %s: %w", it, store.ErrNotFound)
		}
		out.Entry = &page.Entries[0]
	case link.KindProject:
		rules, err := a.k.Rules(it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		work, err := a.RecentWork(it.ID, 10)
		if err != nil {
			return AgentItem{}, err
		}
		out.Project = &AgentProject{Path: it.ID, Rules: rules, RecentWork: work}
	case link.KindLoomTree, link.KindLoomNode:
		if err := a.getLoom(it, &out); err != nil {
			return AgentItem{}, err
		}
	case link.KindNote:
		note, err := a.c.store.NoteByID(a.c.context(), it.ID)
		if err != nil {
			return AgentItem{}, err
		}
		v, err := a.c.noteView(note.Item)
		if err != nil {
			return AgentItem{}, err
		}
		out.Note = &v
	case link.KindReasoning, link.KindReasoningNode:
		if err := a.getReasoning(it, &out); err != nil {
			return AgentItem{}, err
		}
	default:
		return AgentItem{}, fmt.Errorf("app: %s: %w (rhizome: URIs are)", it, ErrUnsupportedURI)
	}
	return out, nil
}

// getLoom reads loom tree it (KindLoomTree) or loom node it into out, from
// the library as stored (not the window's trees in memory).
func (a *Agent) getLoom(it link.Item, out *AgentItem) error {
	treeID := it.ID
	if it.Kind == link.KindLoomNode {
		treeID = it.Within
	}
	t, err := a.c.store.LoadLoomTree(a.c.context(), treeID)
	if err != nil {
		return err
	}
	texts := func(path []*loom.Node) []AgentLoomText {
		out := make([]AgentLoomText, 0, len(path))
		for _, n := range path {
			v := nodeView(t, n)
			out = append(out, AgentLoomText{URI: link.LoomNode(t.ID, n.ID).String(), Author: v.AuthorType, Model: v.Model, Text: v.Text})
		}
		return out
	}
	info := treeInfo(t.LoomTree, t.Len(), t.Positions())
	if it.Kind == link.KindLoomTree {
		path, err := t.ResolvePath(t.ActivePath())
		if err != nil {
			return err
		}
		out.LoomTree = &AgentLoomTree{Tree: info, Path: texts(path), Leaves: len(t.Leaves()), BranchPoints: len(t.BranchPoints())}
		return nil
	}
	n := t.Node(it.ID)
	if n == nil {
		return fmt.Errorf("app: loom node %s: %w", it, store.ErrNotFound)
	}
	path, err := t.Path(n.ID)
	if err != nil {
		return err
	}
	v := nodeView(t, n)
	children := make([]string, 0, len(v.Children))
	for _, id := range v.Children {
		children = append(children, link.LoomNode(t.ID, id).String())
	}
	out.LoomNode = &AgentLoomNode{Tree: info, Node: v, Path: texts(path), Children: children}
	return nil
}

// getReasoning reads reasoning graph it (KindReasoning) or one of its nodes
// into out, as the graph is now.
func (a *Agent) getReasoning(it link.Item, out *AgentItem) error {
	graphID := it.ID
	if it.Kind == link.KindReasoningNode {
		graphID = it.Within
	}
	r := &Reasoning{c: a.c}
	rec, snap, err := r.load(a.c.context(), graphID)
	if err != nil {
		return err
	}
	g := snap.Graph
	view := graphView(rec, g, nil)
	if it.Kind == link.KindReasoning {
		out.Reasoning = &AgentReasoning{Info: view.Info, Nodes: view.Nodes, Edges: view.Edges}
		return nil
	}
	for _, n := range view.Nodes {
		if n.URI != it.String() {
			continue
		}
		node := &AgentReasoningNode{Graph: view.Info, Node: n, Parents: []string{}, Children: []string{}}
		for _, e := range view.Edges {
			switch n.ID {
			case e.Dst:
				node.Parents = append(node.Parents, link.ReasoningNode(graphID, strconv.Itoa(e.Src)).String())
			case e.Src:
				node.Children = append(node.Children, link.ReasoningNode(graphID, strconv.Itoa(e.Dst)).String())
			}
		}
		out.ReasoningNode = node
		return nil
	}
	return fmt.Errorf("app: reasoning node %s: %w", it, store.ErrNotFound)
}

// WorkItem is one piece of recent work: a segment of a session, with its
// summary (the analyzer's), outcome and time.
type WorkItem struct {
	URI         string `json:"uri"` // the segment node's
	SessionURI  string `json:"sessionUri"`
	SessionName string `json:"sessionName,omitempty"`
	Project     string `json:"project"`
	Timestamp   string `json:"timestamp"`
	Type        string `json:"type"`
	Outcome     string `json:"outcome"`
	Summary     string `json:"summary"`
}

// RecentWork lists what happened lately in project ("" = every project):
// its newest segments, newest first, at most limit (0: 20, at most 200),
// each with the summary the analyzer wrote for it.
func (a *Agent) RecentWork(project string, limit int) ([]WorkItem, error) {
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 200)
	ctx := a.c.context()
	nodes, err := a.c.store.Nodes(ctx, store.NodeFilter{Project: project})
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	sessions, err := a.c.store.Sessions(ctx, project)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		names[s.ID] = s.Name
	}
	out := []WorkItem{}
	for i := len(nodes) - 1; i >= 0 && len(out) < limit; i-- { // Nodes is oldest first
		n := nodes[i]
		out = append(out, WorkItem{URI: link.Node(n.ID).String(), SessionURI: link.Session(n.SessionID).String(),
			SessionName: names[n.SessionID], Project: n.Project, Timestamp: n.Timestamp, Type: n.Type,
			Outcome: n.Outcome, Summary: n.Summary})
	}
	return out, nil
}

// OpenQuestions lists the open questions of project (and the cross-project
// ones; "" = every project), oldest first; with topic, only those whose
// question or context holds every word of it.
func (a *Agent) OpenQuestions(project, topic string) ([]KnowledgeItem, error) {
	qs, err := a.k.OpenQuestions(project)
	if err != nil || strings.TrimSpace(topic) == "" {
		return qs, err
	}
	out := []KnowledgeItem{}
	words := strings.Fields(strings.ToLower(topic))
	for _, q := range qs {
		text := strings.ToLower(q.Fields.Question + "\n" + q.Fields.Context + "\n" + strings.Join(q.Topics, " "))
		all := true
		for _, w := range words {
			if !strings.Contains(text, w) {
				all = false
				break
			}
		}
		if all {
			out = append(out, q)
		}
	}
	return out, nil
}

// ProjectRules is Knowledge.Rules.
func (a *Agent) ProjectRules(project string) (ProjectRules, error) { return a.k.Rules(project) }

// Record records in as Knowledge.Record does, made by the agent (createdBy
// agent) with the confidence it gives (0 to 1; 0 means 0.5: an agent's word
// without a stated confidence).
func (a *Agent) Record(in KnowledgeInput) (KnowledgeItem, error) {
	if in.Confidence == 0 {
		in.Confidence = 0.5
	}
	return a.k.record(in, knowledge.ByAgent, "")
}
