package app

// The shapes of links, notes, marks and the item picker (app/links.go,
// app/notes.go): their part of the contract (types.go says how it is kept).
// Items are named by their URI everywhere (backend/link): rhizome:session/…,
// rhizome:node/…, rhizome:entry/<sessionId>/<entryId>, rhizome:loom/<treeId>,
// rhizome:loom/<treeId>/<nodeId>, rhizome:project/…, rhizome:note/…, and
// https:, http: URLs and absolute file paths.

// OpenTarget says where the window opens an item. View "graph": select
// NodeID (an entry: scroll its segment to EntryOffset, the entry's place in
// Library.SegmentEntries; a project: show Project); "loom": open TreeID at
// LoomNodeID ("" = its remembered path); "external": open URL outside the app
// (a URL, or a file path); "" when the item is not in the library.
type OpenTarget struct {
	View        string `json:"view" ts_type:"'graph' | 'loom' | 'reasoning' | 'external' | ''"`
	NodeID      string `json:"nodeId,omitempty"`
	SessionID   string `json:"sessionId,omitempty"`
	EntryID     string `json:"entryId,omitempty"`
	EntrySeq    int    `json:"entrySeq,omitempty"`
	EntryOffset int    `json:"entryOffset,omitempty"`
	TreeID      string `json:"treeId,omitempty"`
	LoomNodeID  string `json:"loomNodeId,omitempty"`
	Project     string `json:"project,omitempty"`
	URL         string `json:"url,omitempty"`
	// NoteOf is, for a note, the URI of the item it is on (opened with the
	// note shown).
	NoteOf string `json:"noteOf,omitempty"`
	// KnowledgeID is, for a knowledge item, its id: the graph draws it
	// beside its segment (NodeID, "" for an item from no segment).
	KnowledgeID string `json:"knowledgeId,omitempty"`
	// ReasoningID is a reasoning graph to open, ReasoningNode its node to
	// show (MemoBrain's integer id, in decimal; "" for the graph itself).
	ReasoningID   string `json:"reasoningId,omitempty"`
	ReasoningNode string `json:"reasoningNode,omitempty"`
}

// ItemView is an item as a person sees it: its URI and kind, a title, where
// it lives (Detail), whether the library still holds it (Exists; a link to
// a missing item is broken) and where to open it.
type ItemView struct {
	URI    string     `json:"uri"`
	Kind   string     `json:"kind" ts_type:"'session' | 'node' | 'entry' | 'loom' | 'loomNode' | 'project' | 'note' | 'knowledge' | 'reasoning' | 'reasoningNode' | 'url' | 'file'"`
	Title  string     `json:"title"`
	Detail string     `json:"detail,omitempty"`
	Exists bool       `json:"exists"`
	Open   OpenTarget `json:"open"`
}

// LinkView is one link as a list of an item's links shows it, from that
// item's side. Label reads from the item to Other: the relation's label for
// an outgoing link ("led to"), its inverse for a backlink ("came from").
// Broken is true when Other is an item the library no longer holds (shown
// struck through, "target gone"; never dropped).
type LinkView struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"` // URI
	Target    string   `json:"target"` // URI
	Type      string   `json:"type"`   // a relation of Links.Relations
	Label     string   `json:"label"`
	Note      string   `json:"note,omitempty"` // markdown (render sanitised)
	CreatedBy string   `json:"createdBy" ts_type:"'user' | 'model' | 'offline' | 'boundary' | 'consolidation'"`
	CreatedAt string   `json:"createdAt"`
	Other     ItemView `json:"other"`
	Broken    bool     `json:"broken"`
}

// LinksOf is an item with its links: Outgoing (it is their source) and
// Backlinks (it is their target), each grouped by type in the vocabulary's
// order (Links.Relations), newest first within a type.
type LinksOf struct {
	Item      ItemView   `json:"item"`
	Outgoing  []LinkView `json:"outgoing"`
	Backlinks []LinkView `json:"backlinks"`
}

// LinkInput is a new link: Source and Target are URIs (Source an item of
// the library), Type a relation as a person may type it ("leads to",
// "LEADS_TO"; "" = RELATES_TO), Note optional markdown.
type LinkInput struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type,omitempty"`
	Note   string `json:"note,omitempty"`
}

// RelationView is one relation of the link vocabulary (backend/link's
// Relations): Label reads source to target, Inverse target to source;
// Directed is false for symmetric relations; Vocabulary is "automem" or
// "ccmemory".
type RelationView struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Label       string `json:"label"`
	Inverse     string `json:"inverse"`
	Directed    bool   `json:"directed"`
	Vocabulary  string `json:"vocabulary" ts_type:"'automem' | 'ccmemory'"`
}

// NoteView is the note on an item (Item, its URI) with the item's review
// marks. Exists is false when the item has no note (Markdown "", ID "").
// URI is the note's own item (rhizome:note/<id>), to link to it.
type NoteView struct {
	Item      string   `json:"item"`
	Exists    bool     `json:"exists"`
	ID        string   `json:"id,omitempty"`
	URI       string   `json:"uri,omitempty"`
	Markdown  string   `json:"markdown"`
	CreatedAt string   `json:"createdAt,omitempty"`
	UpdatedAt string   `json:"updatedAt,omitempty"`
	Versions  int      `json:"versions"` // earlier texts kept
	Marks     []string `json:"marks" ts_type:"('starred' | 'to-revisit' | 'done')[]"`
}

// ItemHit is an item the picker found (Search.Items): the item, and what
// matched (plain text, matches between \u0001 and \u0002; may be "").
type ItemHit struct {
	Item    ItemView `json:"item"`
	Snippet string   `json:"snippet"`
}

// LinksChanged is the payload of "links:changed": the links from or to
// these items changed (created, changed, deleted).
type LinksChanged struct {
	Items []string `json:"items"` // URIs
}
