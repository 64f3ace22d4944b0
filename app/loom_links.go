package app

import (
	"errors"
	"fmt"
	"strings"

	"rhizome/app/ingest"
	"rhizome/backend/link"
	"rhizome/backend/session"
	"rhizome/store"
)

// The loom's side of links: the mentions of what a person writes become
// links, and a loom can start from any session message, linked back to it.

// linkMentions returns what finishes AddNode and Edit: when the node was
// saved, the items its text mentions are linked from it (core.linkMentions).
// A failure to link is reported with the saved node.
func (l *Loom) linkMentions(treeID, text string) func(LoomNode, error) (LoomNode, error) {
	return func(n LoomNode, err error) (LoomNode, error) {
		if err != nil {
			return n, err
		}
		if _, err := l.c.linkMentions(l.c.context(), link.LoomNode(treeID, n.ID), text); err != nil {
			return n, err
		}
		return n, nil
	}
}

// StartFrom starts a loom tree from session entry uri (rhizome:entry/…): a
// new tree in mode ("dialogue" or "buffer"; "" = dialogue) whose root is the
// entry's text (its text blocks, or a summary's text), linked back to the
// entry with DERIVED_FROM (the root node derived from the message). Errors:
// a URI that is not an entry, an entry not in the library, an entry with no
// text, an unknown mode.
func (l *Loom) StartFrom(uri, mode string) (LoomTreeView, error) {
	it, err := parseItem("item", uri)
	if err != nil {
		return LoomTreeView{}, err
	}
	if it.Kind != link.KindEntry {
		return LoomTreeView{}, fmt.Errorf("app: item: %s is a %s; a loom starts from a session message (rhizome:entry/…)", it, it.Kind)
	}
	if mode == "" {
		mode = "dialogue"
	}
	text, err := l.entryText(it)
	if err != nil {
		return LoomTreeView{}, err
	}
	v, err := l.CreateTree(LoomTreeSpec{Mode: mode, RootText: text})
	if err != nil {
		return LoomTreeView{}, err
	}
	root := link.LoomNode(v.Tree.ID, v.Tree.RootNodeID)
	if _, err := (&Links{c: l.c}).create(LinkInput{Source: root.String(), Target: it.String(), Type: string(link.DerivedFrom)}, link.ByUser); err != nil {
		return v, fmt.Errorf("app: the loom tree was made but not linked to %s: %w", it, err)
	}
	return v, nil
}

// entryText is the text of entry it as the node panel shows it: its text
// blocks (tool calls and images left out), else its summary.
func (l *Loom) entryText(it link.Item) (string, error) {
	ctx := l.c.context()
	rec, err := l.c.store.ResolveItem(ctx, it)
	if err != nil {
		return "", err
	}
	if !rec.Exists || rec.NodeID == "" {
		return "", fmt.Errorf("app: item: %s is not in the library", it)
	}
	sess, err := l.c.store.SessionByID(ctx, rec.SessionID)
	if err != nil {
		return "", err
	}
	page, err := l.c.store.SegmentEntries(ctx, rec.NodeID, rec.EntryOffset, 1)
	if err != nil {
		return "", err
	}
	if len(page.Entries) != 1 || page.Entries[0].ID != it.ID {
		return "", fmt.Errorf("app: item: %s was not found where the library places it", it)
	}
	r := page.Entries[0]
	entries, err := ingest.DecodeRecords(sess.Format, sess.Header, sess.Path, []store.EntryRecord{r})
	if err != nil {
		return "", fmt.Errorf("app: session %s: %w", sess.ID, err)
	}
	v := session.ViewEntry(entries[0])
	var parts []string
	for _, b := range v.Blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	text := strings.Join(parts, "\n\n")
	if strings.TrimSpace(text) == "" {
		text = v.Summary
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("app: item: " + it.String() + " has no text to start a loom from")
	}
	return text, nil
}
