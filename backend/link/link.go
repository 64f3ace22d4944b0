// Package link names every item of the library with one URI and joins any
// two items with a typed, annotated Link: the Aspen Grove Link entity, typed
// by one relation vocabulary (AutoMem's relations and ccmemory's
// cross-references) that graph edges will share. It also finds the [[…]]
// mentions in text that the UI turns into links.
//
// Items are named by URIs (see Parse):
//
//	rhizome:session/<sessionId>
//	rhizome:node/<nodeId>
//	rhizome:entry/<sessionId>/<entryId>
//	rhizome:loom/<treeId>
//	rhizome:loom/<treeId>/<nodeId>
//	rhizome:project/<percent-encoded path>
//	rhizome:note/<noteId>
//	rhizome:knowledge/<id>
//	rhizome:reasoning/<graphId>
//	rhizome:reasoning/<graphId>/<nodeId>
//
// and external targets by their https:/http: URL or absolute file path.
//
// See aspen-grove-core-entities.md, the note on the Link entity ("Cross-
// references between Loom Trees, Documents, and Nodes use the Link entity,
// not Edges"), automem-features.md, "Edge Types", and context-graph-dag.md,
// "Cross-Reference Relationship Types", with ERRATA.md, "ccmemory".
package link

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// CreatedBy says who or what made a link.
type CreatedBy string

// Link makers. Boundary and consolidation are for later issues: links the
// segmenter derives from session boundaries, and links a consolidation pass
// (AutoMem's sleep cycles) proposes.
const (
	ByUser          CreatedBy = "user"
	ByModel         CreatedBy = "model"
	ByOffline       CreatedBy = "offline"
	ByBoundary      CreatedBy = "boundary"
	ByConsolidation CreatedBy = "consolidation"
)

// Valid reports whether c is one of the link makers.
func (c CreatedBy) Valid() bool {
	switch c {
	case ByUser, ByModel, ByOffline, ByBoundary, ByConsolidation:
		return true
	}
	return false
}

// MaxNoteBytes is the longest note a link may carry, in bytes of UTF-8.
const MaxNoteBytes = 64 << 10

// Link is a typed connection from one item to another, with an optional note.
// Links are never edited in place: changing the type or note of a link is the
// store's business (it keeps the id).
//
// See aspen-grove-core-entities.md, the note on the Link entity, and
// Relations for the types.
type Link struct {
	ID     string   `json:"id"`     // ULID
	Source Item     `json:"source"` // a library item (rhizome: URI)
	Target Item     `json:"target"` // any item: a library item, a URL or a file
	Type   Relation `json:"type"`   // one of Relations
	// Note is markdown written by the maker of the link, shown beside it.
	// Rendering sanitises it (the frontend's DOMPurify); here it is only
	// bounded: at most MaxNoteBytes of valid UTF-8 without NUL.
	Note      string    `json:"note,omitempty"`
	CreatedBy CreatedBy `json:"createdBy"` // who or what made it
	CreatedAt time.Time `json:"createdAt"` // UTC, millisecond precision
}

// New makes a link with a fresh ULID for time now (monotonic within a
// millisecond), now truncated to milliseconds in UTC, and validates it. The
// note's surrounding white space is trimmed.
func New(source, target Item, typ Relation, note string, by CreatedBy, now time.Time) (Link, error) {
	now = now.UTC().Truncate(time.Millisecond)
	l := Link{
		ID:        ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String(),
		Source:    source,
		Target:    target,
		Type:      typ,
		Note:      strings.TrimSpace(note),
		CreatedBy: by,
		CreatedAt: now,
	}
	if err := l.Validate(); err != nil {
		return Link{}, err
	}
	return l, nil
}

// Validate reports the first thing wrong with a link, naming the field: an id
// that is not a ULID, an invalid source or target (see Item.Validate), a
// source outside the library (links start at library items; URLs and files
// are targets only), a link from an item to itself, an unknown type, a note
// that is too long, not UTF-8 or holds NUL, an unknown maker, or no creation
// time.
func (l Link) Validate() error {
	if _, err := ulid.ParseStrict(l.ID); err != nil {
		return fmt.Errorf("link: field id: %q is not a ULID: %w", l.ID, err)
	}
	if err := l.Source.Validate(); err != nil {
		return fmt.Errorf("link %s: field source: %w", l.ID, err)
	}
	if !l.Source.InLibrary() {
		return fmt.Errorf("link %s: field source: %s is outside the library; a link starts at a library item", l.ID, l.Source.format())
	}
	if err := l.Target.Validate(); err != nil {
		return fmt.Errorf("link %s: field target: %w", l.ID, err)
	}
	if l.Source == l.Target {
		return fmt.Errorf("link %s: source and target are the same item (%s)", l.ID, l.Source.format())
	}
	if _, ok := Lookup(l.Type); !ok {
		return fmt.Errorf("link %s: field type: unknown relation %q", l.ID, l.Type)
	}
	if err := ValidateNote(l.Note); err != nil {
		return fmt.Errorf("link %s: field note: %w", l.ID, err)
	}
	if !l.CreatedBy.Valid() {
		return fmt.Errorf("link %s: field createdBy: %q, want user, model, offline, boundary or consolidation", l.ID, l.CreatedBy)
	}
	if l.CreatedAt.IsZero() {
		return fmt.Errorf("link %s: field createdAt is not set", l.ID)
	}
	return nil
}

// ValidateNote checks a markdown note (of a link, or a note item): at most
// MaxNoteBytes bytes of valid UTF-8 without NUL. It does not sanitise:
// markdown is rendered through DOMPurify by the frontend.
func ValidateNote(note string) error {
	switch {
	case len(note) > MaxNoteBytes:
		return fmt.Errorf("the note is %d bytes, the limit is %d", len(note), MaxNoteBytes)
	case !utf8.ValidString(note):
		return errors.New("the note is not valid UTF-8")
	case strings.IndexByte(note, 0) >= 0:
		return errors.New("the note holds a NUL byte")
	}
	return nil
}
