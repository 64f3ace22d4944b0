package app

// The shapes of app/loom.go: loom trees, their nodes, paths, generation and
// import: the Loom area's part of the contract with the frontend (types.go
// says how it is kept).
//
// Times are ISO 8601 UTC with milliseconds ("2026-01-12T09:00:00.000Z").

// LoomTreeInfo is a loom tree in the sidebar and at the top of its view.
type LoomTreeInfo struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Description   string `json:"description,omitempty"`
	Summary       string `json:"summary,omitempty"`
	Mode          string `json:"mode" ts_type:"'dialogue' | 'buffer'"`
	SystemContext string `json:"systemContext,omitempty"`
	RootNodeID    string `json:"rootNodeId"`
	CreatedAt     string `json:"createdAt"`
	UpdatedAt     string `json:"updatedAt"`
	Archived      bool   `json:"archived"`
	ArchivedAt    string `json:"archivedAt,omitempty"`
	// Nodes counts every node stored, versions and annotations included.
	Nodes int `json:"nodes"`
	// Positions counts the nodes the tree map draws (loom.Tree.Positions):
	// Nodes less annotations and, in buffer mode, versions. What the
	// window calls the tree's nodes.
	Positions int `json:"positions"`
	// CopiedFrom is the id of the tree this one is a copy of (Loom.ImportCopy),
	// CopySource the file it was imported from; both "" for an original.
	CopiedFrom string `json:"copiedFrom,omitempty"`
	CopySource string `json:"copySource,omitempty"`
}

// LoomTreeSpec is a new tree: Mode "dialogue" (a chat: editing makes a
// sibling branch) or "buffer" (a document: editing makes a version).
// RootText is the first node, the person's prompt. Title defaults to the
// root's first words, else "Loom Tree N".
type LoomTreeSpec struct {
	Title         string `json:"title,omitempty"`
	Mode          string `json:"mode" ts_type:"'dialogue' | 'buffer'"`
	SystemContext string `json:"systemContext,omitempty"`
	RootText      string `json:"rootText"`
}

// ActivePath is the path the loom view shows: the node it ends at and, in
// buffer mode, the version chosen at each position (family id -> version
// id; a position without a choice shows its family's newest version).
type ActivePath struct {
	NodeID   string            `json:"nodeId"`
	Versions map[string]string `json:"versions,omitempty"`
}

// LoomNode is one node of a loom tree, text as plain text.
//
// ParentID is the primary source of its incoming edge ("" for the root);
// ParentIDs all sources. Children are the positions continuing it, in
// creation order (in buffer mode those of all its versions). Position is
// false for what the tree map folds away: annotations, and in buffer mode
// versions (EditedFrom set), which stand at their Family's position. Hidden
// is true when it or an ancestor is pruned.
type LoomNode struct {
	ID              string   `json:"id"`
	LocalID         string   `json:"localId"`
	ParentID        string   `json:"parentId,omitempty"`
	ParentIDs       []string `json:"parentIds"`
	Children        []string `json:"children"`
	AuthorType      string   `json:"authorType" ts_type:"'human' | 'model'"`
	AuthorName      string   `json:"authorName"`
	Model           string   `json:"model,omitempty"` // the agent's model key, "openai/gpt-4o"
	Text            string   `json:"text"`
	ContentType     string   `json:"contentType"` // "text", "image", "audio", "mixed"
	CreatedAt       string   `json:"createdAt"`
	Bookmarked      bool     `json:"bookmarked"`
	BookmarkLabel   string   `json:"bookmarkLabel,omitempty"`
	Pruned          bool     `json:"pruned"`
	Hidden          bool     `json:"hidden"`
	Excluded        bool     `json:"excluded"`
	EditedFrom      string   `json:"editedFrom,omitempty"`
	Family          string   `json:"family"` // id of the oldest node of its version family
	Position        bool     `json:"position"`
	Annotation      bool     `json:"annotation,omitempty"`
	Summary         string   `json:"summary,omitempty"`
	ContentHash     string   `json:"contentHash"`
	RawResponseHash string   `json:"rawResponseHash,omitempty"`
}

// LoomTreeView is a whole tree: every node, the branch points and leaves
// (positions, creation order) and the active path to open it on (the one
// remembered in settings, else the newest visible leaf).
type LoomTreeView struct {
	Tree         LoomTreeInfo `json:"tree"`
	Nodes        []LoomNode   `json:"nodes"` // creation order, root first
	BranchPoints []string     `json:"branchPoints"`
	Leaves       []string     `json:"leaves"`
	ActivePath   ActivePath   `json:"activePath"`
}

// AuthorshipRun is a stretch of a node's text written by one author
// ("model" or "human"); a node's runs concatenated are its text exactly.
type AuthorshipRun struct {
	Text   string `json:"text"`
	Author string `json:"author" ts_type:"'human' | 'model'"`
}

// LoomChoice is a set of alternatives at one place of the path, in creation
// order, and which of them the path shows (IDs[Index]).
type LoomChoice struct {
	IDs   []string `json:"ids"`
	Index int      `json:"index"`
}

// LoomPathStep is one node of the active path with its authorship runs, its
// siblings (the positions under the same parent, itself included; in buffer
// mode a position is named by its family id) and its versions (its version
// family; one entry when never edited).
type LoomPathStep struct {
	Node     LoomNode        `json:"node"`
	Runs     []AuthorshipRun `json:"runs"`
	Siblings LoomChoice      `json:"siblings"`
	Versions LoomChoice      `json:"versions"`
}

// LoomPathView is the reading pane: the resolved active path from the root.
type LoomPathView struct {
	TreeID     string         `json:"treeId"`
	Mode       string         `json:"mode" ts_type:"'dialogue' | 'buffer'"`
	ActivePath ActivePath     `json:"activePath"`
	View       string         `json:"view" ts_type:"'raw' | 'semantic'"` // authorship view
	Steps      []LoomPathStep `json:"steps"`
}

// LoomGenerateRequest asks for N continuations of the active path
// (ActivePath.NodeID "" = the remembered one). N 0 means the settings' N.
// RequestID, when set, names the generation in its events and in
// CancelGeneration; otherwise one is made.
type LoomGenerateRequest struct {
	TreeID     string     `json:"treeId"`
	ActivePath ActivePath `json:"activePath"`
	N          int        `json:"n"`
	RequestID  string     `json:"requestId,omitempty"`
}

// LoomGenerated is a finished generation: the new model nodes, children of
// ParentID, by completion index. Also the payload of "loom:done".
type LoomGenerated struct {
	RequestID string     `json:"requestId"`
	TreeID    string     `json:"treeId"`
	ParentID  string     `json:"parentId"`
	Nodes     []LoomNode `json:"nodes"`
}

// LoomGenerationStart is the payload of "loom:start".
type LoomGenerationStart struct {
	RequestID string `json:"requestId"`
	TreeID    string `json:"treeId"`
	ParentID  string `json:"parentId"`
	N         int    `json:"n"`
	Model     string `json:"model"`
}

// LoomDelta is the payload of "loom:delta": a piece of continuation Index's
// text. Per index, deltas come in order and concatenate to the node's text.
type LoomDelta struct {
	RequestID string `json:"requestId"`
	Index     int    `json:"index"`
	Text      string `json:"text"`
}

// LoomGenerationError is the payload of "loom:error": the generation failed
// or was cancelled, and no node was written.
type LoomGenerationError struct {
	RequestID string `json:"requestId"`
	TreeID    string `json:"treeId"`
	Error     string `json:"error"`
	Cancelled bool   `json:"cancelled"`
}

// LoomChanged is the payload of "loom:changed": tree TreeID changed (nodes,
// node state, archived), or was created or imported.
type LoomChanged struct {
	TreeID string `json:"treeId"`
}

// LoomVersion is one node of an edit history (a version family). InChain
// marks the nodes along editedFrom from the original to the node asked about.
type LoomVersion struct {
	ID         string `json:"id"`
	LocalID    string `json:"localId"`
	AuthorType string `json:"authorType" ts_type:"'human' | 'model'"`
	AuthorName string `json:"authorName"`
	CreatedAt  string `json:"createdAt"`
	Text       string `json:"text"`
	EditedFrom string `json:"editedFrom,omitempty"`
	InChain    bool   `json:"inChain"`
}

// DiffOp is one operation of a text diff: Op "equal", "delete" or
// "insert". Equal and delete texts give the old text, equal and insert the
// new; a replacement is a delete then an insert.
type DiffOp struct {
	Op   string `json:"op" ts_type:"'equal' | 'delete' | 'insert'"`
	Text string `json:"text"`
}

// LoomTamper is one finding of Verify: Reason "content", "raw_response",
// "parent_hash", "parent_set", "edit_lineage" or "blob".
type LoomTamper struct {
	NodeID    string `json:"nodeId"`
	LocalID   string `json:"localId"`
	Reason    string `json:"reason"`
	RelatedID string `json:"relatedId,omitempty"`
	Detail    string `json:"detail"`
}

// LoomImportResult is an imported tree. Format is "rhizome" or
// "socketteer"; Warnings say what a socketteer/loom file had that was not
// kept; Tampered lists hash-chain findings (a tampered tree is imported all
// the same, for them to be seen).
type LoomImportResult struct {
	Tree       LoomTreeInfo `json:"tree"`
	Format     string       `json:"format"`
	ActivePath ActivePath   `json:"activePath"`
	Warnings   []string     `json:"warnings"`
	Tampered   []LoomTamper `json:"tampered"`
}
