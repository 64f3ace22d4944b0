package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/store"
)

// Links joins any two items with a typed, annotated link (the Aspen Grove
// Link entity; backend/link): created by hand ("Link to…", a dragged graph
// node, the CLI), by a [[mention]], or with a loom started from a message.
// Backlinks are computed; a link whose target is gone is shown broken, never
// dropped. See issue 8, "Links".
type Links struct {
	c *core
}

// Relations returns the link vocabulary, one description each, in the order
// the type picker offers it (the general RELATES_TO first, then AutoMem's,
// then ccmemory's).
func (l *Links) Relations() ([]RelationView, error) {
	rs := link.Relations()
	out := make([]RelationView, 0, len(rs))
	for _, r := range rs {
		out = append(out, RelationView{Type: string(r.Type), Description: r.Description, Label: r.Label, Inverse: r.Inverse,
			Directed: r.Directed, Vocabulary: r.Vocabulary})
	}
	return out, nil
}

// parseItem reads a URI given by the caller, naming the field in the error.
func parseItem(field, uri string) (link.Item, error) {
	it, err := link.Parse(strings.TrimSpace(uri))
	if err != nil {
		return link.Item{}, fmt.Errorf("app: %s: %w", field, err)
	}
	return it, nil
}

// Create makes a link from in.Source to in.Target and returns it as the
// source's list shows it. The source must be an item the library holds, and
// so must the target unless it is a URL or a file. Errors name the field:
// a URI that does not parse, an item not in the library, an unknown type, a
// link from an item to itself, a note too long or not UTF-8.
func (l *Links) Create(in LinkInput) (LinkView, error) {
	return l.create(in, link.ByUser)
}

func (l *Links) create(in LinkInput, by link.CreatedBy) (LinkView, error) {
	ctx := l.c.context()
	src, err := parseItem("source", in.Source)
	if err != nil {
		return LinkView{}, err
	}
	dst, err := parseItem("target", in.Target)
	if err != nil {
		return LinkView{}, err
	}
	typ := link.DefaultRelation
	if strings.TrimSpace(in.Type) != "" {
		if typ, err = link.ParseRelation(in.Type); err != nil {
			return LinkView{}, fmt.Errorf("app: type: %w", err)
		}
	}
	lk, err := link.New(src, dst, typ, in.Note, by, time.Now())
	if err != nil {
		return LinkView{}, fmt.Errorf("app: %w", err)
	}
	recs, err := l.c.store.ResolveItems(ctx, []link.Item{src, dst})
	if err != nil {
		return LinkView{}, err
	}
	if !recs[src.String()].Exists {
		return LinkView{}, fmt.Errorf("app: source: %s is not in the library", src)
	}
	if dst.InLibrary() && !recs[dst.String()].Exists {
		return LinkView{}, fmt.Errorf("app: target: %s is not in the library", dst)
	}
	if err := l.c.store.PutLink(ctx, lk); err != nil {
		return LinkView{}, err
	}
	l.c.linksChanged(src, dst)
	return linkView(lk, false, l.c.itemView(recs[dst.String()])), nil
}

// Update changes link id's type (as Create reads it; "" keeps it) and note
// and returns it as its source's list shows it. Errors: an unknown link
// (wrapping store.ErrNotFound), an unknown type, a note too long.
func (l *Links) Update(id, typ, note string) (LinkView, error) {
	ctx := l.c.context()
	old, err := l.c.store.Link(ctx, id)
	if err != nil {
		return LinkView{}, err
	}
	rel := old.Type
	if strings.TrimSpace(typ) != "" {
		if rel, err = link.ParseRelation(typ); err != nil {
			return LinkView{}, fmt.Errorf("app: type: %w", err)
		}
	}
	lk, err := l.c.store.UpdateLink(ctx, id, rel, note, time.Now())
	if err != nil {
		return LinkView{}, err
	}
	rec, err := l.c.store.ResolveItem(ctx, lk.Target)
	if err != nil {
		return LinkView{}, err
	}
	l.c.linksChanged(lk.Source, lk.Target)
	return linkView(lk, false, l.c.itemView(rec)), nil
}

// Delete removes link id. Errors: an unknown link (wrapping
// store.ErrNotFound).
func (l *Links) Delete(id string) error {
	ctx := l.c.context()
	lk, err := l.c.store.Link(ctx, id)
	if err != nil {
		return err
	}
	if err := l.c.store.DeleteLink(ctx, id); err != nil {
		return err
	}
	l.c.linksChanged(lk.Source, lk.Target)
	return nil
}

// Of returns item uri with its outgoing links and its backlinks, each with
// the other end resolved (title, where to open it) and broken when that end
// is gone; grouped by type in the vocabulary's order, newest first within a
// type. An item the library does not hold is answered too (its links may
// outlive it), with item.exists false. Errors: a URI that does not parse.
func (l *Links) Of(uri string) (LinksOf, error) {
	it, err := parseItem("item", uri)
	if err != nil {
		return LinksOf{}, err
	}
	ctx := l.c.context()
	out, err := l.c.store.LinksFrom(ctx, it)
	if err != nil {
		return LinksOf{}, err
	}
	back, err := l.c.store.LinksTo(ctx, it)
	if err != nil {
		return LinksOf{}, err
	}
	ends := []link.Item{it}
	for _, lk := range out {
		ends = append(ends, lk.Target)
	}
	for _, lk := range back {
		ends = append(ends, lk.Source)
	}
	recs, err := l.c.store.ResolveItems(ctx, ends)
	if err != nil {
		return LinksOf{}, err
	}
	res := LinksOf{Item: l.c.itemView(recs[it.String()]), Outgoing: make([]LinkView, 0, len(out)), Backlinks: make([]LinkView, 0, len(back))}
	for _, lk := range out {
		res.Outgoing = append(res.Outgoing, linkView(lk, false, l.c.itemView(recs[lk.Target.String()])))
	}
	for _, lk := range back {
		res.Backlinks = append(res.Backlinks, linkView(lk, true, l.c.itemView(recs[lk.Source.String()])))
	}
	byVocabulary(res.Outgoing)
	byVocabulary(res.Backlinks)
	return res, nil
}

// Resolve returns what the library holds under uri: its title, whether it
// is there, and where the window opens it (the window opens rhizome: links
// in place). Errors: a URI that does not parse.
func (l *Links) Resolve(uri string) (ItemView, error) {
	it, err := parseItem("item", uri)
	if err != nil {
		return ItemView{}, err
	}
	rec, err := l.c.store.ResolveItem(l.c.context(), it)
	if err != nil {
		return ItemView{}, err
	}
	return l.c.itemView(rec), nil
}

// byVocabulary orders links by their type's place in the vocabulary (the
// store orders by name), keeping the order within a type.
func byVocabulary(ls []LinkView) {
	order := map[string]int{}
	for i, r := range link.Relations() {
		order[string(r.Type)] = i
	}
	slices.SortStableFunc(ls, func(a, b LinkView) int {
		oa, oka := order[a.Type]
		ob, okb := order[b.Type]
		if !oka {
			oa = len(order)
		}
		if !okb {
			ob = len(order)
		}
		return oa - ob
	})
}

// linkView is lk from one end's side: backlink says that end is the target
// (the label is the relation's inverse); other is the far end.
func linkView(lk link.Link, backlink bool, other ItemView) LinkView {
	info, _ := link.Lookup(lk.Type)
	label := info.Label
	if backlink {
		label = info.Inverse
	}
	if label == "" {
		label = strings.ToLower(strings.ReplaceAll(string(lk.Type), "_", " "))
	}
	return LinkView{ID: lk.ID, Source: lk.Source.String(), Target: lk.Target.String(), Type: string(lk.Type), Label: label,
		Note: lk.Note, CreatedBy: string(lk.CreatedBy), CreatedAt: isoMillis(lk.CreatedAt), Other: other, Broken: !other.Exists}
}

// Where the window opens an item (OpenTarget.View).
const (
	viewGraph     = "graph"
	viewLoom      = "loom"
	viewExternal  = "external"
	viewReasoning = "reasoning"
	viewNone      = "" // not in the library
)

// itemView is how the window shows and opens a resolved item. A file is
// there when something exists at its path (checked here, on this machine).
func (c *core) itemView(r store.ItemRecord) ItemView {
	v := ItemView{URI: r.Item.String(), Kind: string(r.Item.Kind), Title: r.Title, Detail: r.Detail, Exists: r.Exists}
	if v.Title == "" {
		v.Title = v.URI
	}
	if !r.Exists {
		v.Open.View = viewNone
		return v
	}
	switch r.Item.Kind {
	case link.KindSession, link.KindNode:
		v.Open = OpenTarget{View: viewGraph, NodeID: r.NodeID, SessionID: r.SessionID}
	case link.KindEntry:
		v.Open = OpenTarget{View: viewGraph, NodeID: r.NodeID, SessionID: r.SessionID, EntryID: r.Item.ID,
			EntrySeq: r.EntrySeq, EntryOffset: r.EntryOffset}
	case link.KindLoomTree:
		v.Open = OpenTarget{View: viewLoom, TreeID: r.TreeID}
	case link.KindLoomNode:
		v.Open = OpenTarget{View: viewLoom, TreeID: r.TreeID, LoomNodeID: r.LoomNodeID}
	case link.KindProject:
		v.Open = OpenTarget{View: viewGraph, Project: r.Project}
	case link.KindNote:
		v.Open = OpenTarget{NoteOf: r.NoteOf.String()}
	case link.KindKnowledge:
		v.Open = OpenTarget{View: viewGraph, NodeID: r.NodeID, SessionID: r.SessionID, Project: r.Project, KnowledgeID: r.Item.ID}
	case link.KindReasoning:
		v.Open = OpenTarget{View: viewReasoning, ReasoningID: r.ReasoningID}
	case link.KindReasoningNode:
		v.Open = OpenTarget{View: viewReasoning, ReasoningID: r.ReasoningID, ReasoningNode: r.Item.ID}
	case link.KindURL:
		v.Open = OpenTarget{View: viewExternal, URL: r.Item.ID}
	case link.KindFile:
		if _, err := os.Stat(r.Item.ID); err != nil {
			v.Exists = false
			return v
		}
		v.Open = OpenTarget{View: viewExternal, URL: r.Item.ID}
	}
	return v
}

// linksChanged tells the frontend that the links of items changed.
func (c *core) linksChanged(items ...link.Item) {
	uris := make([]string, 0, len(items))
	for _, it := range items {
		uris = append(uris, it.String())
	}
	c.emitEvent("links:changed", LinksChanged{Items: uris})
}

// linkMentions makes a RELATES_TO link from source to every item text
// mentions by URI ([[rhizome:node/…|alias]], link.Mentions) that the library
// holds (URLs and files too), unless a link of any type already goes from
// source to it: a person who changed a mention's link to another type keeps
// that type, and a mention taken out of the text keeps its link. It reports
// the links made. Mentions of queries, of missing items and of source itself
// make none.
func (c *core) linkMentions(ctx context.Context, source link.Item, text string) (int, error) {
	var targets []link.Item
	seen := map[link.Item]bool{source: true}
	for _, m := range link.Mentions(text) {
		if m.Item.Kind == "" || m.Err != nil || seen[m.Item] {
			continue
		}
		seen[m.Item] = true
		targets = append(targets, m.Item)
	}
	if len(targets) == 0 {
		return 0, nil
	}
	recs, err := c.store.ResolveItems(ctx, targets)
	if err != nil {
		return 0, err
	}
	made := 0
	var errs []error
	for _, t := range targets {
		if !c.itemView(recs[t.String()]).Exists {
			continue
		}
		has, err := c.store.HasLinkBetween(ctx, source, t)
		if err != nil {
			return made, err
		}
		if has {
			continue
		}
		lk, err := link.New(source, t, link.DefaultRelation, "", link.ByUser, time.Now())
		if err == nil {
			err = c.store.PutLink(ctx, lk)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		made++
	}
	if made > 0 {
		c.linksChanged(append([]link.Item{source}, targets...)...)
	}
	if err := errors.Join(errs...); err != nil {
		return made, fmt.Errorf("app: unable to link the mentions of %s: %w", source, err)
	}
	return made, nil
}

// LinkEdgeType is the graph edge type of a user link between two graph
// nodes (GraphData), drawn in its own style with its own legend toggle.
const LinkEdgeType = "link"

// userLinkEdges returns the links between nodes as graph edges: id
// "link:<linkId>", type LinkEdgeType, metadata {linkId, relation, label,
// note, createdBy}.
func (c *core) userLinkEdges(ctx context.Context, nodes []GraphNode) ([]GraphEdge, error) {
	items := make([]link.Item, len(nodes))
	for i, n := range nodes {
		items[i] = link.Node(n.ID)
		if n.Knowledge != nil {
			items[i] = link.Knowledge(n.ID)
		}
	}
	links, err := c.store.LinksAmong(ctx, items)
	if err != nil {
		return nil, err
	}
	out := make([]GraphEdge, 0, len(links))
	for _, lk := range links {
		info, _ := link.Lookup(lk.Type)
		md := map[string]any{"linkId": lk.ID, "relation": string(lk.Type), "label": info.Label, "createdBy": string(lk.CreatedBy)}
		if lk.Note != "" {
			md["note"] = lk.Note
		}
		out = append(out, GraphEdge{ID: "link:" + lk.ID, Source: lk.Source.ID, Target: lk.Target.ID, Type: LinkEdgeType, Metadata: md,
			Confidence: 1, CreatedBy: string(graph.CreatedByUser)})
	}
	return out, nil
}
