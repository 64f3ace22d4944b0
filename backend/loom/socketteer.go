package loom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SocketteerOptions tunes ImportSocketteer.
type SocketteerOptions struct {
	GroveID string
	// Title of the tree; socketteer/loom names a tree by its file name, so
	// pass that. "" takes the first words of the first non-empty node.
	Title string
	// Human writes the nodes loom marks as prompts or edits.
	Human Agent
	// ModelAgent returns the agent for a model name ("" when the file does
	// not say); nil makes one new agent per name.
	ModelAgent func(model string) Agent
	// Location of meta.creation_timestamp, which loom writes in local time
	// without a zone; nil is time.Local.
	Location *time.Location
	// Now and NewID as in TreeSpec.
	Now   func() time.Time
	NewID func(time.Time) string
}

// SocketteerImport is the result of ImportSocketteer.
type SocketteerImport struct {
	Tree *Tree
	// ActivePath is where loom's selection was (selected_node_id), else the
	// deepest node tagged canonical, else the newest leaf.
	ActivePath ActivePath
	// IDs maps each loom node id to its Rhizome node (the newest version of
	// a node loom kept a revision history for).
	IDs map[string]string
	// Warnings say what was not kept, one line each.
	Warnings []string
}

// The socketteer/loom tree file (github.com/socketteer/loom, model.py
// save_tree/load_tree, util_tree.py new_node): the JSON object the app keeps
// in memory, written with json.dump.
//
//	{"root": node, "chapters": {id: {id, root_id, title}},
//	 "model_responses": {generation id: {completions, prompt, id, model, timestamp}},
//	 "selected_node_id": id, "canonical": [ids], ...settings}
//	node = {"id": uuid1 string (older trees: long decimal strings), "text",
//	 "children": [node], "parent_id"?, "mutable"?, "visited"?, "open"?,
//	 "tags"?: [name], "bookmark"?: bool (older trees), "chapter_id"?,
//	 "meta"?: {"creation_timestamp": "%Y-%m-%d-%H.%M.%S" local time,
//	           "source": "prompt" | "AI" | "mixed", "modified": bool, "origin"?},
//	 "generation"?: {"id", "index"}, "history"?: [{"timestamp", "text"}], ...}
//
// A file may also hold a bare node (no "root") or a list of nodes (the
// children of an empty root), as loom's load_tree accepts. A node's text
// continues its parent's: a path's document is the texts joined.
type stFile struct {
	Root     *stNode `json:"root"`
	Chapters map[string]struct {
		Title string `json:"title"`
	} `json:"chapters"`
	ModelResponses map[string]json.RawMessage `json:"model_responses"`
	SelectedNodeID stID                       `json:"selected_node_id"`
	Canonical      json.RawMessage            `json:"canonical"`
}

type stNode struct {
	ID         stID     `json:"id"`
	Text       string   `json:"text"`
	Children   []stNode `json:"children"`
	Tags       []string `json:"tags"`
	Bookmark   bool     `json:"bookmark"`
	ChapterID  string   `json:"chapter_id"`
	Meta       stMeta   `json:"meta"`
	Generation *struct {
		ID stID `json:"id"`
	} `json:"generation"`
	History []struct {
		Timestamp string `json:"timestamp"`
		Text      string `json:"text"`
	} `json:"history"`
	MaskedHead json.RawMessage `json:"masked_head"`
}

type stMeta struct {
	CreationTimestamp string `json:"creation_timestamp"`
	Source            string `json:"source"` // prompt, AI, mixed
}

// stID is a loom id: a string, or a number in some old files.
type stID string

func (id *stID) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = stID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("loom id %s is neither a string nor a number", b)
	}
	*id = stID(n.String())
	return nil
}

// stTimeLayout is loom's util.timestamp().
const stTimeLayout = "2006-01-02-15.04.05"

// ImportSocketteer converts a socketteer/loom tree file into a buffer-mode
// tree (loom nodes continue their parents' text). Mapping:
//
//   - meta.source "AI": a model node; its raw response is its generation's
//     entry of model_responses, when the file kept it;
//   - "prompt" or no source: a human node;
//   - a "history" of earlier texts: the first as the original (the model's
//     if the node was generated), each later text and the current one as
//     human version nodes (editedFrom), so authorship survives; "mixed"
//     without history cannot be attributed and is imported as human;
//   - creation time: from a version-1 UUID id (exact), else
//     meta.creation_timestamp, else just after the parent;
//   - tags: "bookmark" (and the old "bookmark": true) and chapters (labelled
//     with the chapter title) become bookmarks, "archived" pruned, "note"
//     excluded; other tags are reported, as are masked (zipped) nodes.
//
// Siblings are ordered by creation time, not by loom's manual order.
func ImportSocketteer(data []byte, opts SocketteerOptions) (*SocketteerImport, error) {
	file, err := parseSocketteer(data)
	if err != nil {
		return nil, err
	}
	if opts.Human.ID == "" || opts.Human.Type != AuthorHuman {
		return nil, errors.New("loom: unable to import a socketteer/loom tree: no human agent")
	}
	if opts.GroveID == "" {
		return nil, errors.New("loom: unable to import a socketteer/loom tree: no grove")
	}
	imp := &stImporter{file: file, opts: opts, loc: opts.Location, ids: map[string]string{},
		models: map[string]Agent{}, tagged: map[string]int{}, canonical: map[string]bool{}}
	if imp.loc == nil {
		imp.loc = time.Local
	}
	var canonical []string
	if len(file.Canonical) > 0 && json.Unmarshal(file.Canonical, &canonical) == nil {
		for _, id := range canonical {
			imp.canonical[id] = true
		}
	}
	return imp.run()
}

func parseSocketteer(data []byte) (*stFile, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("loom: unable to import a socketteer/loom tree: the file is empty")
	}
	var file stFile
	switch data[0] {
	case '[':
		var children []stNode
		if err := json.Unmarshal(data, &children); err != nil {
			return nil, fmt.Errorf("loom: unable to import a socketteer/loom tree: %w", err)
		}
		file.Root = &stNode{Children: children}
	case '{':
		if err := json.Unmarshal(data, &file); err != nil {
			return nil, fmt.Errorf("loom: unable to import a socketteer/loom tree: %w", err)
		}
		if file.Root == nil {
			var bare struct {
				Text *string `json:"text"`
			}
			if json.Unmarshal(data, &bare) != nil || bare.Text == nil {
				return nil, errors.New(`loom: unable to import a socketteer/loom tree: neither "root" nor a node's "text"`)
			}
			file.Root = &stNode{}
			if err := json.Unmarshal(data, file.Root); err != nil {
				return nil, fmt.Errorf("loom: unable to import a socketteer/loom tree: %w", err)
			}
		}
	default:
		return nil, errors.New("loom: unable to import a socketteer/loom tree: not a JSON object or list")
	}
	return &file, nil
}

type stImporter struct {
	file      *stFile
	opts      SocketteerOptions
	loc       *time.Location
	t         *Tree
	ids       map[string]string // loom id -> newest version
	models    map[string]Agent
	tagged    map[string]int // tag not kept -> nodes
	canonical map[string]bool
	deepest   *Node // deepest canonical node
	depth     int
	selected  string
	masked    int
	unraw     int // model nodes without a saved response
	mixed     int // "mixed" nodes without history
}

func (imp *stImporter) run() (*SocketteerImport, error) {
	root := imp.file.Root
	t := newTree(LoomTree{GroveID: imp.opts.GroveID, Title: imp.opts.Title, Mode: ModeBuffer})
	if imp.opts.Now != nil {
		t.now = imp.opts.Now
	}
	if imp.opts.NewID != nil {
		t.newID = imp.opts.NewID
	}
	imp.t = t
	start, ok := imp.nodeTime(root)
	if !ok {
		start, ok = imp.earliest(root)
	}
	if !ok {
		start = t.now()
	}
	start = normalTime(start)
	t.ID = t.newID(start)
	t.CreatedAt, t.UpdatedAt = start, start
	rootNode, err := imp.add(root, nil, start, 0)
	if err != nil {
		return nil, err
	}
	t.RootNodeID = rootNode.ID
	if t.Title == "" {
		t.Title = firstWords(root)
	}
	res := &SocketteerImport{Tree: t, IDs: imp.ids, Warnings: imp.warnings()}
	res.ActivePath = ActivePath{NodeID: imp.activeNode()}
	return res, nil
}

// add imports n, a child of parent (nil for the root), and its subtree.
// fallback is the time to use when n has none; depth its depth.
func (imp *stImporter) add(n *stNode, parent *Node, fallback time.Time, depth int) (*Node, error) {
	created, ok := imp.nodeTime(n)
	if !ok {
		created = fallback
	}
	var sources []EdgeSource
	if parent != nil {
		sources = []EdgeSource{{NodeID: parent.ID, Role: RolePrimary}}
	}
	if len(n.MaskedHead) > 0 && !bytes.Equal(n.MaskedHead, []byte("null")) {
		imp.masked++
	}
	// The texts of the node, oldest first, and who wrote the first.
	texts := []string{n.Text}
	var times []time.Time
	for i, h := range n.History {
		if i == 0 {
			texts = texts[:0]
		}
		texts = append(texts, h.Text)
		times = append(times, imp.parseTime(h.Timestamp))
	}
	if len(n.History) > 0 {
		texts = append(texts, n.Text)
	}
	author := imp.opts.Human
	var raw []byte
	switch n.Meta.Source {
	case "AI":
		author, raw = imp.generation(n)
	case "mixed":
		if len(n.History) > 0 {
			author, raw = imp.generation(n)
		} else {
			imp.mixed++
		}
	}
	first, err := imp.t.addNode(nodeSpec{content: Text(texts[0]), author: author, raw: raw, sources: sources,
		edgeType: EdgeContinuation, createdAt: created})
	if err != nil {
		return nil, fmt.Errorf("loom: unable to import socketteer/loom node %s: %w", n.ID, err)
	}
	newest := first
	for i, text := range texts[1:] {
		if text == newest.Content.Text {
			continue
		}
		at := times[i]
		if at.IsZero() || at.Before(newest.CreatedAt) {
			at = newest.CreatedAt.Add(time.Millisecond)
		}
		v, err := imp.t.addNode(nodeSpec{content: Text(text), author: imp.opts.Human, sources: sources,
			edgeType: EdgeContinuation, editedFrom: newest.ID, createdAt: at})
		if err != nil {
			return nil, fmt.Errorf("loom: unable to import socketteer/loom node %s, revision %d: %w", n.ID, i+1, err)
		}
		newest = v
	}
	if n.ID != "" {
		imp.ids[string(n.ID)] = newest.ID
	}
	imp.applyTags(n, first)
	if imp.canonical[string(n.ID)] && depth >= imp.depth {
		imp.deepest, imp.depth = first, depth
	}
	for i := range n.Children {
		if _, err := imp.add(&n.Children[i], first, first.CreatedAt.Add(time.Duration(i+1)*time.Millisecond), depth+1); err != nil {
			return nil, err
		}
	}
	return first, nil
}

// generation returns the model agent and raw response of a generated node.
func (imp *stImporter) generation(n *stNode) (Agent, []byte) {
	var raw []byte
	model := ""
	if n.Generation != nil {
		if resp, ok := imp.file.ModelResponses[string(n.Generation.ID)]; ok {
			var compact bytes.Buffer
			if json.Compact(&compact, resp) == nil {
				raw = compact.Bytes()
			}
			var head struct {
				Model string `json:"model"`
			}
			if json.Unmarshal(resp, &head) == nil {
				model = head.Model
			}
		}
	}
	if raw == nil {
		imp.unraw++
	}
	a, ok := imp.models[model]
	if !ok {
		if imp.opts.ModelAgent != nil {
			a = imp.opts.ModelAgent(model)
		} else {
			name := model
			if name == "" {
				name = "socketteer/loom model"
			}
			a = Agent{ID: imp.t.newID(imp.t.now()), Type: AuthorModel, Name: name, ModelConfigRef: model}
		}
		imp.models[model] = a
	}
	return a, raw
}

// applyTags turns loom's tags, bookmark and chapter into n's metadata.
func (imp *stImporter) applyTags(st *stNode, n *Node) {
	m := NodeMetadata{Bookmarked: st.Bookmark}
	for _, tag := range st.Tags {
		switch tag {
		case "bookmark", "pinned":
			m.Bookmarked = true
		case "archived":
			m.Pruned = true
		case "note":
			m.Excluded = true
		case "canonical":
			imp.canonical[string(st.ID)] = true
		default:
			imp.tagged[tag]++
		}
	}
	if st.ChapterID != "" {
		m.Bookmarked = true
		if ch, ok := imp.file.Chapters[st.ChapterID]; ok {
			m.BookmarkLabel = ch.Title
		}
	}
	if string(st.ID) != "" && string(st.ID) == string(imp.file.SelectedNodeID) {
		imp.selected = imp.ids[string(st.ID)]
	}
	_ = imp.t.SetMetadata(n.ID, m)
}

// activeNode is the end of the imported tree's active path.
func (imp *stImporter) activeNode() string {
	if imp.selected != "" {
		return imp.selected
	}
	if imp.deepest != nil {
		return imp.t.newestVersion(imp.deepest.ID).ID
	}
	var newest *Node
	for _, l := range imp.t.Leaves() {
		if newest == nil || !before(l.CreatedAt, l.ID, newest.CreatedAt, newest.ID) {
			newest = l
		}
	}
	return imp.t.newestVersion(newest.ID).ID
}

func (imp *stImporter) warnings() []string {
	var w []string
	if imp.unraw > 0 {
		w = append(w, fmt.Sprintf("%d generated nodes have no saved API response: their hashes cover no raw response", imp.unraw))
	}
	if imp.mixed > 0 {
		w = append(w, fmt.Sprintf("%d nodes were generated then edited without a revision history: imported as human-written", imp.mixed))
	}
	if imp.masked > 0 {
		w = append(w, fmt.Sprintf("%d zipped (masked) nodes were imported as their joined text, not unzipped", imp.masked))
	}
	tags := make([]string, 0, len(imp.tagged))
	for tag := range imp.tagged {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	for _, tag := range tags {
		w = append(w, fmt.Sprintf("tag %q on %d nodes was not kept", tag, imp.tagged[tag]))
	}
	return w
}

// nodeTime returns n's creation time: its version-1 UUID's, else its meta
// timestamp's.
func (imp *stImporter) nodeTime(n *stNode) (time.Time, bool) {
	if t, ok := uuid1Time(string(n.ID)); ok {
		return t, true
	}
	if t := imp.parseTime(n.Meta.CreationTimestamp); !t.IsZero() {
		return t, true
	}
	return time.Time{}, false
}

func (imp *stImporter) parseTime(s string) time.Time {
	t, err := time.ParseInLocation(stTimeLayout, s, imp.loc)
	if err != nil {
		return time.Time{}
	}
	return t
}

// earliest returns the earliest time known in n's subtree.
func (imp *stImporter) earliest(n *stNode) (time.Time, bool) {
	best, found := imp.nodeTime(n)
	for i := range n.Children {
		if t, ok := imp.earliest(&n.Children[i]); ok && (!found || t.Before(best)) {
			best, found = t, true
		}
	}
	return best, found
}

// uuid1Time returns the time of a version-1 UUID ("d56aafb6-165f-11ec-..."):
// 100-nanosecond intervals since 1582-10-15 UTC.
func uuid1Time(id string) (time.Time, bool) {
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[14] != '1' || id[18] != '-' || id[23] != '-' {
		return time.Time{}, false
	}
	hex := id[15:18] + id[9:13] + id[0:8] // time_hi (without version), time_mid, time_low
	ticks, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return time.Time{}, false
	}
	const gregorianToUnix = 122192928000000000 // 100 ns intervals from 1582-10-15 to 1970-01-01
	if ticks < gregorianToUnix {
		return time.Time{}, false
	}
	ticks -= gregorianToUnix
	return time.Unix(int64(ticks/10_000_000), int64(ticks%10_000_000)*100).UTC(), true
}

// firstWords is the title of the first node with words, in document order.
func firstWords(n *stNode) string {
	if title := TitleFromContent(Text(n.Text)); title != "" {
		return title
	}
	for i := range n.Children {
		if title := firstWords(&n.Children[i]); title != "" {
			return title
		}
	}
	return ""
}

// IsSocketteerTree reports whether data looks like a socketteer/loom tree
// file rather than a Rhizome export.
func IsSocketteerTree(data []byte) bool {
	head := data[:min(len(data), 4096)]
	return !bytes.Contains(head, []byte(`"`+ExportFormat+`"`)) &&
		(bytes.Contains(head, []byte(`"root"`)) || bytes.Contains(head, []byte(`"children"`)) ||
			strings.HasPrefix(string(bytes.TrimSpace(head)), "["))
}
