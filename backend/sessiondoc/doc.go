// Package sessiondoc is the seam of the session formats stored as whole
// JSON documents rewritten on every change (Cline CLI's
// sessions/<id>/<id>.messages.json; a session of a database exported as a
// JSON document of its rows goes through it the same way), beside the line
// seam of the JSON Lines formats (backend/sessionlog and app/ingest's
// sessionReader).
//
// What differs from the line seam:
//
//   - A line log grows at its end: a read goes on from a byte offset, and a
//     hash of the prefix tells a grown file from a rewritten one. A document
//     is rewritten whole (even a new message changes bytes before it, an
//     "updated_at"), so it is read whole, every time (at most MaxBytes), by
//     the format's Parse into a Doc: its header, and its items (messages)
//     in document order, each one entry with a Key that stays the same
//     across rewrites (its id and a hash of its content; a message without
//     an id, its index and the hash).
//   - What the library holds of a document session is the list of the keys
//     it stored (State), not an offset: a re-read stores the items whose key
//     is new (Diff), numbered on after the stored ones, and names the stored
//     items the new document no longer holds (a rewrite or a compaction
//     dropped them, or a message was rewritten with other content): they are
//     kept and marked, never deleted.
//   - A re-read need not decode what the library holds: read against the
//     State's Known, a format gives each known item (one whose key, in
//     its occurrence, the State holds) its Key and a nil Entry, decoding
//     only the new ones, and Diff gives the Change a whole reading would.
//     The key of an item is found without decoding it (its id, and
//     ContentHash of its bytes); what the items after it depend on (the
//     entry before, the turn) the format scans from its bytes.
//   - A document that breaks off (ErrIncomplete: the agent is writing it) is
//     not read at all: it is retried when it changes, never reported as
//     corrupt, and never replaces the version read before. A document that
//     does not parse for another reason (a SyntaxError: junk, a wrong type
//     where the structure needs a list) fails with the place; a wrong type
//     inside one item leaves that item out, reported as a Problem, and keeps
//     the rest.
//   - The bytes between entries are not gaps: the document's bytes, as last
//     read whole, are kept whole beside the entries (they give the file
//     back); an entry's Raw is its item's bytes in the document it was first
//     read from, and its Offset and Line say where they were there.
//
// A format plugs in with a Parse (bytes and a name in, a Doc out; what lies
// beside the document on disk, such as Cline's manifest, is the format's to
// read and to fold into Doc.Fingerprint), optionally one against a Known
// (cline.ReadKnown), and the decode of one stored entry's Raw
// (app/ingest.DecodeStored). See app/ingest/document.go for the import.
package sessiondoc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rhizome/backend/session"
)

// MaxBytes is the largest document a format reads: a document is read
// whole into memory (a long Cline session is a few MB).
const MaxBytes = 256 << 20

// ErrIncomplete matches (errors.Is) the error of a document that breaks off
// before its end (empty, or a JSON value left open at the last byte): the
// agent is writing it. Read it again when it changes.
var ErrIncomplete = errors.New("the JSON document breaks off before its end: it is still being written")

// SyntaxError is a document that is not the JSON its format writes: not
// JSON at all, or a value of the wrong type where the document's structure
// needs another (its top level, its list of messages). Offset is the byte
// where it goes wrong (0-based), Line its line (1-based).
type SyntaxError struct {
	File   string
	Offset int64
	Line   int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: line %d (byte %d): %s", e.File, e.Line, e.Offset, e.Msg)
}

// Doc is a format's reading of one whole document.
type Doc struct {
	// Header is the session's header (Header.Raw nil: the import stores
	// the header as JSON).
	Header session.Header
	// Items are the document's items in document order.
	Items []Item
	// Problems are the items left out (a wrong type inside a message), with
	// the place: the document, its line and byte, the message's index and
	// field.
	Problems []session.Problem
	// Title is the session's title as the agent wrote it ("" for none).
	Title string
	// Models are the models of the messages, in order of first use.
	Models []string
	// Record is the agent's own record of the session beside the document
	// (Cline's <id>.json manifest), as read, nil when none.
	Record json.RawMessage
	// Fingerprint is the hex SHA-256 of every byte the reading depended
	// on: the document and what was read beside it. The same fingerprint,
	// the same reading.
	Fingerprint string
	// Pending says the document's last items are still being written (an
	// answer streaming in a database row): they are not in Items, and are
	// read once they are whole, as the line seam leaves a half-written last
	// line. Pending names the first of them, with its place.
	Pending *session.Problem
	// ForkPoint is the entry of the session the document was forked from
	// (Header.ParentSession) that the fork goes on from: its last message
	// copied. "" when it is no fork, or when the copies keep the ids of
	// their originals (the fork point is then found by its id).
	ForkPoint string
	// Unread says the document was not read: its Fingerprint is that of the
	// reading the library holds (the state a format's parse was given), so
	// the reading would be the same. Only Header.ID, Header.Format and
	// Fingerprint are set; a caller that needs more reads it.
	Unread bool
}

// Item is one item of a document (a message, or what stands for a
// compaction) as one entry. Entry.Seq is Diff's to set.
type Item struct {
	// Key names the item across rewrites: the same message in a later
	// version of the document has the same key (Key).
	Key string
	// Entry is nil for a known item of a document read against a Known
	// (the library holds it: it was not decoded).
	Entry *session.Entry
}

// Key is an item's key: "id:<id>#<hash>" for an item with an id,
// "at:<index>#<hash>" for one without, where hash is the first 8 bytes of
// the SHA-256 of raw's JSON without the whitespace between tokens (a
// document written again with other indentation keeps its keys; a message
// written again with other content is another item).
func Key(id string, index int, raw []byte) string {
	return KeyOf(id, index, ContentHash(raw))
}

// KeyOf is Key of an item whose ContentHash is hash.
func KeyOf(id string, index int, hash string) string {
	if id != "" {
		return "id:" + id + "#" + hash
	}
	return "at:" + strconv.Itoa(index) + "#" + hash
}

// ContentHash is the first 8 bytes, in hex, of the SHA-256 of the JSON
// value raw (valid JSON) without the whitespace between its tokens (' ',
// '\t', '\r', '\n' outside strings). The keys stored in libraries are made
// of it: its output never changes.
func ContentHash(raw []byte) string {
	h := hashers.Get().(*ContentHasher)
	defer func() { h.release(); hashers.Put(h) }()
	h.Reset(raw)
	for i := 0; i < len(raw); {
		switch raw[i] {
		case ' ', '\t', '\r', '\n':
			j := i + 1
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\r' || raw[j] == '\n') {
				j++
			}
			h.Space(i, j)
			i = j
		case '"':
			if i = StringEnd(raw, i); i < 0 {
				i = len(raw) // a string that does not end: all of it
			}
		default:
			i++
		}
	}
	return h.Sum()
}

// hashers are ContentHash's, reused (a ContentHasher is 4 KB).
var hashers = sync.Pool{New: func() any { return new(ContentHasher) }}

// ContentHasher computes ContentHash(raw) beside a walk of raw that finds
// the white space between its tokens itself (a format's scan of a message
// for its fields): Reset(raw), Space(from, to) for each run raw[from:to] of
// white space outside strings, in order, then Sum. The runs of raw between
// go to the SHA-256 as they are, batched, without a copy of raw. The zero
// ContentHasher is ready for Reset; one ContentHasher serves walk after
// walk.
type ContentHasher struct {
	raw   []byte
	sha   hash.Hash
	buf   [4096]byte // short runs batched: a pretty-printed message is many
	n     int
	start int // of the run going on
}

// Reset starts the hash of raw.
func (h *ContentHasher) Reset(raw []byte) {
	if h.sha == nil {
		h.sha = sha256.New()
	}
	h.sha.Reset()
	h.raw, h.n, h.start = raw, 0, 0
}

// release drops the bytes hashed last (a ContentHasher kept for later
// walks does not hold a document).
func (h *ContentHasher) release() { h.raw = nil }

// Space leaves out raw[from:to], white space between tokens (from not
// before the end of the last run left out).
func (h *ContentHasher) Space(from, to int) {
	h.put(h.raw[h.start:from])
	h.start = to
}

// Sum is ContentHash(raw) when Space was told every run of white space
// between raw's tokens.
func (h *ContentHasher) Sum() string {
	h.put(h.raw[h.start:])
	h.sha.Write(h.buf[:h.n])
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.sha.Sum(sum[:0])[:8])
}

func (h *ContentHasher) put(run []byte) {
	if h.n+len(run) > len(h.buf) {
		h.sha.Write(h.buf[:h.n])
		h.n = 0
	}
	if len(run) >= len(h.buf) {
		h.sha.Write(run)
		return
	}
	h.n += copy(h.buf[h.n:], run)
}

// State is what the library holds of a document session: the key of every
// item stored, in the order stored (Keys[i] is the entry with Seq i), and
// which of them the last document read no longer held. Its size grows with
// the items stored (a key is about 30 bytes), not with the document.
type State struct {
	Keys []string `json:"keys"`
	// Gone lists the seqs of the stored items the last document read did
	// not hold (ascending).
	Gone []int `json:"gone,omitempty"`
	// Fingerprint is the Doc.Fingerprint of the last document read.
	Fingerprint string `json:"fingerprint"`
}

// Change is what a document adds to the library that holds a State.
type Change struct {
	// Fresh are the entries of the items the library does not hold, in
	// document order, with Seq numbered on from the items stored.
	Fresh []*session.Entry
	// Dropped are the seqs of the stored items the document no longer holds
	// (they were held by the last one read): mark them, keep them.
	Dropped []int
	// Back are the seqs of stored items marked dropped that the document
	// holds again.
	Back []int
	// Next is the state after the document.
	Next State
}

// Diff compares doc with the state st of the library (the zero State: a
// library that holds nothing of the session). An item whose key repeats
// within doc counts once per occurrence (the second is "<key>~2"). Diff
// reads and numbers (Seq) the Entry of the items st does not hold, and
// never touches the Entry of one it holds: a doc read against st.Known()
// (a known item has a nil Entry) gives the same Change as a doc read
// whole. An item st does not hold with a nil Entry (a doc read against
// another state's Known) is a bug of the caller: Diff panics naming it.
func (st State) Diff(doc *Doc) Change {
	stored := make(map[string]int, len(st.Keys))
	for i, k := range st.Keys {
		stored[k] = i
	}
	gone := make(map[int]bool, len(st.Gone))
	for _, s := range st.Gone {
		gone[s] = true
	}
	ch := Change{Next: State{Keys: append([]string(nil), st.Keys...), Fingerprint: doc.Fingerprint}}
	held := make(map[int]bool, len(doc.Items))
	seen := make(map[string]int, len(doc.Items))
	for _, it := range doc.Items {
		k := occurrence(it.Key, seen[it.Key])
		seen[it.Key]++
		if seq, ok := stored[k]; ok {
			held[seq] = true
			if gone[seq] {
				ch.Back = append(ch.Back, seq)
			}
			continue
		}
		if it.Entry == nil {
			panic("sessiondoc: Diff: the item " + k + " is not stored and has no entry: the document was read against another state's Known")
		}
		seq := len(ch.Next.Keys)
		stored[k] = seq
		held[seq] = true
		ch.Next.Keys = append(ch.Next.Keys, k)
		it.Entry.Seq = seq
		ch.Fresh = append(ch.Fresh, it.Entry)
	}
	for seq := range st.Keys {
		switch {
		case !held[seq] && !gone[seq]:
			ch.Dropped = append(ch.Dropped, seq)
			ch.Next.Gone = append(ch.Next.Gone, seq)
		case !held[seq]:
			ch.Next.Gone = append(ch.Next.Gone, seq)
		}
	}
	return ch
}

// occurrence names the (n+1)-th occurrence of key in a document (n
// before it): key itself, then "<key>~2", "<key>~3", ...
func occurrence(key string, n int) string {
	if n == 0 {
		return key
	}
	return key + "~" + strconv.Itoa(n+1)
}

// Known is what a library holds of a document session (a State's keys),
// asked item by item while a format reads the document, so that it decodes
// only the items the library does not hold: a known item is one whose
// occurrence of its key the State holds (Diff would not store it again).
// The format gives a known item its Key and a nil Entry. A Known is used up
// by one reading (Next counts the occurrences of each key): take a new one
// for each. A nil *Known knows nothing.
type Known struct {
	// keys holds, for a key, its occurrences stored (occ[keys[key]]): key
	// itself is its first, "<key>~<n+1>" its n-th (0-based). One look-up
	// a Next.
	keys map[string]int
	occ  []occurrences
}

// occurrences are the stored occurrences of one key, and how many of it a
// reading met so far.
type occurrences struct {
	first bool  // the key itself is stored
	later []int // n of each "<key>~<n+1>" stored (few: a key repeats rarely)
	met   int
}

// Known is st's keys, to read a document against (see Known). Read against
// it, a document gives the Change of st.Diff that reading it whole gives.
func (st State) Known() *Known {
	k := &Known{keys: make(map[string]int, len(st.Keys)), occ: make([]occurrences, 0, len(st.Keys))}
	for _, key := range st.Keys {
		k.add(key)
	}
	return k
}

// Next says whether the next occurrence of key in the document is stored:
// called once per item in document order (every item, a compaction too),
// it counts repeats as Diff does (the second occurrence of key is
// "<key>~2"). False on a nil *Known.
func (k *Known) Next(key string) bool {
	if k == nil {
		return false
	}
	o := k.of(key)
	n := o.met
	o.met++
	if n == 0 && o.first || n > 0 && slices.Contains(o.later, n) {
		return true
	}
	// Diff stores it under its occurrence's name: an item of the same
	// document named so later (a key that itself ends in "~2") is held.
	k.add(occurrence(key, n))
	return false
}

// add notes the stored key name: the first occurrence of name, and when
// it is "<base>~<m>" (m from 2, as occurrence writes it) the m-th of base.
func (k *Known) add(name string) {
	k.of(name).first = true
	if i := strings.LastIndexByte(name, '~'); i >= 0 {
		if m, err := strconv.Atoi(name[i+1:]); err == nil && m >= 2 && strconv.Itoa(m) == name[i+1:] {
			o := k.of(name[:i])
			o.later = append(o.later, m-1)
		}
	}
}

// of is key's occurrences (valid until the next of).
func (k *Known) of(key string) *occurrences {
	j, ok := k.keys[key]
	if !ok {
		j = len(k.occ)
		k.keys[key] = j
		k.occ = append(k.occ, occurrences{})
	}
	return &k.occ[j]
}
