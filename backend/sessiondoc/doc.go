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
// read and to fold into Doc.Fingerprint) and the decode of one stored entry's
// Raw (app/ingest.DecodeStored). See app/ingest/document.go for the import.
package sessiondoc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

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
}

// Item is one item of a document (a message, or what stands for a
// compaction) as one entry. Entry.Seq is Diff's to set.
type Item struct {
	// Key names the item across rewrites: the same message in a later
	// version of the document has the same key (Key).
	Key   string
	Entry *session.Entry
}

// Key is an item's key: "id:<id>#<hash>" for an item with an id,
// "at:<index>#<hash>" for one without, where hash is the first 8 bytes of
// the SHA-256 of raw's JSON without the whitespace between tokens (a
// document written again with other indentation keeps its keys; a message
// written again with other content is another item).
func Key(id string, index int, raw []byte) string {
	h := ContentHash(raw)
	if id != "" {
		return "id:" + id + "#" + h
	}
	return "at:" + strconv.Itoa(index) + "#" + h
}

// ContentHash is the first 8 bytes, in hex, of the SHA-256 of the JSON
// value raw (valid JSON) without the whitespace between its tokens.
func ContentHash(raw []byte) string {
	buf := make([]byte, 0, len(raw))
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			buf = append(buf, c)
			if c == '\\' && i+1 < len(raw) {
				i++
				buf = append(buf, raw[i])
			} else if c == '"' {
				inStr = false
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			if c == '"' {
				inStr = true
			}
			buf = append(buf, c)
		}
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8])
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
// within doc counts once per occurrence (the second is "<key>~2").
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
		k := it.Key
		if n := seen[it.Key]; n > 0 {
			k = it.Key + "~" + strconv.Itoa(n+1)
		}
		seen[it.Key]++
		if seq, ok := stored[k]; ok {
			held[seq] = true
			if gone[seq] {
				ch.Back = append(ch.Back, seq)
			}
			continue
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
