package loom

import (
	"fmt"
	"slices"
)

// TamperReason says what VerifyTree found wrong with a node.
type TamperReason string

// Tamper reasons.
const (
	// TamperContent: the node's stored hash does not match its own fields
	// (content, creation time, author, recorded parent hashes, raw response
	// hash). Its content or one of those fields was changed.
	TamperContent TamperReason = "content"
	// TamperRawResponse: the stored raw API response does not hash to the
	// node's RawResponseHash.
	TamperRawResponse TamperReason = "raw_response"
	// TamperParentHash: the hash this node recorded for parent RelatedID at
	// creation differs from that parent's stored hash. The node itself is
	// intact: the parent was rewritten, hash included, after this node was
	// made. Reported on the child, whose record is the evidence.
	TamperParentHash TamperReason = "parent_hash"
	// TamperParentSet: the node's incoming edge no longer has the sources the
	// node recorded at creation (re-parented, an edge removed or added, a
	// parent deleted), or a node other than the root has no incoming edge.
	TamperParentSet TamperReason = "parent_set"
	// TamperLineage: the node claims to be an edit of RelatedID, but was not
	// made where RelatedID stands (different recorded parents), or editedFrom
	// names a node that is not in the tree.
	TamperLineage TamperReason = "edit_lineage"
	// TamperBlob: an image or audio file of the node is missing or does not
	// match the hash in its content (see VerifyBlobs).
	TamperBlob TamperReason = "blob"
)

// Tamper is one finding of VerifyTree.
type Tamper struct {
	NodeID  string       `json:"nodeId"`
	LocalID string       `json:"localId"`
	Reason  TamperReason `json:"reason"`
	// RelatedID is the other node involved: the rewritten parent, the
	// claimed original; "" when none.
	RelatedID string `json:"relatedId,omitempty"`
	Detail    string `json:"detail"`
}

// VerifyTree checks the hash chain of t and returns every finding, in node
// creation order, or nil when the tree is intact. Each node is checked on its
// own record only, so a change is reported where it was made:
//
//   - content changed in place (the stored hash left alone): TamperContent on
//     exactly that node; its children recorded its stored hash, which did not
//     change, so they are not reported;
//   - content changed and the node's hash recomputed to hide it: the node
//     passes its own check, and each of its children reports
//     TamperParentHash naming it (RelatedID); grandchildren are not reported,
//     their parents' hashes being untouched;
//   - the parent set changed: TamperParentSet on the re-parented node.
//
// Raw responses are checked when the tree holds them (see SetRawResponse).
// See ERRATA.md, "Buffer mode breaks that chain".
func VerifyTree(t *Tree) []Tamper {
	var out []Tamper
	report := func(n *Node, reason TamperReason, related, format string, args ...any) {
		out = append(out, Tamper{NodeID: n.ID, LocalID: n.LocalID, Reason: reason, RelatedID: related,
			Detail: fmt.Sprintf(format, args...)})
	}
	for _, n := range t.order {
		if h, err := ComputeHash(n); err != nil {
			report(n, TamperContent, "", "content cannot be hashed: %v", err)
		} else if h != n.ContentHash {
			report(n, TamperContent, "", "stored hash %s, but its content, time, author and recorded parents hash to %s",
				short(n.ContentHash), short(h))
		}
		if raw, ok := t.raw[n.ID]; ok && SHA256Hex(raw) != n.RawResponseHash {
			report(n, TamperRawResponse, "", "raw response hashes to %s, the node recorded %s",
				short(SHA256Hex(raw)), short(n.RawResponseHash))
		}
		for _, p := range n.Parents {
			if parent := t.nodes[p.NodeID]; parent != nil && parent.ContentHash != p.Hash {
				report(n, TamperParentHash, p.NodeID, "recorded parent %s with hash %s at creation; it now has %s",
					parent.LocalID, short(p.Hash), short(parent.ContentHash))
			}
		}
		if detail := t.parentSetProblem(n); detail != "" {
			report(n, TamperParentSet, "", "%s", detail)
		}
		if n.EditedFrom != "" {
			orig := t.nodes[n.EditedFrom]
			switch {
			case orig == nil:
				report(n, TamperLineage, n.EditedFrom, "edited from %s, which is not in the tree", n.EditedFrom)
			case !sameParents(orig.Parents, n.Parents):
				report(n, TamperLineage, orig.ID, "edited from %s but made under other parents", orig.LocalID)
			}
		}
	}
	return out
}

// VerifyBlobs checks that every image and audio file of t's nodes is in
// blobs and matches the hash its content records (and so the node's hash).
func VerifyBlobs(t *Tree, blobs BlobStore) []Tamper {
	var out []Tamper
	for _, n := range t.order {
		for _, m := range n.Content.media() {
			data, err := blobs.Get(m.Ref)
			detail := ""
			switch {
			case err != nil:
				detail = fmt.Sprintf("%s: %v", m.Ref, err)
			case SHA256Hex(data) != m.Hash:
				detail = fmt.Sprintf("%s hashes to %s, the content records %s", m.Ref, short(SHA256Hex(data)), short(m.Hash))
			default:
				continue
			}
			out = append(out, Tamper{NodeID: n.ID, LocalID: n.LocalID, Reason: TamperBlob, Detail: detail})
		}
	}
	return out
}

// parentSetProblem compares n's recorded parents with its incoming edges.
func (t *Tree) parentSetProblem(n *Node) string {
	in := t.incoming[n.ID]
	switch {
	case len(in) > 1:
		return fmt.Sprintf("%d incoming edges, a node has one", len(in))
	case len(in) == 0 && len(n.Parents) > 0:
		return fmt.Sprintf("recorded %d parents at creation, but has no incoming edge", len(n.Parents))
	case len(in) == 0 && n.ID != t.RootNodeID && t.Family(n.ID) != t.Family(t.RootNodeID):
		return "has no incoming edge but is not the root"
	case len(in) == 0:
		return ""
	}
	var sources []ParentRef
	for _, s := range in[0].Sources {
		sources = append(sources, ParentRef{NodeID: s.NodeID, Role: s.Role})
	}
	if !sameParents(sources, n.Parents) {
		return fmt.Sprintf("incoming edge %s has sources %s, the node recorded %s at creation",
			in[0].ID, parentList(sources), parentList(n.Parents))
	}
	for _, s := range in[0].Sources {
		if t.nodes[s.NodeID] == nil {
			return fmt.Sprintf("parent %s is not in the tree", s.NodeID)
		}
	}
	return ""
}

// sameParents compares parent lists by node and role, ignoring hashes and
// order.
func sameParents(a, b []ParentRef) bool {
	key := func(ps []ParentRef) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.NodeID + "/" + string(p.Role)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

func parentList(ps []ParentRef) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.NodeID
	}
	return fmt.Sprint(ids)
}

// short abbreviates a hash for messages.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return `""`
	}
	return h
}
