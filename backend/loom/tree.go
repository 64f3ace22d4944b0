package loom

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/oklog/ulid/v2"
)

// ErrUnchanged is returned by Edit when the new content equals the old.
var ErrUnchanged = errors.New("loom: the edit changes nothing")

// Tree is a loom tree in memory: its record, nodes, edges, the agents that
// wrote them and, when loaded, the raw API responses of its model nodes, and
// the UI state kept beside them (node metadata, the active path). It
// enforces the invariants: nodes are only added, each with its incoming edge;
// local ids are unique; the mode never changes. It is not safe for
// concurrent use, reads included (Hidden remembers its answers).
type Tree struct {
	LoomTree

	agents      map[string]Agent
	nodes       map[string]*Node
	order       []*Node // by CreatedAt, then ID
	edges       []*Edge // by CreatedAt, then ID
	edgeIDs     map[string]bool
	incoming    map[string][]*Edge // target -> edges (one, unless tampered with)
	children    map[string][]*Node // node -> continuation targets whose primary source it is
	edits       map[string][]*Node // node -> nodes edited from it
	annotations map[string][]*Node // node -> annotation nodes whose primary source it is
	localIDs    map[string]*Node
	raw         map[string][]byte
	hidden      map[string]bool // Hidden's answers, forgotten when a node's pruning changes
	active      *ActivePath     // the remembered active path (UI state), nil if none

	now   func() time.Time
	newID func(time.Time) string
}

// NewID returns a new ULID for time t, monotonic within a millisecond.
func NewID(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()).String()
}

// TreeSpec describes a new tree.
type TreeSpec struct {
	GroveID string
	// Title defaults to the root's first words (TitleFromContent); when the
	// root has none it stays "" and the store names it "Loom Tree N".
	Title         string
	Description   string
	Mode          Mode
	SystemContext string
	Root          Content
	Author        Agent  // who wrote the root
	RawResponse   []byte // the raw API response, when Author is a model
	// Now and NewID default to time.Now and NewID; tests fix them.
	Now   func() time.Time
	NewID func(time.Time) string
}

// NewTree makes a tree with its root node. It returns an error for an
// unknown mode, no grove, invalid root content or an invalid author.
func NewTree(spec TreeSpec) (*Tree, error) {
	if spec.Mode != ModeDialogue && spec.Mode != ModeBuffer {
		return nil, fmt.Errorf("loom: unable to make a tree: mode %q is neither dialogue nor buffer", spec.Mode)
	}
	if spec.GroveID == "" {
		return nil, errors.New("loom: unable to make a tree: no grove")
	}
	t := newTree(LoomTree{GroveID: spec.GroveID, Title: spec.Title, Description: spec.Description,
		Mode: spec.Mode, SystemContext: spec.SystemContext})
	if spec.Now != nil {
		t.now = spec.Now
	}
	if spec.NewID != nil {
		t.newID = spec.NewID
	}
	created := normalTime(t.now())
	t.ID = t.newID(created)
	t.CreatedAt, t.UpdatedAt = created, created
	if t.Title == "" {
		t.Title = TitleFromContent(spec.Root)
	}
	root, err := t.addNode(nodeSpec{content: spec.Root, author: spec.Author, raw: spec.RawResponse, createdAt: created})
	if err != nil {
		return nil, err
	}
	t.RootNodeID = root.ID
	return t, nil
}

func newTree(info LoomTree) *Tree {
	return &Tree{
		LoomTree:    info,
		agents:      map[string]Agent{},
		nodes:       map[string]*Node{},
		edgeIDs:     map[string]bool{},
		incoming:    map[string][]*Edge{},
		children:    map[string][]*Node{},
		edits:       map[string][]*Node{},
		annotations: map[string][]*Node{},
		localIDs:    map[string]*Node{},
		raw:         map[string][]byte{},
		hidden:      map[string]bool{},
		now:         time.Now,
		newID:       NewID,
	}
}

// titleWords is how many words of the root a default title takes.
const titleWords = 6

// TitleFromContent returns the first few words of c's text ("" if none),
// ending in "…" when there are more.
func TitleFromContent(c Content) string {
	words := strings.FieldsFunc(c.PlainText(), unicode.IsSpace)
	if len(words) == 0 {
		return ""
	}
	if len(words) <= titleWords {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:titleWords], " ") + "…"
}

// FallbackTitle is the title of the index-th tree (from 1) of a grove whose
// root has no words.
func FallbackTitle(index int) string { return fmt.Sprintf("Loom Tree %d", index) }

// nodeSpec is what addNode needs.
type nodeSpec struct {
	content    Content
	author     Agent
	raw        []byte
	sources    []EdgeSource
	edgeType   EdgeType
	editedFrom string
	createdAt  time.Time // zero: now
}

// AddContinuation adds a node continuing parentID, written by author. A
// model's node needs rawResponse, the API response it came from, whose hash
// its content hash covers.
func (t *Tree) AddContinuation(parentID string, content Content, author Agent, rawResponse []byte) (*Node, error) {
	return t.AddHyperContinuation([]EdgeSource{{NodeID: parentID, Role: RolePrimary}}, content, author, rawResponse)
}

// AddHyperContinuation adds a node generated from several sources at once
// (all of them inputs: a text and an image prompt, an instruction). The path
// runs through the first primary source.
func (t *Tree) AddHyperContinuation(sources []EdgeSource, content Content, author Agent, rawResponse []byte) (*Node, error) {
	if len(sources) == 0 {
		return nil, errors.New("loom: unable to add a continuation: no source")
	}
	if author.Type == AuthorModel && len(rawResponse) == 0 {
		return nil, fmt.Errorf("loom: unable to add a continuation by model agent %s: no raw response", author.ID)
	}
	return t.addNode(nodeSpec{content: content, author: author, raw: rawResponse, sources: sources, edgeType: EdgeContinuation})
}

// Annotate adds an annotation node on nodeID: a note beside the tree, left
// out of paths' children and context windows.
func (t *Tree) Annotate(nodeID string, content Content, author Agent) (*Node, error) {
	return t.addNode(nodeSpec{content: content, author: author,
		sources: []EdgeSource{{NodeID: nodeID, Role: RolePrimary}}, edgeType: EdgeAnnotation})
}

// Edit makes a new node from nodeID with newContent, editedFrom nodeID, with
// the same incoming edge sources as nodeID. In dialogue mode it is a sibling
// branch with its own downstream; in buffer mode it is a version of nodeID
// whose downstream stays shared (Children, ResolvePath). It returns
// ErrUnchanged when newContent equals the node's content.
// See aspen-grove-core-entities.md, "Edit Lineage".
func (t *Tree) Edit(nodeID string, newContent Content, author Agent) (*Node, error) {
	orig := t.nodes[nodeID]
	if orig == nil {
		return nil, fmt.Errorf("loom: unable to edit node %s: not in tree %s", nodeID, t.ID)
	}
	if newContent.Equal(orig.Content) {
		return nil, ErrUnchanged
	}
	spec := nodeSpec{content: newContent, author: author, editedFrom: nodeID}
	if in := t.IncomingEdge(nodeID); in != nil {
		spec.sources = slices.Clone(in.Sources)
		spec.edgeType = in.Type
	}
	return t.addNode(spec)
}

// addNode makes a node (and its incoming edge when it has sources) and
// indexes it.
func (t *Tree) addNode(s nodeSpec) (*Node, error) {
	if err := s.content.Validate(); err != nil {
		return nil, fmt.Errorf("loom: unable to add a node to tree %s: %w", t.ID, err)
	}
	if err := t.checkAuthor(s.author); err != nil {
		return nil, err
	}
	if s.editedFrom != "" && t.nodes[s.editedFrom] == nil {
		return nil, fmt.Errorf("loom: unable to add a node to tree %s: edited node %s is not in it", t.ID, s.editedFrom)
	}
	created := s.createdAt
	if created.IsZero() {
		created = t.now()
	}
	created = normalTime(created)
	n := &Node{
		ID:            t.newID(created),
		TreeID:        t.ID,
		Content:       s.content,
		AuthorType:    s.author.Type,
		AuthorAgentID: s.author.ID,
		CreatedAt:     created,
		EditedFrom:    s.editedFrom,
		Parents:       []ParentRef{},
	}
	if t.nodes[n.ID] != nil {
		return nil, fmt.Errorf("loom: unable to add a node to tree %s: id %s is taken", t.ID, n.ID)
	}
	sources := make([]EdgeSource, len(s.sources))
	for i, src := range s.sources {
		p := t.nodes[src.NodeID]
		if p == nil {
			return nil, fmt.Errorf("loom: unable to add a node to tree %s: source %s is not in it", t.ID, src.NodeID)
		}
		role := src.Role
		if role == "" {
			role = RolePrimary
		}
		if role != RolePrimary && role != RoleContext && role != RoleInstruction {
			return nil, fmt.Errorf("loom: unable to add a node to tree %s: source %s has unknown role %q", t.ID, src.NodeID, role)
		}
		sources[i] = EdgeSource{NodeID: p.ID, Role: role}
		n.Parents = append(n.Parents, ParentRef{NodeID: p.ID, Role: role, Hash: p.ContentHash})
	}
	if s.author.Type == AuthorModel && len(s.raw) > 0 {
		n.RawResponseHash = SHA256Hex(s.raw)
	}
	n.LocalID = LocalID(n.ID, func(id string) bool { return t.localIDs[id] != nil })
	hash, err := ComputeHash(n)
	if err != nil {
		return nil, err
	}
	n.ContentHash = hash
	var edge *Edge
	if len(sources) > 0 {
		edge = &Edge{ID: t.newID(created), TreeID: t.ID, Sources: sources, TargetNodeID: n.ID,
			Type: s.edgeType, CreatedAt: created}
		if t.edgeIDs[edge.ID] {
			return nil, fmt.Errorf("loom: unable to add a node to tree %s: edge id %s is taken", t.ID, edge.ID)
		}
	}
	t.agents[s.author.ID] = s.author
	t.index(n)
	if edge != nil {
		t.indexEdge(edge)
	}
	if len(s.raw) > 0 && n.RawResponseHash != "" {
		t.raw[n.ID] = slices.Clone(s.raw)
	}
	if created.After(t.UpdatedAt) {
		t.UpdatedAt = created
	}
	return n, nil
}

// checkAuthor rejects an agent without id or type, or one whose id the tree
// knows with another type.
func (t *Tree) checkAuthor(a Agent) error {
	if a.ID == "" {
		return fmt.Errorf("loom: unable to add a node to tree %s: the author agent has no id", t.ID)
	}
	if a.Type != AuthorHuman && a.Type != AuthorModel {
		return fmt.Errorf("loom: unable to add a node to tree %s: agent %s has unknown type %q", t.ID, a.ID, a.Type)
	}
	if known, ok := t.agents[a.ID]; ok && known.Type != a.Type {
		return fmt.Errorf("loom: unable to add a node to tree %s: agent %s is a %s, not a %s", t.ID, a.ID, known.Type, a.Type)
	}
	return nil
}

// before orders nodes and edges: by creation time, then id.
func before(at time.Time, id string, bt time.Time, bid string) bool {
	return compareOrder(at, id, bt, bid) < 0
}

func compareOrder(at time.Time, id string, bt time.Time, bid string) int {
	if c := at.Compare(bt); c != 0 {
		return c
	}
	return strings.Compare(id, bid)
}

// insertNode inserts n into list kept in creation order.
func insertNode(list []*Node, n *Node) []*Node {
	i := len(list)
	for i > 0 && before(n.CreatedAt, n.ID, list[i-1].CreatedAt, list[i-1].ID) {
		i--
	}
	return slices.Insert(list, i, n)
}

// index adds n to the tree's node indexes (not to its parents' children:
// indexEdge does that).
func (t *Tree) index(n *Node) {
	t.nodes[n.ID] = n
	t.order = insertNode(t.order, n)
	t.localIDs[n.LocalID] = n
	if n.EditedFrom != "" {
		t.edits[n.EditedFrom] = insertNode(t.edits[n.EditedFrom], n)
	}
}

// indexEdge adds e to the tree's edge indexes.
func (t *Tree) indexEdge(e *Edge) {
	i := len(t.edges)
	for i > 0 && before(e.CreatedAt, e.ID, t.edges[i-1].CreatedAt, t.edges[i-1].ID) {
		i--
	}
	t.edges = slices.Insert(t.edges, i, e)
	t.edgeIDs[e.ID] = true
	t.incoming[e.TargetNodeID] = append(t.incoming[e.TargetNodeID], e)
	target := t.nodes[e.TargetNodeID]
	parent := e.Primary()
	if target == nil || parent == "" {
		return
	}
	switch e.Type {
	case EdgeContinuation:
		t.children[parent] = insertNode(t.children[parent], target)
	case EdgeAnnotation:
		t.annotations[parent] = insertNode(t.annotations[parent], target)
	}
}

// Restore rebuilds a tree from stored parts (the store, an import). It checks
// what the tree cannot work without: unique node, edge and local ids, nodes
// and edges of this tree, the root, every edge's target and every node's
// author agent. It does not check hashes or parents: VerifyTree reports
// those, so a tampered tree still loads.
func Restore(info LoomTree, agents []Agent, nodes []*Node, edges []*Edge) (*Tree, error) {
	t := newTree(info)
	if info.ID == "" {
		return nil, errors.New("loom: unable to restore a tree: no id")
	}
	if info.Mode != ModeDialogue && info.Mode != ModeBuffer {
		return nil, fmt.Errorf("loom: unable to restore tree %s: unknown mode %q", info.ID, info.Mode)
	}
	for _, a := range agents {
		t.agents[a.ID] = a
	}
	nodes = slices.Clone(nodes)
	slices.SortStableFunc(nodes, func(a, b *Node) int {
		if a == nil || b == nil {
			return 0
		}
		return compareOrder(a.CreatedAt, a.ID, b.CreatedAt, b.ID)
	})
	for _, n := range nodes {
		switch {
		case n == nil || n.ID == "":
			return nil, fmt.Errorf("loom: unable to restore tree %s: a node has no id", info.ID)
		case n.TreeID != info.ID:
			return nil, fmt.Errorf("loom: unable to restore tree %s: node %s belongs to tree %s", info.ID, n.ID, n.TreeID)
		case t.nodes[n.ID] != nil:
			return nil, fmt.Errorf("loom: unable to restore tree %s: node %s appears twice", info.ID, n.ID)
		case n.LocalID == "":
			return nil, fmt.Errorf("loom: unable to restore tree %s: node %s has no local id", info.ID, n.ID)
		case t.localIDs[n.LocalID] != nil:
			return nil, fmt.Errorf("loom: unable to restore tree %s: local id %s is on nodes %s and %s",
				info.ID, n.LocalID, t.localIDs[n.LocalID].ID, n.ID)
		}
		if _, ok := t.agents[n.AuthorAgentID]; !ok {
			return nil, fmt.Errorf("loom: unable to restore tree %s: node %s's author agent %s is missing", info.ID, n.ID, n.AuthorAgentID)
		}
		if n.Parents == nil {
			n.Parents = []ParentRef{}
		}
		t.index(n)
	}
	if t.nodes[info.RootNodeID] == nil {
		return nil, fmt.Errorf("loom: unable to restore tree %s: root node %s is missing", info.ID, info.RootNodeID)
	}
	for _, e := range edges {
		switch {
		case e == nil || e.ID == "":
			return nil, fmt.Errorf("loom: unable to restore tree %s: an edge has no id", info.ID)
		case e.TreeID != info.ID:
			return nil, fmt.Errorf("loom: unable to restore tree %s: edge %s belongs to tree %s", info.ID, e.ID, e.TreeID)
		case t.edgeIDs[e.ID]:
			return nil, fmt.Errorf("loom: unable to restore tree %s: edge %s appears twice", info.ID, e.ID)
		case t.nodes[e.TargetNodeID] == nil:
			return nil, fmt.Errorf("loom: unable to restore tree %s: edge %s's target %s is missing", info.ID, e.ID, e.TargetNodeID)
		case e.Type != EdgeContinuation && e.Type != EdgeAnnotation:
			return nil, fmt.Errorf("loom: unable to restore tree %s: edge %s has unknown type %q", info.ID, e.ID, e.Type)
		}
		t.indexEdge(e)
	}
	return t, nil
}

// Node returns the node with id, or nil.
func (t *Tree) Node(id string) *Node { return t.nodes[id] }

// NodeByLocalID returns the node with local id localID, or nil.
func (t *Tree) NodeByLocalID(localID string) *Node { return t.localIDs[localID] }

// Root returns the root node.
func (t *Tree) Root() *Node { return t.nodes[t.RootNodeID] }

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.order) }

// Nodes returns every node in creation order. The nodes are the tree's own:
// read them, never change them.
func (t *Tree) Nodes() []*Node { return slices.Clone(t.order) }

// Edges returns every edge in creation order.
func (t *Tree) Edges() []*Edge { return slices.Clone(t.edges) }

// IncomingEdge returns the edge into node id (nil for a root).
func (t *Tree) IncomingEdge(id string) *Edge {
	if in := t.incoming[id]; len(in) > 0 {
		return in[0]
	}
	return nil
}

// Agents returns the agents that wrote the tree's nodes, by id.
func (t *Tree) Agents() []Agent {
	out := make([]Agent, 0, len(t.agents))
	for _, a := range t.agents {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Agent) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Agent returns the agent with id.
func (t *Tree) Agent(id string) (Agent, bool) {
	a, ok := t.agents[id]
	return a, ok
}

// RawResponse returns the raw API response of model node id, if the tree
// holds it (the store loads raw responses only on demand).
func (t *Tree) RawResponse(id string) []byte { return t.raw[id] }

// SetRawResponse attaches the raw API response of node id, as read from
// storage. VerifyTree checks it against the node's RawResponseHash.
func (t *Tree) SetRawResponse(id string, raw []byte) error {
	if t.nodes[id] == nil {
		return fmt.Errorf("loom: unable to attach a raw response: node %s is not in tree %s", id, t.ID)
	}
	t.raw[id] = raw
	return nil
}

// SetMetadata replaces node id's UI state.
func (t *Tree) SetMetadata(id string, m NodeMetadata) error {
	n := t.nodes[id]
	if n == nil {
		return fmt.Errorf("loom: unable to change node %s: not in tree %s", id, t.ID)
	}
	if !m.Bookmarked {
		m.BookmarkLabel = ""
	}
	if m.Pruned != n.Metadata.Pruned {
		clear(t.hidden)
	}
	n.Metadata = m
	return nil
}

// SetBookmark bookmarks node id with an optional label, or removes its
// bookmark.
func (t *Tree) SetBookmark(id string, bookmarked bool, label string) error {
	return t.changeMetadata(id, func(m *NodeMetadata) { m.Bookmarked, m.BookmarkLabel = bookmarked, label })
}

// SetPruned prunes node id and so its branch (a soft delete: see Hidden), or
// restores it.
func (t *Tree) SetPruned(id string, pruned bool) error {
	return t.changeMetadata(id, func(m *NodeMetadata) { m.Pruned = pruned })
}

// SetExcluded leaves node id out of context windows, or puts it back.
func (t *Tree) SetExcluded(id string, excluded bool) error {
	return t.changeMetadata(id, func(m *NodeMetadata) { m.Excluded = excluded })
}

func (t *Tree) changeMetadata(id string, change func(*NodeMetadata)) error {
	n := t.nodes[id]
	if n == nil {
		return fmt.Errorf("loom: unable to change node %s: not in tree %s", id, t.ID)
	}
	m := n.Metadata
	change(&m)
	return t.SetMetadata(id, m)
}

// SetSummary sets node id's generated summary.
func (t *Tree) SetSummary(id, summary string) error {
	n := t.nodes[id]
	if n == nil {
		return fmt.Errorf("loom: unable to change node %s: not in tree %s", id, t.ID)
	}
	n.Summary = summary
	return nil
}
