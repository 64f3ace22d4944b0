package loom

import (
	"fmt"
	"slices"
	"strings"
)

// ActivePath is the UI's choice of a path: the node it ends at and, in buffer
// mode, the version shown at each position. It is UI state: the tree
// remembers the last one (Tree.SetActivePath), not hashed.
type ActivePath struct {
	NodeID string `json:"nodeId"`
	// Versions maps a version family (Family: the id of its oldest node) to
	// the version chosen for it. A position without a choice shows its
	// family's newest version. Ignored in dialogue mode, where an edit is a
	// branch of its own.
	Versions map[string]string `json:"versions,omitempty"`
}

// Family returns the id of the oldest node of id's version family: follow
// editedFrom back to a node that was not edited from another. It returns ""
// for an unknown node.
func (t *Tree) Family(id string) string {
	n := t.nodes[id]
	for steps := 0; n != nil && n.EditedFrom != "" && steps <= len(t.order); steps++ {
		up := t.nodes[n.EditedFrom]
		if up == nil {
			break
		}
		n = up
	}
	if n == nil {
		return ""
	}
	return n.ID
}

// Versions returns id's whole version family in creation order: the node it
// was edited from, that node's own original, every other edit of any of
// them, id itself. A node never edited is a family of one.
func (t *Tree) Versions(id string) []*Node {
	root := t.nodes[t.Family(id)]
	if root == nil {
		return nil
	}
	out := []*Node{root}
	seen := map[string]bool{root.ID: true}
	for i := 0; i < len(out); i++ {
		for _, e := range t.edits[out[i].ID] {
			if !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b *Node) int { return compareOrder(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out
}

// EditChain returns the nodes from id's oldest original to id along
// editedFrom: the chain authorship is computed along.
func (t *Tree) EditChain(id string) []*Node {
	var chain []*Node
	seen := map[string]bool{}
	for n := t.nodes[id]; n != nil && !seen[n.ID]; n = t.nodes[n.EditedFrom] {
		seen[n.ID] = true
		chain = append(chain, n)
	}
	slices.Reverse(chain)
	return chain
}

// newestVersion returns the newest node of the family of id.
func (t *Tree) newestVersion(id string) *Node {
	v := t.Versions(id)
	if len(v) == 0 {
		return nil
	}
	return v[len(v)-1]
}

// parentOf returns the primary source of node id's incoming edge: the node a
// path runs through. ok is false when the edge names a node not in the tree.
func (t *Tree) parentOf(id string) (parent *Node, ok bool) {
	in := t.IncomingEdge(id)
	if in == nil {
		return nil, true
	}
	p := t.nodes[in.Primary()]
	return p, p != nil
}

// isAnnotation reports whether n came in by an annotation edge.
func (t *Tree) isAnnotation(n *Node) bool {
	in := t.IncomingEdge(n.ID)
	return in != nil && in.Type == EdgeAnnotation
}

// isFolded reports whether n is, in buffer mode, a version standing at its
// original's position rather than a position of its own.
func (t *Tree) isFolded(n *Node) bool { return t.Mode == ModeBuffer && n.EditedFrom != "" }

// Path returns the nodes from the root to id. In buffer mode each position
// above id shows its family's newest version; use ResolvePath to choose.
func (t *Tree) Path(id string) ([]*Node, error) { return t.ResolvePath(ActivePath{NodeID: id}) }

// ResolvePath returns the nodes of ap from the root to ap.NodeID, following
// each node's incoming continuation edge (its primary source) upwards. In
// buffer mode every position shows the version ap.Versions chooses for its
// family, or else the family's newest version (ap.NodeID itself unless a
// choice names another version of it). It returns an error for an unknown
// node, a choice that is not a version of its family, or a path that does
// not reach a root.
func (t *Tree) ResolvePath(ap ActivePath) ([]*Node, error) {
	end := t.nodes[ap.NodeID]
	if end == nil {
		return nil, fmt.Errorf("loom: unable to resolve a path in tree %s: node %s is not in it", t.ID, ap.NodeID)
	}
	if t.Mode == ModeBuffer {
		for fam, v := range ap.Versions {
			if t.nodes[v] == nil || t.Family(v) != fam {
				return nil, fmt.Errorf("loom: unable to resolve a path in tree %s: node %s is not a version of %s", t.ID, v, fam)
			}
		}
	}
	var path []*Node
	seen := map[string]bool{}
	for n := end; n != nil; {
		if seen[n.ID] {
			return nil, fmt.Errorf("loom: unable to resolve a path in tree %s: node %s is its own ancestor", t.ID, n.ID)
		}
		seen[n.ID] = true
		path = append(path, n)
		p, ok := t.parentOf(n.ID)
		if !ok {
			return nil, fmt.Errorf("loom: unable to resolve a path in tree %s: node %s's parent is missing", t.ID, n.ID)
		}
		n = p
	}
	slices.Reverse(path)
	if t.Family(path[0].ID) != t.Family(t.RootNodeID) {
		return nil, fmt.Errorf("loom: unable to resolve a path in tree %s: node %s does not descend from the root", t.ID, ap.NodeID)
	}
	if t.Mode == ModeBuffer {
		for i, n := range path {
			fam := t.Family(n.ID)
			if v, ok := ap.Versions[fam]; ok {
				path[i] = t.nodes[v]
			} else if i < len(path)-1 {
				path[i] = t.newestVersion(n.ID)
			}
		}
	}
	return path, nil
}

// Context returns the nodes of ap that go into a context window: the path
// without excluded nodes and annotations.
func (t *Tree) Context(ap ActivePath) ([]*Node, error) {
	path, err := t.ResolvePath(ap)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(path, func(n *Node) bool { return n.Metadata.Excluded || t.isAnnotation(n) }), nil
}

// Children returns the nodes continuing id (whose incoming continuation edge
// has id as primary source), in creation order. In buffer mode a position's
// children are those of all its versions, and a version is not a child of
// its own: it stands at its original's position (see ResolvePath). In
// dialogue mode an edit is a sibling like any other.
func (t *Tree) Children(id string) []*Node {
	if t.nodes[id] == nil {
		return nil
	}
	if t.Mode != ModeBuffer {
		return slices.Clone(t.children[id])
	}
	var out []*Node
	for _, v := range t.Versions(id) {
		for _, c := range t.children[v.ID] {
			if !t.isFolded(c) {
				out = insertNode(out, c)
			}
		}
	}
	return out
}

// Siblings returns the other children of id's parent, in creation order. For
// a root in dialogue mode they are the root's edits (and their original).
func (t *Tree) Siblings(id string) []*Node {
	n := t.nodes[id]
	if n == nil {
		return nil
	}
	p, _ := t.parentOf(id)
	var all []*Node
	switch {
	case p != nil:
		all = t.Children(p.ID)
	case t.Mode == ModeDialogue:
		for _, v := range t.Versions(id) {
			if in := t.IncomingEdge(v.ID); in == nil {
				all = append(all, v)
			}
		}
	}
	self := id
	if t.Mode == ModeBuffer {
		self = t.Family(id)
	}
	return slices.DeleteFunc(all, func(c *Node) bool { return c.ID == self })
}

// positions returns the nodes that are positions of the tree: every node but
// annotations and, in buffer mode, versions.
func (t *Tree) positions() []*Node {
	var out []*Node
	for _, n := range t.order {
		if !t.isFolded(n) && !t.isAnnotation(n) {
			out = append(out, n)
		}
	}
	return out
}

// Positions returns how many positions the tree has: what a tree map draws,
// every node but annotations and, in buffer mode, versions.
func (t *Tree) Positions() int { return len(t.positions()) }

// BranchPoints returns the positions with more than one child, in creation
// order.
func (t *Tree) BranchPoints() []*Node {
	var out []*Node
	for _, n := range t.positions() {
		if len(t.Children(n.ID)) > 1 {
			out = append(out, n)
		}
	}
	return out
}

// Leaves returns the positions without children, in creation order.
func (t *Tree) Leaves() []*Node {
	var out []*Node
	for _, n := range t.positions() {
		if len(t.Children(n.ID)) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// Annotations returns the annotation nodes on id, in creation order.
func (t *Tree) Annotations(id string) []*Node { return slices.Clone(t.annotations[id]) }

// Hidden reports whether id or one of its ancestors along primary sources
// is pruned (false for an unknown node). Answers are remembered until a
// node's pruning changes, so asking for every node of a deep tree costs one
// walk, not one walk to the root per node.
func (t *Tree) Hidden(id string) bool {
	var walked []string
	hidden := false
	seen := map[string]bool{}
	for n := t.nodes[id]; n != nil; n, _ = t.parentOf(n.ID) {
		if h, ok := t.hidden[n.ID]; ok {
			hidden = h
			break
		}
		if seen[n.ID] { // a cycle: only a tampered tree has one
			break
		}
		seen[n.ID] = true
		walked = append(walked, n.ID)
		if n.Metadata.Pruned {
			hidden = true
			break
		}
	}
	for _, w := range walked {
		t.hidden[w] = hidden
	}
	return hidden
}

// Parent returns the id of the node id continues (the primary source of its
// incoming edge), "" for a root or an unknown node.
func (t *Tree) Parent(id string) string {
	if in := t.IncomingEdge(id); in != nil {
		return in.Primary()
	}
	return ""
}

// IsAnnotation reports whether node id came in by an annotation edge.
func (t *Tree) IsAnnotation(id string) bool {
	n := t.nodes[id]
	return n != nil && t.isAnnotation(n)
}

// IsPosition reports whether node id is a position of the tree, a place a
// path runs through and a tree map draws: every node but annotations and, in
// buffer mode, versions (which stand at their original's position).
func (t *Tree) IsPosition(id string) bool {
	n := t.nodes[id]
	return n != nil && !t.isFolded(n) && !t.isAnnotation(n)
}

// SiblingIDs returns the positions under id's parent in creation order,
// id's own included (in buffer mode named by its family's id), and the index
// of id's own among them: what a person walks between with the arrow keys.
// See aspen-grove-core-entities.md, "Siblings".
func (t *Tree) SiblingIDs(id string) (ids []string, self int) {
	own := id
	if t.Mode == ModeBuffer {
		own = t.Family(id)
	}
	ownNode := t.nodes[own]
	if ownNode == nil {
		return []string{}, 0
	}
	ids = []string{}
	placed := false
	for _, s := range t.Siblings(id) {
		if !placed && (s.CreatedAt.After(ownNode.CreatedAt) || s.CreatedAt.Equal(ownNode.CreatedAt) && s.ID > own) {
			self, placed = len(ids), true
			ids = append(ids, own)
		}
		ids = append(ids, s.ID)
	}
	if !placed {
		self = len(ids)
		ids = append(ids, own)
	}
	return ids, self
}

// NormalPath returns ap without version choices outside buffer mode, where
// they mean nothing (nil Versions when there are none).
func (t *Tree) NormalPath(ap ActivePath) ActivePath {
	if t.Mode != ModeBuffer || len(ap.Versions) == 0 {
		ap.Versions = nil
	}
	return ap
}

// ActivePath returns the path to open the tree on: the remembered one
// (SetActivePath) while it still resolves, else the path to the newest
// visible leaf (the root when every leaf is hidden).
func (t *Tree) ActivePath() ActivePath {
	if t.active != nil {
		if _, err := t.ResolvePath(*t.active); err == nil {
			return t.NormalPath(*t.active)
		}
	}
	end := t.RootNodeID
	for _, n := range t.Leaves() {
		if !t.Hidden(n.ID) {
			end = n.ID
		}
	}
	return ActivePath{NodeID: end}
}

// SetActivePath remembers ap, normalised (NormalPath), as the path to open
// the tree on, and returns it. It is UI state: not hashed, kept with the tree
// and exported with it. It returns ResolvePath's error for a path that does
// not resolve, and remembers nothing then.
func (t *Tree) SetActivePath(ap ActivePath) (ActivePath, error) {
	if _, err := t.ResolvePath(ap); err != nil {
		return ActivePath{}, err
	}
	ap = t.NormalPath(ap)
	t.active = &ap
	return ap, nil
}

// RestoreActivePath remembers ap as it was stored or imported, unchecked:
// ActivePath ignores it while it does not resolve.
func (t *Tree) RestoreActivePath(ap ActivePath) {
	if ap.NodeID == "" {
		t.active = nil
		return
	}
	t.active = &ap
}

// RememberedPath returns the remembered active path, ok false when none.
func (t *Tree) RememberedPath() (ap ActivePath, ok bool) {
	if t.active == nil {
		return ActivePath{}, false
	}
	return *t.active, true
}

// PathText joins the plain text of nodes: the document of a buffer-mode path.
func PathText(nodes []*Node) string {
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(n.Content.PlainText())
	}
	return b.String()
}
