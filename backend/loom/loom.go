// Package loom holds Aspen Grove's loom trees: branching explorations written
// with a model, made of immutable nodes joined by hyperedges, with a hash
// chain for tamper evidence, dialogue and buffer modes, version nodes and
// character-level authorship.
//
// See aspen-grove-core-entities.md, corrected by ERRATA.md, "Aspen Grove":
//
//   - localId comes from a hash of the whole ULID, not its prefix (LocalID);
//   - a node records the parents it had at creation, with their hashes, and
//     its content hash covers those (ComputeHash), so later versions never
//     break the chain, and VerifyTree names exactly the tampered node;
//   - edge sources always mean "all of these" (several inputs combined); the
//     alternatives of a buffer-mode version are its editedFrom family plus the
//     active path's choice (ActivePath), never extra edge sources;
//   - authorship is computed along the editedFrom chain and sent as runs.
//
// Nodes are immutable. What changes after creation, bookmarks, pruning,
// exclusion and the generated summary, is UI state kept beside the node
// (Node.Metadata, Node.Summary; the loom_node_state table) and not hashed.
// The active path is UI state too: a tree remembers the last one
// (Tree.SetActivePath), stored and exported with it, not hashed.
package loom

import (
	"time"
)

// Mode is how a tree renders and edits; fixed at creation.
type Mode string

// Modes. See aspen-grove-core-entities.md, "Edit Behavior by Mode".
const (
	// ModeDialogue is a chat: editing a node makes a sibling branch.
	ModeDialogue Mode = "dialogue"
	// ModeBuffer is a document: editing a node makes a version of it whose
	// downstream stays shared.
	ModeBuffer Mode = "buffer"
)

// AuthorType says whether a human or a model wrote a node.
type AuthorType string

// Author types.
const (
	AuthorHuman AuthorType = "human"
	AuthorModel AuthorType = "model"
)

// Role is the part an edge source plays.
type Role string

// Edge source roles.
const (
	RolePrimary     Role = "primary"
	RoleContext     Role = "context"
	RoleInstruction Role = "instruction"
)

// EdgeType is the kind of an edge.
type EdgeType string

// Edge types. Annotation edges are left out of context windows.
const (
	EdgeContinuation EdgeType = "continuation"
	EdgeAnnotation   EdgeType = "annotation"
)

// DefaultGroveName names the grove every library starts with.
const DefaultGroveName = "Grove"

// Grove is a collection of loom trees. Rhizome has one, made on first use.
type Grove struct {
	ID        string    `json:"id"` // ULID
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// LoomTree is the top-level record of a branching exploration.
// See aspen-grove-core-entities.md, "LoomTree".
type LoomTree struct {
	ID            string     `json:"id"` // ULID
	GroveID       string     `json:"groveId"`
	Title         string     `json:"title"`
	Description   string     `json:"description,omitempty"`
	Summary       string     `json:"summary,omitempty"` // generated, 1-2 sentences
	RootNodeID    string     `json:"rootNodeId"`
	Mode          Mode       `json:"mode"`
	SystemContext string     `json:"systemContext,omitempty"` // prepended to every context window
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	ArchivedAt    *time.Time `json:"archivedAt,omitempty"` // soft delete
	// CopiedFrom is the id of the tree this one is a copy of, "" for an
	// original: ImportCopy gives a tree new ids and records the old one
	// here. Not hashed; an export carries it.
	CopiedFrom string `json:"copiedFrom,omitempty"`
	// CopySource names what the copy was imported from (a file name).
	CopySource string `json:"copySource,omitempty"`
}

// Agent is who writes nodes: the human, or one configured model.
// See aspen-grove-core-entities.md, "Node" (authorAgentId).
type Agent struct {
	ID   string     `json:"id"` // ULID
	Type AuthorType `json:"type"`
	Name string     `json:"name"`
	// ModelConfigRef names the model configuration (the llm settings key,
	// e.g. "anthropic/claude-sonnet-4"); "" for the human.
	ModelConfigRef string `json:"modelConfigRef,omitempty"`
}

// NodeMetadata is a node's mutable UI state: not hashed, stored apart from
// the immutable node (loom_node_state).
type NodeMetadata struct {
	Bookmarked    bool   `json:"bookmarked"`
	BookmarkLabel string `json:"bookmarkLabel,omitempty"`
	Pruned        bool   `json:"pruned"`   // soft delete of the node and its branch
	Excluded      bool   `json:"excluded"` // left out of context windows
}

// ParentRef is one parent a node had at creation: a source of its incoming
// edge, with that source's content hash at the time. Recorded immutably on
// the node (ERRATA.md, "Buffer mode breaks that chain").
type ParentRef struct {
	NodeID string `json:"nodeId"`
	Role   Role   `json:"role"`
	Hash   string `json:"hash"`
}

// Node is one immutable unit of content in a tree.
// See aspen-grove-core-entities.md, "Node".
type Node struct {
	ID      string  `json:"id"`      // ULID
	LocalID string  `json:"localId"` // 6-8 characters, unique in the tree; see LocalID
	TreeID  string  `json:"treeId"`
	Content Content `json:"content"`
	// Summary is generated after creation: UI state, not hashed.
	Summary       string     `json:"summary,omitempty"`
	AuthorType    AuthorType `json:"authorType"`
	AuthorAgentID string     `json:"authorAgentId"`
	ContentHash   string     `json:"contentHash"` // see ComputeHash
	CreatedAt     time.Time  `json:"createdAt"`   // UTC, millisecond precision
	// Metadata is UI state, not hashed; change it through the Tree.
	Metadata NodeMetadata `json:"metadata"`
	// EditedFrom is the node this one was made by editing ("" if none).
	EditedFrom string `json:"editedFrom,omitempty"`
	// Parents are the sources of the node's incoming edge when it was made
	// (none for a root), with their hashes then.
	Parents []ParentRef `json:"parents"`
	// RawResponseHash is the SHA-256 (hex) of the raw API response a model
	// node came from ("" for human nodes).
	RawResponseHash string `json:"rawResponseHash,omitempty"`
}

// EdgeSource is one source of an edge.
type EdgeSource struct {
	NodeID string `json:"nodeId"`
	Role   Role   `json:"role"`
}

// Edge is a directed hyperedge from its sources to a target node. Every node
// but a root has exactly one incoming edge, made with it and never changed;
// all its sources are inputs of the target (AND), never alternatives.
// See aspen-grove-core-entities.md, "Edge", corrected by ERRATA.md.
type Edge struct {
	ID           string       `json:"id"` // ULID
	TreeID       string       `json:"treeId"`
	Sources      []EdgeSource `json:"sources"`
	TargetNodeID string       `json:"targetNodeId"`
	Type         EdgeType     `json:"type"`
	CreatedAt    time.Time    `json:"createdAt"`
}

// Primary is the source a path follows through e: its first primary
// source, else its first source ("" for an edge without sources).
func (e *Edge) Primary() string {
	for _, s := range e.Sources {
		if s.Role == RolePrimary {
			return s.NodeID
		}
	}
	if len(e.Sources) > 0 {
		return e.Sources[0].NodeID
	}
	return ""
}
