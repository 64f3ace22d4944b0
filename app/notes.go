package app

import (
	"errors"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"rhizome/backend/link"
	"rhizome/store"
)

// Notes are what a person writes about an item: one markdown note per item,
// itself an item (rhizome:note/<id>) that links and is found by search; its
// [[mentions]] become links. Rendered sanitised by the frontend.
type Notes struct {
	c *core
}

// Marks are the review marks a person sets on an item: starred, to-revisit,
// done.
type Marks struct {
	c *core
}

// Get returns the note on item uri with the item's marks; exists is false
// when the item has no note. Errors: a URI that does not parse.
func (n *Notes) Get(uri string) (NoteView, error) {
	it, err := parseItem("item", uri)
	if err != nil {
		return NoteView{}, err
	}
	return n.c.noteView(it)
}

func (c *core) noteView(it link.Item) (NoteView, error) {
	ctx := c.context()
	marks, err := c.store.Marks(ctx, it)
	if err != nil {
		return NoteView{}, err
	}
	v := NoteView{Item: it.String(), Marks: marks}
	note, err := c.store.NoteOn(ctx, it)
	if errors.Is(err, store.ErrNotFound) {
		return v, nil
	}
	if err != nil {
		return NoteView{}, err
	}
	v.Exists, v.ID, v.URI, v.Markdown = true, note.ID, link.Note(note.ID).String(), note.Markdown
	v.CreatedAt, v.UpdatedAt, v.Versions = isoMillis(note.CreatedAt), isoMillis(note.UpdatedAt), note.Versions
	return v, nil
}

// Put writes markdown as the note on item uri (its text before is kept as a
// version) and links what it mentions ([[rhizome:…]]: RELATES_TO, see
// linkMentions); markdown of only white space deletes the note. It returns
// the note. Errors: a URI that does not parse, an item not in the library, a
// note over 64 KiB, not UTF-8 or holding NUL.
func (n *Notes) Put(uri, markdown string) (NoteView, error) {
	it, err := parseItem("item", uri)
	if err != nil {
		return NoteView{}, err
	}
	if strings.TrimSpace(markdown) == "" {
		err := n.Delete(uri)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return NoteView{}, err
		}
		return n.c.noteView(it)
	}
	ctx := n.c.context()
	rec, err := n.c.store.ResolveItem(ctx, it)
	if err != nil {
		return NoteView{}, err
	}
	if !n.c.itemView(rec).Exists {
		return NoteView{}, errors.New("app: item: " + it.String() + " is not in the library")
	}
	now := time.Now()
	note, err := n.c.store.PutNote(ctx, it, markdown, ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String(), now)
	if err != nil {
		return NoteView{}, err
	}
	n.c.emitEvent("notes:changed", LinksChanged{Items: []string{it.String()}})
	if _, err := n.c.linkMentions(ctx, link.Note(note.ID), markdown); err != nil {
		return NoteView{}, err
	}
	return n.c.noteView(it)
}

// Delete removes the note on item uri (links from or to the note stay, and
// show as broken). Errors: a URI that does not parse, no note (wrapping
// store.ErrNotFound).
func (n *Notes) Delete(uri string) error {
	it, err := parseItem("item", uri)
	if err != nil {
		return err
	}
	if err := n.c.store.DeleteNote(n.c.context(), it); err != nil {
		return err
	}
	n.c.emitEvent("notes:changed", LinksChanged{Items: []string{it.String()}})
	return nil
}

// Set sets (on) or clears review mark ("starred", "to-revisit" or "done")
// on item uri and returns the item's marks. Errors: a URI that does not
// parse, an unknown mark.
func (m *Marks) Set(uri, mark string, on bool) ([]string, error) {
	it, err := parseItem("item", uri)
	if err != nil {
		return nil, err
	}
	ctx := m.c.context()
	if err := m.c.store.SetMark(ctx, it, mark, on, time.Now()); err != nil {
		return nil, err
	}
	m.c.emitEvent("notes:changed", LinksChanged{Items: []string{it.String()}})
	return m.c.store.Marks(ctx, it)
}
