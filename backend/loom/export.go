package loom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"rhizome/backend/link"
)

// Rhizome's loom tree export format.
const (
	ExportFormat  = "rhizome.loom-tree"
	ExportVersion = 1
)

// Export is a whole tree as one JSON document: everything needed to rebuild
// it exactly, hash chain included. Nodes and edges are in creation order,
// agents by id, blobs by reference; byte slices are base64.
type Export struct {
	Format       string         `json:"format"`  // ExportFormat
	Version      int            `json:"version"` // ExportVersion
	Tree         LoomTree       `json:"tree"`
	Agents       []Agent        `json:"agents"`
	Nodes        []*Node        `json:"nodes"`
	Edges        []*Edge        `json:"edges"`
	RawResponses []RawResponse  `json:"rawResponses,omitempty"`
	Blobs        []ExportedBlob `json:"blobs,omitempty"`
	// ActivePath is the path the tree was last open on (UI state, not
	// hashed; Tree.SetActivePath). Exports written before it was added
	// have none, and readers that predate it ignore it.
	ActivePath *ActivePath `json:"activePath,omitempty"`
	// Links are the links from or to the tree or one of its nodes (the
	// Aspen Grove Link entity, backend/link), by id: they travel with the
	// tree. Not hashed. Exports written before they were added have none,
	// and readers that predate them ignore them.
	Links []link.Link `json:"links,omitempty"`
}

// RawResponse is the raw API response a model node came from.
type RawResponse struct {
	NodeID string `json:"nodeId"`
	Data   []byte `json:"data"`
}

// ExportedBlob is the bytes of an image or audio file of the tree.
type ExportedBlob struct {
	Ref      string `json:"ref"`
	Hash     string `json:"hash"` // SHA-256 hex of Data
	MimeType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

// Export writes t in Rhizome's format: indented JSON, HTML characters left
// as they are, ending in a newline. The same tree always gives the same
// bytes. Raw responses are those the tree holds; image and audio bytes are
// read from blobs and embedded, or left out when blobs is nil. It returns an
// error when a blob is missing or does not match its hash.
func (t *Tree) Export(blobs BlobStore) ([]byte, error) {
	return t.ExportWithLinks(blobs, nil)
}

// ExportWithLinks is Export carrying links, those from or to the tree or one
// of its nodes (others are an error), sorted by id.
func (t *Tree) ExportWithLinks(blobs BlobStore, links []link.Link) ([]byte, error) {
	x := Export{Format: ExportFormat, Version: ExportVersion, Tree: t.LoomTree, Agents: t.Agents(),
		Nodes: t.order, Edges: t.edges}
	if len(links) > 0 {
		x.Links = slices.Clone(links)
		slices.SortFunc(x.Links, func(a, b link.Link) int { return strings.Compare(a.ID, b.ID) })
		if err := x.checkLinks(); err != nil {
			return nil, fmt.Errorf("loom: unable to export tree %s: %w", t.ID, err)
		}
	}
	if ap, ok := t.RememberedPath(); ok {
		x.ActivePath = &ap
	}
	for _, n := range t.order {
		if raw, ok := t.raw[n.ID]; ok {
			x.RawResponses = append(x.RawResponses, RawResponse{NodeID: n.ID, Data: raw})
		}
	}
	if blobs != nil {
		seen := map[string]bool{}
		for _, n := range t.order {
			for _, m := range n.Content.media() {
				if seen[m.Ref] {
					continue
				}
				seen[m.Ref] = true
				data, err := blobs.Get(m.Ref)
				if err != nil {
					return nil, fmt.Errorf("loom: unable to export tree %s: node %s: %w", t.ID, n.ID, err)
				}
				if SHA256Hex(data) != m.Hash {
					return nil, fmt.Errorf("loom: unable to export tree %s: blob %s of node %s does not match its hash %s",
						t.ID, m.Ref, n.ID, m.Hash)
				}
				x.Blobs = append(x.Blobs, ExportedBlob{Ref: m.Ref, Hash: m.Hash, MimeType: m.MimeType, Data: data})
			}
		}
		slices.SortFunc(x.Blobs, func(a, b ExportedBlob) int { return strings.Compare(a.Ref, b.Ref) })
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(x); err != nil {
		return nil, fmt.Errorf("loom: unable to export tree %s: %w", t.ID, err)
	}
	return buf.Bytes(), nil
}

// IsExport reports whether data looks like a tree written by Export: a JSON
// object whose "format" is ExportFormat, or, for one too damaged to decode,
// that names ExportFormat in its first 4 KiB (Import then says what is
// wrong with it).
func IsExport(data []byte) bool {
	var head struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(data, &head) == nil && head.Format == ExportFormat {
		return true
	}
	return bytes.Contains(data[:min(len(data), 4096)], []byte(`"`+ExportFormat+`"`))
}

// Import reads a tree written by Export. Embedded blobs are stored in blobs
// (skipped when blobs is nil); each must match its hash and get back its
// reference (BlobStore is content-addressed). It checks the tree's structure
// (see Restore) but not its hashes: run VerifyTree on the result. The
// exported active path is remembered as it is (ActivePath checks it).
func Import(data []byte, blobs BlobStore) (*Tree, error) {
	t, _, err := ImportWithLinks(data, blobs)
	return t, err
}

// ImportWithLinks is Import returning the links the export carries too
// (see Export.Links), each checked (link.Link.Validate) and from or to the
// tree or one of its nodes; an export without links gives none. A link that
// is not valid, or joins two items outside the tree, is an error naming it.
func ImportWithLinks(data []byte, blobs BlobStore) (*Tree, []link.Link, error) {
	x, err := decodeExport(data)
	if err != nil {
		return nil, nil, err
	}
	return x.buildWithLinks(blobs)
}

// ImportCopy reads a tree written by Export as a new tree beside the one
// exported: the tree, its nodes and its edges get new ULIDs (each at its
// own creation time, in creation order, so the order is kept) and the nodes
// new local ids; everything else is kept: content, authors, creation times,
// content hashes, node state, the active path, raw responses and blobs. A
// node's hash covers no id (ComputeHash), so the copy's hash chain holds
// exactly as the original's did. The copy records its provenance: CopiedFrom is the
// exported tree's id (or the one it was itself a copy of), CopySource is
// source (a file name), and its title gains " (copy)". now is its updated
// time. Errors are those of Import.
func ImportCopy(data []byte, blobs BlobStore, source string, now time.Time) (*Tree, error) {
	t, _, err := ImportCopyWithLinks(data, blobs, source, now)
	return t, err
}

// ImportCopyWithLinks is ImportCopy returning the export's links too, as
// ImportWithLinks does, remapped to the copy: an end that is the tree or
// one of its nodes names the copy's, and every link gets a new id (the
// original links stay with the original tree).
func ImportCopyWithLinks(data []byte, blobs BlobStore, source string, now time.Time) (*Tree, []link.Link, error) {
	x, err := decodeExport(data)
	if err != nil {
		return nil, nil, err
	}
	if err := x.checkLinks(); err != nil {
		return nil, nil, fmt.Errorf("loom: unable to import tree %s: %w", x.Tree.ID, err)
	}
	x.renew(source, now)
	return x.buildWithLinks(blobs)
}

// touches reports whether item it is tree treeID or one of its nodes.
func touches(it link.Item, treeID string) bool {
	return it.Kind == link.KindLoomTree && it.ID == treeID || it.Kind == link.KindLoomNode && it.Within == treeID
}

// checkLinks checks every link of x: valid (link.Link.Validate), one end
// the tree or one of its nodes, no id twice.
func (x *Export) checkLinks() error {
	seen := map[string]bool{}
	for i, l := range x.Links {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("links[%d]: %w", i, err)
		}
		if !touches(l.Source, x.Tree.ID) && !touches(l.Target, x.Tree.ID) {
			return fmt.Errorf("links[%d]: link %s joins %s and %s, neither of them tree %s or one of its nodes",
				i, l.ID, l.Source, l.Target, x.Tree.ID)
		}
		if seen[l.ID] {
			return fmt.Errorf("links[%d]: link %s is listed twice", i, l.ID)
		}
		seen[l.ID] = true
	}
	return nil
}

// buildWithLinks is build, checking and returning x's links.
func (x *Export) buildWithLinks(blobs BlobStore) (*Tree, []link.Link, error) {
	if err := x.checkLinks(); err != nil {
		return nil, nil, fmt.Errorf("loom: unable to import tree %s: %w", x.Tree.ID, err)
	}
	t, err := x.build(blobs)
	if err != nil {
		return nil, nil, err
	}
	return t, x.Links, nil
}

// decodeExport reads and checks the head of an export.
func decodeExport(data []byte) (*Export, error) {
	var x Export
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("loom: unable to import a tree: %w", err)
	}
	if x.Format != ExportFormat {
		return nil, fmt.Errorf("loom: unable to import a tree: format is %q, not %q", x.Format, ExportFormat)
	}
	if x.Version != ExportVersion {
		return nil, fmt.Errorf("loom: unable to import tree %s: format version %d is not %d", x.Tree.ID, x.Version, ExportVersion)
	}
	return &x, nil
}

// renew gives x's tree, nodes and edges new ids (see ImportCopy). Ids that
// name nothing in the export (a tampered one) are left as they are, for
// VerifyTree to report.
func (x *Export) renew(source string, now time.Time) {
	ids := map[string]string{}
	nodes := slices.Clone(x.Nodes)
	slices.SortStableFunc(nodes, func(a, b *Node) int {
		if a == nil || b == nil {
			return 0
		}
		return compareOrder(a.CreatedAt, a.ID, b.CreatedAt, b.ID)
	})
	for _, n := range nodes {
		if n != nil && n.ID != "" {
			ids[n.ID] = NewID(n.CreatedAt)
		}
	}
	id := func(old string) string {
		if v, ok := ids[old]; ok {
			return v
		}
		return old
	}
	origTree := x.Tree.ID
	origin := x.Tree.ID
	if x.Tree.CopiedFrom != "" {
		origin = x.Tree.CopiedFrom
	}
	x.Tree.ID = NewID(now)
	x.Tree.RootNodeID = id(x.Tree.RootNodeID)
	x.Tree.CopiedFrom, x.Tree.CopySource = origin, source
	x.Tree.UpdatedAt = normalTime(now)
	x.Tree.ArchivedAt = nil
	if x.Tree.Title != "" {
		x.Tree.Title += " (copy)"
	}
	localIDs := map[string]bool{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		n.ID, n.TreeID, n.EditedFrom = id(n.ID), x.Tree.ID, id(n.EditedFrom)
		n.LocalID = LocalID(n.ID, func(l string) bool { return localIDs[l] })
		localIDs[n.LocalID] = true
		for i := range n.Parents {
			n.Parents[i].NodeID = id(n.Parents[i].NodeID)
		}
	}
	for _, e := range x.Edges {
		if e == nil {
			continue
		}
		e.ID, e.TreeID, e.TargetNodeID = NewID(e.CreatedAt), x.Tree.ID, id(e.TargetNodeID)
		for i := range e.Sources {
			e.Sources[i].NodeID = id(e.Sources[i].NodeID)
		}
	}
	for i := range x.RawResponses {
		x.RawResponses[i].NodeID = id(x.RawResponses[i].NodeID)
	}
	// Links follow the copy: its tree and nodes, under new link ids (each at
	// its creation time, so their order is kept).
	end := func(it link.Item) link.Item {
		switch {
		case it.Kind == link.KindLoomTree && it.ID == origTree:
			return link.LoomTree(x.Tree.ID)
		case it.Kind == link.KindLoomNode && it.Within == origTree:
			return link.LoomNode(x.Tree.ID, id(it.ID))
		}
		return it
	}
	for i := range x.Links {
		l := &x.Links[i]
		l.ID, l.Source, l.Target = NewID(l.CreatedAt), end(l.Source), end(l.Target)
	}
	if ap := x.ActivePath; ap != nil {
		ap.NodeID = id(ap.NodeID)
		if ap.Versions != nil {
			versions := make(map[string]string, len(ap.Versions))
			for fam, v := range ap.Versions {
				versions[id(fam)] = id(v)
			}
			ap.Versions = versions
		}
	}
}

// build makes the tree of x, storing its blobs in blobs (when not nil).
func (x *Export) build(blobs BlobStore) (*Tree, error) {
	t, err := Restore(x.Tree, x.Agents, x.Nodes, x.Edges)
	if err != nil {
		return nil, err
	}
	if x.ActivePath != nil {
		t.RestoreActivePath(*x.ActivePath)
	}
	for _, r := range x.RawResponses {
		if err := t.SetRawResponse(r.NodeID, r.Data); err != nil {
			return nil, fmt.Errorf("loom: unable to import tree %s: %w", x.Tree.ID, err)
		}
	}
	if blobs != nil {
		for _, b := range x.Blobs {
			if SHA256Hex(b.Data) != b.Hash {
				return nil, fmt.Errorf("loom: unable to import tree %s: blob %s does not match its hash", x.Tree.ID, b.Ref)
			}
			ref, _, err := blobs.Put(b.Data, b.MimeType)
			if err != nil {
				return nil, fmt.Errorf("loom: unable to import tree %s: blob %s: %w", x.Tree.ID, b.Ref, err)
			}
			if ref != b.Ref {
				return nil, fmt.Errorf("loom: unable to import tree %s: blob %s was stored as %s (the blob store is not content-addressed)",
					x.Tree.ID, b.Ref, ref)
			}
		}
	}
	return t, nil
}
