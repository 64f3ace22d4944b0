package summary

import (
	"fmt"
	"rhizome/backend/link"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rhizome/backend/loom"
)

// shortNodeRunes is the length under which a loom node is "short" (the
// spec's 50 tokens, at about 4 runes a token): its grandparent joins the
// context of its summary.
const shortNodeRunes = 200

// loomContext is a node with the nodes its summary is made in view of.
type loomContext struct {
	node, parent, grandparent *loom.Node
}

// nodeContext finds a node's parent and, when the node is short, its
// grandparent, along the node's path.
func nodeContext(t *loom.Tree, nodeID string) (loomContext, error) {
	path, err := t.Path(nodeID)
	if err != nil {
		return loomContext{}, fmt.Errorf("summary: unable to summarise loom node: %w", err)
	}
	c := loomContext{node: path[len(path)-1]}
	// Empty nodes (a socketteer tree's empty root) say nothing: skip them.
	var above []*loom.Node
	for _, n := range path[:len(path)-1] {
		if n.Content.Type != loom.ContentText || strings.TrimSpace(n.Content.Text) != "" {
			above = append(above, n)
		}
	}
	if len(above) >= 1 {
		c.parent = above[len(above)-1]
	}
	if len(above) >= 2 && utf8.RuneCountInString(c.node.Content.PlainText()) < shortNodeRunes {
		c.grandparent = above[len(above)-2]
	}
	return c, nil
}

// LoomNodeInputsOf returns the inputs of the summary of node nodeID of tree
// t (see LoomNodeHash): the tree title, the node, its parent (and whether the
// parent has a summary, which LoomNodePrompt shows instead of its text) and,
// when the node is short, its grandparent.
func LoomNodeInputsOf(t *loom.Tree, nodeID string) (LoomNodeInputs, error) {
	c, err := nodeContext(t, nodeID)
	if err != nil {
		return LoomNodeInputs{}, err
	}
	return c.inputs(t), nil
}

func (c loomContext) inputs(t *loom.Tree) LoomNodeInputs {
	in := LoomNodeInputs{TreeTitle: t.Title, NodeHash: c.node.ContentHash}
	if c.parent != nil {
		in.ParentHash = c.parent.ContentHash
		in.ParentSummaryAvailable = c.parent.Summary != ""
	}
	if c.grandparent != nil {
		in.GrandparentHash = c.grandparent.ContentHash
	}
	return in
}

// LoomNode makes the offline summary of a loom node: one sentence, the
// node's own first sentence of prose (markdown, code and filler openers
// left out), cut to 30 words at a phrase boundary; an image by its alt
// text; an empty node says so. The label is the sentence's first words.
func LoomNode(t *loom.Tree, nodeID string, now time.Time) (Summary, error) {
	c, err := nodeContext(t, nodeID)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Kind: KindLoomNode, Source: SourceOffline, MadeAt: now.UTC(), InputHash: LoomNodeHash(c.inputs(t))}
	s.Text = nodeSentence(c.node.Content)
	s.Label = makeLabel(s.Text)
	return s, nil
}

// nodeSentence is the one offline sentence of a node's content.
func nodeSentence(content loom.Content) string {
	// A mention reads as its chip does, not as its [[URI|alias]] markup.
	text := strings.TrimSpace(link.Readable(content.PlainText()))
	switch {
	case text == "" && content.Type == loom.ContentAudio:
		return "An audio clip of " + strconv.FormatInt((content.DurationMs+500)/1000, 10) + " seconds."
	case text == "" && content.Type == loom.ContentImage:
		return "An image without a description."
	case text == "":
		return "An empty node."
	}
	s := dropFiller(firstProse(text))
	if s == "" {
		s = cleanInline(collapseSpace(text))
	}
	s = cutWords(s, MaxSentenceWords, 8)
	return endSentence(capitalize(s))
}

// mainPath resolves the tree's main path: ap when it names a node, else the
// path to the most recently made leaf that is not pruned.
func mainPath(t *loom.Tree, ap loom.ActivePath) ([]*loom.Node, error) {
	if ap.NodeID == "" {
		ap.NodeID = t.RootNodeID
		var latest *loom.Node
		for _, l := range t.Leaves() {
			if !t.Hidden(l.ID) && (latest == nil || !l.CreatedAt.Before(latest.CreatedAt)) {
				latest = l
			}
		}
		if latest != nil {
			ap.NodeID = latest.ID
		}
	}
	path, err := t.ResolvePath(ap)
	if err != nil {
		return nil, fmt.Errorf("summary: unable to summarise loom tree: %w", err)
	}
	return path, nil
}

// LoomTreeInputsOf returns the inputs of a tree's summary (see LoomTreeHash):
// main is the main path (the UI's active path; zero for the path to the
// newest leaf).
func LoomTreeInputsOf(t *loom.Tree, main loom.ActivePath) (LoomTreeInputs, error) {
	path, err := mainPath(t, main)
	if err != nil {
		return LoomTreeInputs{}, err
	}
	return treeInputs(t, path), nil
}

func treeInputs(t *loom.Tree, path []*loom.Node) LoomTreeInputs {
	in := LoomTreeInputs{TreeID: t.ID, Title: t.Title, Description: t.Description,
		BranchPoints: len(t.BranchPoints()), Nodes: t.Len()}
	for _, n := range path {
		in.PathHashes = append(in.PathHashes, n.ContentHash)
	}
	return in
}

// LoomTree makes the offline summary of a loom tree: its title (the tree's,
// else its first words), then two sentences: how the main path opens (its
// first sentence of text) and how far the tree was explored, with how the
// main path ends. main is the main path (zero for the path to the newest
// leaf).
func LoomTree(t *loom.Tree, main loom.ActivePath, now time.Time) (Summary, error) {
	path, err := mainPath(t, main)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Kind: KindLoomTree, Source: SourceOffline, MadeAt: now.UTC(), InputHash: LoomTreeHash(treeInputs(t, path))}
	var first, last string
	for _, n := range path {
		if txt := strings.TrimSpace(n.Content.PlainText()); txt != "" {
			if first == "" {
				first = nodeSentence(n.Content)
			}
			last = link.Readable(n.Content.PlainText())
		}
	}
	s.Title = strings.TrimSpace(t.Title)
	if s.Title == "" {
		s.Title = loom.TitleFromContent(loom.Text(first))
	}
	if s.Title == "" {
		s.Title = "Untitled loom tree"
	}
	s.Title = makeTitle(strings.TrimSuffix(s.Title, "…"))
	var sents []string
	if d := strings.TrimSpace(t.Description); d != "" {
		sents = append(sents, endSentence(cutWords(firstSentence(collapseSpace(d)), 30, 8)))
	} else if first != "" {
		sents = append(sents, "It opens with “"+first+"”")
	}
	shape := plural(t.Len(), "node") + " on " + plural(len(t.Leaves()), "branch")
	if lastSent := lastSentence(last); lastSent != "" && len(path) > 1 {
		shape += "; the main path ends with “" + endSentence(cutWords(lastSent, 20, 6)) + "”"
	}
	sents = append(sents, capitalize(endSentence(shape)))
	s.Text = strings.Join(sents, " ")
	s.Label = makeLabel(s.Title)
	return s, nil
}

// lastSentence is the last sentence of prose of s.
// Sentences without a letter (an emoji, "…") are skipped.
func lastSentence(s string) string {
	lines := replyLines(s)
	for i := len(lines) - 1; i >= 0; i-- {
		ss := Sentences(lines[i].text)
		for j := len(ss) - 1; j >= 0; j-- {
			if strings.IndexFunc(ss[j], unicode.IsLetter) >= 0 {
				return ss[j]
			}
		}
	}
	return ""
}

// plural writes "1 node", "3 nodes", "2 branches".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ch") || strings.HasSuffix(word, "s") {
		return strconv.Itoa(n) + " " + word + "es"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Project makes the offline summary of a project from its sessions'
// summaries, oldest first: its title is the project directory's name, its
// text names what the sessions were about (their titles, at most eight, then
// how many more), and its input hash covers the sessions' input hashes.
func Project(path string, sessions []Summary, now time.Time) Summary {
	in := ProjectInputs{Path: path}
	var titles []string
	for _, s := range sessions {
		in.SessionHashes = append(in.SessionHashes, s.InputHash)
		if t := strings.TrimSpace(s.Title); t != "" {
			titles = append(titles, strings.TrimRight(t, ".?!"))
		}
	}
	s := Summary{Kind: KindProject, Source: SourceOffline, MadeAt: now.UTC(), InputHash: ProjectHash(in)}
	s.Title = baseName(strings.ReplaceAll(path, `\`, "/"))
	if s.Title == "" || s.Title == "/" {
		s.Title = "Sessions without a project"
	}
	switch {
	case len(titles) == 0:
		s.Text = "No sessions yet."
	case len(titles) == 1:
		s.Text = "One session: " + titles[0] + "."
	default:
		shown := titles
		if len(shown) > 8 {
			shown = append(append([]string(nil), titles[:7]...), strconv.Itoa(len(titles)-7)+" more")
		}
		s.Text = plural(len(titles), "session") + ": " + strings.Join(shown[:len(shown)-1], "; ") + "; and " + shown[len(shown)-1] + "."
	}
	s.Label = s.Title // a project is named by its directory, as is
	if wordCount(s.Label) > MaxLabelWords {
		s.Label = makeLabel(s.Label)
	}
	return s
}
