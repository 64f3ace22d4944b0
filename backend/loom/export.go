package loom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	x := Export{Format: ExportFormat, Version: ExportVersion, Tree: t.LoomTree, Agents: t.Agents(),
		Nodes: t.order, Edges: t.edges}
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

// Import reads a tree written by Export. Embedded blobs are stored in blobs
// (skipped when blobs is nil); each must match its hash and get back its
// reference (BlobStore is content-addressed). It checks the tree's structure
// (see Restore) but not its hashes: run VerifyTree on the result.
func Import(data []byte, blobs BlobStore) (*Tree, error) {
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
	t, err := Restore(x.Tree, x.Agents, x.Nodes, x.Edges)
	if err != nil {
		return nil, err
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
