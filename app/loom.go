package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"rhizome/backend/authorship"
	"rhizome/backend/link"
	"rhizome/backend/llm"
	"rhizome/backend/loom"
)

// Loom is the loom view: branching explorations written with a model. A
// person writes a prompt, asks the configured model for N continuations,
// walks between siblings, edits nodes (dialogue mode: a sibling branch;
// buffer mode: a version), sees which characters are still the model's, and
// reads a node's edit history as a diff. Trees are kept by the store and
// built by backend/loom; see aspen-grove-core-entities.md, corrected by
// ERRATA.md, "Aspen Grove".
//
// Every call names its tree. A loom.Tree is not safe for concurrent use, so
// calls on one tree are serialised by a per-tree lock (held only briefly
// during a generation: not while the model writes). Trees stay loaded
// between calls (up to maxLoadedTrees): this app is the only writer of its
// library's loom trees, and a call that fails drops its tree, to be read
// again from the store.
type Loom struct {
	c        *core
	settings *Settings

	mu      sync.Mutex
	locks   map[string]*sync.Mutex        // by tree id
	loaded  map[string]*loom.Tree         // by tree id; used under the tree's lock
	running map[string]context.CancelFunc // generations by request id
}

// maxLoadedTrees bounds the trees kept loaded between calls.
const maxLoadedTrees = 16

func newLoom(c *core, s *Settings) *Loom {
	return &Loom{c: c, settings: s, locks: map[string]*sync.Mutex{}, loaded: map[string]*loom.Tree{},
		running: map[string]context.CancelFunc{}}
}

// lock takes tree treeID's lock and returns its release.
func (l *Loom) lock(treeID string) func() {
	l.mu.Lock()
	m := l.locks[treeID]
	if m == nil {
		m = &sync.Mutex{}
		l.locks[treeID] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// withTree calls fn with tree treeID, under the tree's lock. When fn fails
// the tree is dropped: it may have changed in memory and not in the store.
func (l *Loom) withTree(treeID string, fn func(ctx context.Context, t *loom.Tree) error) error {
	if treeID == "" {
		return errors.New("loom: no tree id")
	}
	defer l.lock(treeID)()
	ctx := l.c.context()
	l.mu.Lock()
	t := l.loaded[treeID]
	l.mu.Unlock()
	if t == nil {
		var err error
		if t, err = l.c.store.LoadLoomTree(ctx, treeID); err != nil {
			return err
		}
		l.mu.Lock()
		for id := range l.loaded {
			if len(l.loaded) < maxLoadedTrees {
				break
			}
			delete(l.loaded, id)
		}
		l.loaded[treeID] = t
		l.mu.Unlock()
	}
	if err := fn(ctx, t); err != nil {
		l.unload(treeID)
		return err
	}
	return nil
}

// unload drops tree treeID: the next call reads it from the store.
func (l *Loom) unload(treeID string) {
	l.mu.Lock()
	delete(l.loaded, treeID)
	l.mu.Unlock()
}

// changed tells the frontend that tree treeID changed.
func (l *Loom) changed(treeID string) {
	l.c.emitEvent("loom:changed", LoomChanged{TreeID: treeID})
}

// ListTrees returns the library's loom trees, most recently changed first;
// archived ones only when includeArchived.
func (l *Loom) ListTrees(includeArchived bool) ([]LoomTreeInfo, error) {
	list, err := l.c.store.ListLoomTrees(l.c.context(), "", includeArchived)
	if err != nil {
		return nil, err
	}
	out := make([]LoomTreeInfo, 0, len(list))
	for _, t := range list {
		out = append(out, treeInfo(t.LoomTree, t.Nodes, t.Positions))
	}
	return out, nil
}

// CreateTree makes a tree whose root is the person's prompt and returns it.
// Errors: a mode other than "dialogue" or "buffer".
func (l *Loom) CreateTree(spec LoomTreeSpec) (LoomTreeView, error) {
	ctx := l.c.context()
	grove, err := l.c.store.DefaultGrove(ctx)
	if err != nil {
		return LoomTreeView{}, err
	}
	human, err := l.c.store.LoomHumanAgent(ctx)
	if err != nil {
		return LoomTreeView{}, err
	}
	t, err := loom.NewTree(loom.TreeSpec{GroveID: grove.ID, Title: strings.TrimSpace(spec.Title),
		Mode: loom.Mode(spec.Mode), SystemContext: spec.SystemContext, Root: loom.Text(spec.RootText), Author: human})
	if err != nil {
		return LoomTreeView{}, err
	}
	if err := l.createTree(ctx, t); err != nil {
		return LoomTreeView{}, err
	}
	l.changed(t.ID)
	return l.treeView(t)
}

// createTree stores the new tree t, with links (store.CreateLoomTreeWithLinks).
// A tree without a title (a root without words, an untitled import) is named
// "Loom Tree N", N its number in its grove (loom.FallbackTitle), and t.Title
// set to it.
func (l *Loom) createTree(ctx context.Context, t *loom.Tree, links ...link.Link) error {
	if t.Title == "" {
		n, err := l.c.store.CountLoomTrees(ctx, t.GroveID)
		if err != nil {
			return err
		}
		t.Title = loom.FallbackTitle(n + 1)
	}
	return l.c.store.CreateLoomTreeWithLinks(ctx, t, links)
}

// Tree returns tree treeID with every node, its branch points and leaves,
// and the active path to open it on.
func (l *Loom) Tree(treeID string) (LoomTreeView, error) {
	var v LoomTreeView
	err := l.withTree(treeID, func(_ context.Context, t *loom.Tree) error {
		var err error
		v, err = l.treeView(t)
		return err
	})
	return v, err
}

func (l *Loom) treeView(t *loom.Tree) (LoomTreeView, error) {
	v := LoomTreeView{Tree: treeInfo(t.LoomTree, t.Len(), t.Positions()), Nodes: make([]LoomNode, 0, t.Len()),
		BranchPoints: nodeIDs(t.BranchPoints()), Leaves: nodeIDs(t.Leaves()), ActivePath: activePathView(t.ActivePath())}
	for _, n := range t.Nodes() {
		v.Nodes = append(v.Nodes, nodeView(t, n))
	}
	return v, nil
}

// resolve returns ap, or the remembered active path when ap.NodeID is "",
// and its nodes from the root.
func (l *Loom) resolve(t *loom.Tree, ap ActivePath) (ActivePath, []*loom.Node, error) {
	if ap.NodeID == "" {
		ap = activePathView(t.ActivePath())
	}
	path, err := t.ResolvePath(ap.loom())
	return ap, path, err
}

// SetActivePath remembers ap as tree treeID's active path, with the tree in
// the library (loom.Tree.SetActivePath; exported with it). Errors: a node
// or version choice not in the tree.
func (l *Loom) SetActivePath(treeID string, ap ActivePath) error {
	return l.withTree(treeID, func(ctx context.Context, t *loom.Tree) error {
		normal, err := t.SetActivePath(ap.loom())
		if err != nil {
			return err
		}
		return l.c.store.SetLoomActivePath(ctx, t.ID, normal)
	})
}

// ActivePathView returns the reading pane for ap (ap.nodeId "" = the
// remembered active path): each node from the root with its authorship runs
// (view "raw", the default, or "semantic"), its siblings and its versions.
func (l *Loom) ActivePathView(treeID string, ap ActivePath, view string) (LoomPathView, error) {
	av, err := authorshipView(view)
	if err != nil {
		return LoomPathView{}, err
	}
	var v LoomPathView
	err = l.withTree(treeID, func(_ context.Context, t *loom.Tree) error {
		ap, path, err := l.resolve(t, ap)
		if err != nil {
			return err
		}
		v = LoomPathView{TreeID: t.ID, Mode: string(t.Mode), ActivePath: activePathView(t.NormalPath(ap.loom())), View: string(av),
			Steps: make([]LoomPathStep, 0, len(path))}
		for _, n := range path {
			runs, err := t.Authorship(n.ID, av)
			if err != nil {
				return err
			}
			v.Steps = append(v.Steps, LoomPathStep{Node: nodeView(t, n), Runs: authorshipRuns(runs),
				Siblings: siblings(t, n), Versions: versions(t, n)})
		}
		return nil
	})
	return v, err
}

// AddNode adds the person's text as a continuation of parentID and returns
// the new node; the items its text mentions ([[rhizome:…]]) are linked from
// it (RELATES_TO). Errors: empty text, a parent not in the tree.
func (l *Loom) AddNode(treeID, parentID, text string) (LoomNode, error) {
	if text == "" {
		return LoomNode{}, errors.New("loom: unable to add a node: the text is empty")
	}
	return l.linkMentions(treeID, text)(l.addHumanNode(treeID, func(t *loom.Tree, human loom.Agent) (*loom.Node, error) {
		return t.AddContinuation(parentID, loom.Text(text), human, nil)
	}))
}

// Edit makes the person's edit of node nodeID and returns the new node:
// in dialogue mode a sibling branch, in buffer mode a version of the node
// whose downstream stays shared; editedFrom is nodeID either way, so
// Authorship shows which characters are still the model's. Mentions are
// linked as AddNode does. Errors: the text equals the node's, a node not in
// the tree.
func (l *Loom) Edit(treeID, nodeID, text string) (LoomNode, error) {
	return l.linkMentions(treeID, text)(l.addHumanNode(treeID, func(t *loom.Tree, human loom.Agent) (*loom.Node, error) {
		return t.Edit(nodeID, loom.Text(text), human)
	}))
}

// addHumanNode adds the node add makes, written by the person, and saves it.
func (l *Loom) addHumanNode(treeID string, add func(t *loom.Tree, human loom.Agent) (*loom.Node, error)) (LoomNode, error) {
	return l.changeNode(treeID, func(ctx context.Context, t *loom.Tree) (*loom.Node, error) {
		human, err := l.c.store.LoomHumanAgent(ctx)
		if err != nil {
			return nil, err
		}
		n, err := add(t, human)
		if err != nil {
			return nil, err
		}
		return n, l.c.store.SaveLoomNode(ctx, t, n.ID)
	})
}

// changeNode calls change with tree treeID under its lock; change makes or
// changes a node and saves it. It returns that node and tells the frontend.
func (l *Loom) changeNode(treeID string, change func(ctx context.Context, t *loom.Tree) (*loom.Node, error)) (LoomNode, error) {
	var v LoomNode
	err := l.withTree(treeID, func(ctx context.Context, t *loom.Tree) error {
		n, err := change(ctx, t)
		if err != nil {
			return err
		}
		v = nodeView(t, n)
		return nil
	})
	if err == nil {
		l.changed(treeID)
	}
	return v, err
}

// SetBookmark bookmarks node nodeID with an optional label, or removes its
// bookmark, and returns the node.
func (l *Loom) SetBookmark(treeID, nodeID string, bookmarked bool, label string) (LoomNode, error) {
	return l.setState(treeID, nodeID, func(t *loom.Tree) error {
		return t.SetBookmark(nodeID, bookmarked, strings.TrimSpace(label))
	})
}

// SetPruned prunes node nodeID and so its branch (hidden, not deleted), or
// restores it, and returns the node.
func (l *Loom) SetPruned(treeID, nodeID string, pruned bool) (LoomNode, error) {
	return l.setState(treeID, nodeID, func(t *loom.Tree) error { return t.SetPruned(nodeID, pruned) })
}

// SetExcluded leaves node nodeID out of the context windows sent to the
// model, or puts it back, and returns the node.
func (l *Loom) SetExcluded(treeID, nodeID string, excluded bool) (LoomNode, error) {
	return l.setState(treeID, nodeID, func(t *loom.Tree) error { return t.SetExcluded(nodeID, excluded) })
}

func (l *Loom) setState(treeID, nodeID string, change func(*loom.Tree) error) (LoomNode, error) {
	return l.changeNode(treeID, func(ctx context.Context, t *loom.Tree) (*loom.Node, error) {
		if err := change(t); err != nil {
			return nil, err
		}
		n := t.Node(nodeID)
		return n, l.c.store.SetLoomNodeState(ctx, nodeID, n.Metadata)
	})
}

// Bookmarks returns the bookmarked nodes of tree treeID in creation order.
func (l *Loom) Bookmarks(treeID string) ([]LoomNode, error) {
	out := []LoomNode{}
	err := l.withTree(treeID, func(_ context.Context, t *loom.Tree) error {
		for _, n := range t.Nodes() {
			if n.Metadata.Bookmarked {
				out = append(out, nodeView(t, n))
			}
		}
		return nil
	})
	return out, err
}

// Versions returns the edit history of node nodeID: its whole version family
// in creation order (the original, every edit of it or of its edits), with
// InChain marking the editedFrom chain from the original to nodeID.
func (l *Loom) Versions(treeID, nodeID string) ([]LoomVersion, error) {
	var out []LoomVersion
	err := l.withTree(treeID, func(_ context.Context, t *loom.Tree) error {
		if t.Node(nodeID) == nil {
			return fmt.Errorf("loom: node %s is not in tree %s", nodeID, t.ID)
		}
		chain := map[string]bool{}
		for _, n := range t.EditChain(nodeID) {
			chain[n.ID] = true
		}
		for _, n := range t.Versions(nodeID) {
			a, _ := t.Agent(n.AuthorAgentID)
			out = append(out, LoomVersion{ID: n.ID, LocalID: n.LocalID, AuthorType: string(n.AuthorType),
				AuthorName: a.Name, CreatedAt: loom.ISOTime(n.CreatedAt), Text: n.Content.PlainText(),
				EditedFrom: n.EditedFrom, InChain: chain[n.ID]})
		}
		return nil
	})
	return out, err
}

// Diff compares the text of node fromNodeID with that of toNodeID (any two
// nodes of the tree, usually two versions), by granularity "char"
// (user-perceived characters, the default) or "word".
func (l *Loom) Diff(treeID, fromNodeID, toNodeID, granularity string) ([]DiffOp, error) {
	g := authorship.Granularity(granularity)
	switch g {
	case "":
		g = authorship.Char
	case authorship.Char, authorship.Word:
	default:
		return nil, fmt.Errorf("loom: diff granularity %q: want \"char\" or \"word\"", granularity)
	}
	out := []DiffOp{}
	err := l.withTree(treeID, func(_ context.Context, t *loom.Tree) error {
		from, to := t.Node(fromNodeID), t.Node(toNodeID)
		switch {
		case from == nil:
			return fmt.Errorf("loom: node %s is not in tree %s", fromNodeID, t.ID)
		case to == nil:
			return fmt.Errorf("loom: node %s is not in tree %s", toNodeID, t.ID)
		}
		for _, op := range authorship.Diff(from.Content.PlainText(), to.Content.PlainText(), g) {
			out = append(out, DiffOp{Op: string(op.Op), Text: op.Text})
		}
		return nil
	})
	return out, err
}

// Authorship returns who wrote which characters of node nodeID's text,
// computed along its editedFrom chain: view "raw" (exact, the default) or
// "semantic" (short surviving fragments inside an edit count as the
// editor's).
func (l *Loom) Authorship(treeID, nodeID, view string) ([]AuthorshipRun, error) {
	av, err := authorshipView(view)
	if err != nil {
		return nil, err
	}
	var out []AuthorshipRun
	err = l.withTree(treeID, func(_ context.Context, t *loom.Tree) error {
		runs, err := t.Authorship(nodeID, av)
		out = authorshipRuns(runs)
		return err
	})
	return out, err
}

// Archive archives tree treeID (ListTrees leaves it out unless asked) or,
// with archived false, restores it.
func (l *Loom) Archive(treeID string, archived bool) error {
	defer l.lock(treeID)()
	l.unload(treeID)
	if err := l.c.store.ArchiveLoomTree(l.c.context(), treeID, archived); err != nil {
		return err
	}
	l.changed(treeID)
	return nil
}

// Generate asks the configured model for req.N continuations of the active
// path and adds them as model nodes under the path's last node, each with
// its raw API response (whose hash enters the node's content hash) and the
// model's agent. Dialogue mode sends the path as chat messages (system
// context as system, human nodes as user, model nodes and the person's
// edits of them as assistant); buffer
// mode sends the path's text, after the system context and a blank line
// when there is one, as a text-completion prompt. Excluded nodes and
// annotations are left out.
//
// It blocks until the generation ends. Meanwhile the events say what
// happens: "loom:start" (LoomGenerationStart), "loom:delta" (LoomDelta)
// as text arrives, then exactly one of "loom:done" (LoomGenerated, as
// returned) or "loom:error" (LoomGenerationError, the error returned).
// A failed or cancelled generation writes no node. Errors: no model
// configured ("no model configured: open Settings"), n outside 1..64, the
// provider's refusal, CancelGeneration.
func (l *Loom) Generate(req LoomGenerateRequest) (LoomGenerated, error) {
	id := req.RequestID
	if id == "" {
		id = loom.NewID(time.Now())
	}
	ctx, cancel := context.WithCancel(l.c.context())
	defer cancel()
	l.mu.Lock()
	if _, busy := l.running[id]; busy {
		l.mu.Unlock()
		return LoomGenerated{}, fmt.Errorf("loom: generation %s is already running", id)
	}
	l.running[id] = cancel
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.running, id)
		l.mu.Unlock()
	}()

	res, err := l.generate(ctx, id, req)
	if err != nil {
		cancelled := ctx.Err() != nil && errors.Is(err, context.Canceled)
		if cancelled {
			err = fmt.Errorf("loom: generation cancelled, no node written: %w", context.Canceled)
		}
		l.c.emitEvent("loom:error", LoomGenerationError{RequestID: id, TreeID: req.TreeID, Error: err.Error(), Cancelled: cancelled})
		return LoomGenerated{}, err
	}
	l.c.emitEvent("loom:done", res)
	l.changed(req.TreeID)
	return res, nil
}

func (l *Loom) generate(ctx context.Context, id string, req LoomGenerateRequest) (LoomGenerated, error) {
	p, cfg, err := l.settings.llmProvider()
	if err != nil {
		return LoomGenerated{}, fmt.Errorf("loom: %w", err)
	}
	n := req.N
	if n == 0 {
		n = max(cfg.N, 1)
	}
	if n < 1 || n > llm.MaxN {
		return LoomGenerated{}, fmt.Errorf("loom: unable to generate %d continuations: want 1..%d", n, llm.MaxN)
	}
	var parentID string
	var prompt llm.Request
	err = l.withTree(req.TreeID, func(_ context.Context, t *loom.Tree) error {
		ap, path, err := l.resolve(t, req.ActivePath)
		if err != nil {
			return err
		}
		p, err := t.Prompt(ap.loom())
		if err != nil {
			return err
		}
		parentID = path[len(path)-1].ID
		prompt = generationRequest(p)
		return nil
	})
	if err != nil {
		return LoomGenerated{}, err
	}
	prompt.N = n
	agent, err := l.c.store.LoomModelAgent(ctx, cfg.Provider+"/"+cfg.Model, cfg.Model)
	if err != nil {
		return LoomGenerated{}, err
	}
	l.c.emitEvent("loom:start", LoomGenerationStart{RequestID: id, TreeID: req.TreeID, ParentID: parentID, N: n, Model: cfg.Model})
	completions, err := p.Generate(ctx, prompt, func(d llm.Delta) {
		l.c.emitEvent("loom:delta", LoomDelta{RequestID: id, Index: d.Index, Text: d.Text})
	})
	if err != nil {
		return LoomGenerated{}, fmt.Errorf("loom: generation failed, no node written: %w", err)
	}
	res := LoomGenerated{RequestID: id, TreeID: req.TreeID, ParentID: parentID, Nodes: make([]LoomNode, 0, len(completions))}
	// The tree may have grown while the model wrote: add to a fresh copy.
	// Nodes are added in memory first, so a refused one writes none.
	err = l.withTree(req.TreeID, func(ctx context.Context, t *loom.Tree) error {
		var added []*loom.Node
		for _, c := range completions {
			n, err := t.AddContinuation(parentID, loom.Text(c.Text), agent, c.Raw)
			if err != nil {
				return fmt.Errorf("loom: unable to add continuation %d: %w", c.Index, err)
			}
			added = append(added, n)
		}
		for _, n := range added {
			if err := l.c.store.SaveLoomNode(ctx, t, n.ID); err != nil {
				return err
			}
			res.Nodes = append(res.Nodes, nodeView(t, n))
		}
		return nil
	})
	if err != nil {
		return LoomGenerated{}, err
	}
	return res, nil
}

// generationRequest is the llm request of a tree's prompt (see Generate).
func generationRequest(p loom.Prompt) llm.Request {
	if p.Turns == nil {
		return llm.Request{Prompt: p.Text}
	}
	msgs := make([]llm.Message, 0, len(p.Turns))
	for _, turn := range p.Turns {
		role := llm.RoleUser
		switch turn.Role {
		case loom.TurnSystem:
			role = llm.RoleSystem
		case loom.TurnAssistant:
			role = llm.RoleAssistant
		}
		msgs = append(msgs, llm.Message{Role: role, Text: turn.Text})
	}
	return llm.Request{Messages: msgs}
}

// CancelGeneration stops generation requestID; its Generate call then
// fails, "loom:error" says cancelled, and no node is written. It reports
// whether the generation was still running.
func (l *Loom) CancelGeneration(requestID string) bool {
	l.mu.Lock()
	cancel, ok := l.running[requestID]
	l.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// loom converts the DTO.
func (ap ActivePath) loom() loom.ActivePath {
	return loom.ActivePath{NodeID: ap.NodeID, Versions: ap.Versions}
}

// activePathView converts to the DTO.
func activePathView(ap loom.ActivePath) ActivePath {
	return ActivePath{NodeID: ap.NodeID, Versions: ap.Versions}
}

func authorshipView(view string) (authorship.View, error) {
	switch v := authorship.View(view); v {
	case "":
		return authorship.Raw, nil
	case authorship.Raw, authorship.Semantic:
		return v, nil
	}
	return "", fmt.Errorf("loom: authorship view %q: want \"raw\" or \"semantic\"", view)
}

func authorshipRuns(runs []authorship.Run) []AuthorshipRun {
	out := make([]AuthorshipRun, 0, len(runs))
	for _, r := range runs {
		out = append(out, AuthorshipRun{Text: r.Text, Author: string(r.Author)})
	}
	return out
}

func treeInfo(t loom.LoomTree, nodes, positions int) LoomTreeInfo {
	v := LoomTreeInfo{ID: t.ID, Title: t.Title, Description: t.Description, Summary: t.Summary, Mode: string(t.Mode),
		SystemContext: t.SystemContext, RootNodeID: t.RootNodeID, CreatedAt: loom.ISOTime(t.CreatedAt),
		UpdatedAt: loom.ISOTime(t.UpdatedAt), Nodes: nodes, Positions: positions, CopiedFrom: t.CopiedFrom, CopySource: t.CopySource}
	if t.ArchivedAt != nil {
		v.Archived, v.ArchivedAt = true, loom.ISOTime(*t.ArchivedAt)
	}
	return v
}

// nodeView maps node n of tree t to its DTO.
func nodeView(t *loom.Tree, n *loom.Node) LoomNode {
	a, _ := t.Agent(n.AuthorAgentID)
	v := LoomNode{ID: n.ID, LocalID: n.LocalID, ParentIDs: []string{}, Children: nodeIDs(t.Children(n.ID)),
		AuthorType: string(n.AuthorType), AuthorName: a.Name, Model: a.ModelConfigRef, Text: n.Content.PlainText(),
		ContentType: string(n.Content.Type), CreatedAt: loom.ISOTime(n.CreatedAt),
		Bookmarked: n.Metadata.Bookmarked, BookmarkLabel: n.Metadata.BookmarkLabel, Pruned: n.Metadata.Pruned,
		Hidden: t.Hidden(n.ID), Excluded: n.Metadata.Excluded, EditedFrom: n.EditedFrom, Family: t.Family(n.ID),
		Summary: n.Summary, ContentHash: n.ContentHash, RawResponseHash: n.RawResponseHash,
		ParentID: t.Parent(n.ID), Annotation: t.IsAnnotation(n.ID), Position: t.IsPosition(n.ID)}
	if in := t.IncomingEdge(n.ID); in != nil {
		for _, s := range in.Sources {
			v.ParentIDs = append(v.ParentIDs, s.NodeID)
		}
	}
	return v
}

// siblings are the positions under n's parent, n's own included
// (loom.Tree.SiblingIDs).
func siblings(t *loom.Tree, n *loom.Node) LoomChoice {
	ids, self := t.SiblingIDs(n.ID)
	return LoomChoice{IDs: ids, Index: self}
}

// versions is n's version family and n's place in it.
func versions(t *loom.Tree, n *loom.Node) LoomChoice {
	c := LoomChoice{IDs: []string{}}
	for i, v := range t.Versions(n.ID) {
		if v.ID == n.ID {
			c.Index = i
		}
		c.IDs = append(c.IDs, v.ID)
	}
	return c
}

func nodeIDs(nodes []*loom.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n.ID)
	}
	return out
}

func tampers(found []loom.Tamper) []LoomTamper {
	out := make([]LoomTamper, 0, len(found))
	for _, f := range found {
		out = append(out, LoomTamper{NodeID: f.NodeID, LocalID: f.LocalID, Reason: string(f.Reason),
			RelatedID: f.RelatedID, Detail: f.Detail})
	}
	return out
}
