package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"rhizome/backend/cline"
	"rhizome/backend/opencode"
	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
	"rhizome/store"
)

// The document seam: a format stored as whole JSON documents rewritten on
// every change (Cline CLI's <id>.messages.json; see backend/sessiondoc for
// what differs from the line seam) goes through the same import as the line
// formats, with these differences:
//
//   - job.open reads the file whole (at most sessiondoc.MaxBytes) and the
//     format's parse makes a sessiondoc.Doc of it. A document that breaks
//     off (sessiondoc.ErrIncomplete, or too little of it to tell its format:
//     errStillWritten) is not read: the file's report is "unchanged" with
//     PendingTail, no error, nothing written; the next import of the file
//     (the watcher's, when the agent finishes writing it) reads it.
//   - decideDocument compares the reading's fingerprint with the one stored
//     (resumeState.Reader holds the sessiondoc.State): the same is
//     "unchanged"; else "appended": only the items whose keys the library
//     does not hold are read as entries (docReader), numbered on after the
//     stored ones, and the stored items the document no longer holds are
//     marked dropped (kept); a session stored otherwise is "imported" anew.
//   - No gaps: the document's bytes are kept whole (store.Tx.
//     PutSessionDocument) and give the file back; the entries are not
//     checked against the file's bytes (docScanner).
//
// A database's session (OpenCode's: opencode.go) is a document too: its
// rows exported as one, with a change marker that spares the export when
// it has not moved.
//
// Another format plugs in with an entry in documentFormats: its parse (a
// document's bytes and a name in, a Doc out; what lies beside a file on
// disk is its own to read, through the import's besideCache) and its decode
// of stored entries (DecodeStored).

// documentFormat is a format stored as whole documents.
type documentFormat struct {
	// parse reads the document doc, named name in problems and errors;
	// path is the file on this machine it was read from, whose neighbours
	// the format may read ("" for bytes given alone); cache keeps what a
	// file beside many documents holds for the import's other jobs. The
	// error matches sessiondoc.ErrIncomplete for a document that breaks
	// off (the Doc's header then has what was read of it).
	//
	// stored, when not nil, gives the state the library holds of the
	// session of an id: a format may leave the items it holds undecoded
	// (their Entry nil; sessiondoc.Known) and says by against which state
	// it read (the zero State: none).
	parse func(doc []byte, name, path string, cache *besideCache, stored func(id string) (sessiondoc.State, bool)) (d *sessiondoc.Doc, against sessiondoc.State, err error)
	// decode decodes stored entries of the format (DecodeStored).
	decode func(hdr session.Header, file string, firstSeq int, raws [][]byte) ([]*session.Entry, error)
}

// documentFormats are the formats read through the document seam.
var documentFormats = map[string]documentFormat{
	formatCline:    {parse: parseCline, decode: cline.DecodeStored},
	formatOpenCode: {parse: parseOpenCode, decode: opencode.DecodeStored}, // a database's session (opencode.go)
}

// isDocumentFormat reports whether format is read through the document
// seam.
func isDocumentFormat(format string) bool {
	_, ok := documentFormats[format]
	return ok
}

// parseCline reads a Cline conversation with what lies beside it on disk:
// its manifest, compaction and sub-agents (cline.SideOf), and its row of
// the session index (db/sessions.db, read once per import, read-only).
// A conversation the library holds part of is read against that state:
// the messages it holds are not decoded again (cline.ReadKnown).
func parseCline(doc []byte, name, path string, cache *besideCache, stored func(string) (sessiondoc.State, bool)) (*sessiondoc.Doc, sessiondoc.State, error) {
	var side cline.Side
	id, hasID := clineSessionID(doc)
	if path != "" {
		side = cline.SideOf(path)
		if idx := cline.IndexPathOf(path); idx != "" && hasID {
			rows, _ := cache.get(idx, func() any {
				rows, _ := cline.ReadIndex(context.Background(), idx) // no index: the files say enough
				return rows
			}).(map[string]cline.IndexRow)
			if r, ok := rows[id]; ok {
				side.Row = &r
			}
		}
	}
	var against sessiondoc.State
	if hasID && stored != nil {
		against, _ = stored(id)
	}
	if against.Fingerprint != "" {
		if fp := cline.Fingerprint(doc, side); fp == against.Fingerprint {
			// The bytes of the reading the library holds (a whole
			// document: a pending one is never stored), with the same
			// files beside: not read again; an unchanged session folder
			// costs its hashing.
			return &sessiondoc.Doc{Header: session.Header{ID: id, Format: cline.Format}, Fingerprint: fp, Unread: true}, against, nil
		}
	}
	d, err := cline.ReadKnown(doc, name, side, against.Known())
	return d, against, err
}

// clineSessionID is the session id a Cline conversation names, read
// without decoding it whole.
func clineSessionID(doc []byte) (string, bool) {
	top, ok := sessiondoc.Members(doc, sessiondoc.Span{Start: 0, End: len(doc)})
	if !ok {
		return "", false
	}
	v, ok := sessiondoc.Find(top, "sessionId")
	if !ok {
		return "", false
	}
	var id string
	return id, json.Unmarshal(doc[v.Start:v.End], &id) == nil && id != ""
}

// besideCache keeps, for one import, what files beside many documents hold
// (Cline's session index), by path: read once. Used by the reader
// goroutine only.
type besideCache struct {
	byPath map[string]any
}

// get returns what load made of the file at path, loading it the first
// time.
func (c *besideCache) get(path string, load func() any) any {
	if c == nil {
		return load()
	}
	if c.byPath == nil {
		c.byPath = map[string]any{}
	}
	v, ok := c.byPath[path]
	if !ok {
		v = load()
		c.byPath[path] = v
	}
	return v
}

// errStillWritten is a file that is the beginning of a JSON document too
// short to tell its format: it is being written.
var errStillWritten = errors.New("the JSON document breaks off before its end and before it says what it is: it is still being written")

// tooShortToTell reports whether the file of j is a conversation document
// by its name (Cline's *.messages.json) caught before its first key: empty,
// or an object left open with nothing in it. Its content cannot say what it
// is (a JSON Lines file so short is a failure), and Cline truncates the file
// before it writes it again.
func (j *job) tooShortToTell() bool {
	if !strings.HasSuffix(strings.ToLower(j.src.path), cline.MessagesSuffix) || j.src.size > 64 {
		return false
	}
	b := make([]byte, j.src.size)
	if n, _ := j.file.ReadAt(b, 0); int64(n) != j.src.size {
		return false
	}
	t := bytes.TrimSpace(bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF}))
	return len(t) == 0 || t[0] == '{' && errors.Is(sessiondoc.Check(t, ""), sessiondoc.ErrIncomplete) && !bytes.ContainsRune(t, ':')
}

// openDocument reads the document of j whole, through j.counter, and parses
// it. A document that breaks off leaves j.docPending set and returns the
// header read so far (its id may be empty).
func (j *job) openDocument() (*session.Header, error) {
	if j.src.size > sessiondoc.MaxBytes {
		return nil, fmt.Errorf("a JSON document of %d MB: the largest Rhizome reads whole is %d MB", j.src.size>>20, sessiondoc.MaxBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(j.counter, sessiondoc.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(b) > sessiondoc.MaxBytes {
		return nil, fmt.Errorf("a JSON document of more than %d MB: the largest Rhizome reads whole", sessiondoc.MaxBytes>>20)
	}
	path := ""
	if j.src.onDisk {
		path = j.src.path
	}
	doc, against, err := documentFormats[j.format].parse(b, j.src.path, path, j.beside, j.storedDoc)
	if errors.Is(err, sessiondoc.ErrIncomplete) {
		j.docPending = true
		if doc == nil {
			doc = &sessiondoc.Doc{}
		}
		return &doc.Header, nil
	}
	if err != nil {
		return nil, err
	}
	j.doc, j.docBytes, j.docSHA, j.docAgainst = doc, b, sha256Hex(b), against
	return &doc.Header, nil
}

// readDocumentAgainst reads the document of j again against st when it
// was read against a state that holds items st does not (the library
// changed since: an import before this one in the same run replaced the
// session, or its stored state is not one this seam goes on from): what
// sessiondoc.State.Diff stores must have been decoded. A reading against
// a state whose keys begin st's decoded all that st does not hold: it
// stands.
func (j *job) readDocumentAgainst(st sessiondoc.State) error {
	if !j.doc.Unread && keysBegin(j.docAgainst.Keys, st.Keys) {
		return nil
	}
	path := ""
	if j.src.onDisk {
		path = j.src.path
	}
	doc, against, err := documentFormats[j.format].parse(j.docBytes, j.src.path, path, j.beside,
		func(string) (sessiondoc.State, bool) { return sessiondoc.State{Keys: st.Keys, Gone: st.Gone}, true }) // no fingerprint: read
	if err != nil {
		return err // it read before: only a file beside it can have changed
	}
	j.doc, j.docAgainst = doc, against
	return nil
}

// keysBegin reports whether the keys a begin the keys b (a state's keys
// only grow while its session is appended to).
func keysBegin(a, b []string) bool {
	return len(a) <= len(b) && slices.Equal(a, b[:len(a)])
}

// docStored is the stored session a document's reading looked up, and its
// reader state (ok false: none this seam goes on from).
type docStored struct {
	session *store.Session
	state   docState
	ok      bool
}

// storedDocStateOf is storedDocState of s, as j's reading found it when
// the library held the same then (sameStored), else read again.
func (j *job) storedDocStateOf(s *store.Session) (docState, bool) {
	if d := j.docStored; d != nil && sameStored(d.session, s) {
		return d.state, d.ok
	}
	return storedDocState(s, j.format)
}

// storedDocState is the reader state of the stored document session s of
// format, false when s is not one this seam goes on from (another format,
// another layout, keys that do not match its entries).
func storedDocState(s *store.Session, format string) (docState, bool) {
	var rs resumeState
	var ds docState
	if s.Format != format || len(s.Resume) == 0 || json.Unmarshal(s.Resume, &rs) != nil ||
		rs.Version != resumeVersion || json.Unmarshal(rs.Reader, &ds) != nil || len(ds.Doc.Keys) != s.Entries {
		return docState{}, false
	}
	ds.resume = rs
	return ds, true
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// docState is a document session's reader state (resumeState.Reader).
type docState struct {
	Doc sessiondoc.State `json:"doc"`
	// Marker is the change marker of a database's session when it was
	// listed before this reading (opencode.Change.String; "" for a file):
	// the same marker next time, the session is unchanged without being
	// read (prepareDatabaseSession). Taken before the export, it can only
	// be older than the reading, never newer.
	Marker string `json:"marker,omitempty"`
	// resume is the stored resumeState the state was read from
	// (storedDocState); not kept.
	resume resumeState
}

// decideDocument compares the document j read with the stored session of
// the same id: the same reading (fingerprint) is "unchanged"; a session
// stored by this seam "appended", reading only what is new (j.reader);
// another "imported" anew.
func decideDocument(j *job, stored *store.Session) error {
	ds, ok := j.storedDocStateOf(stored)
	if !ok {
		j.status = StatusImported
		if err := j.readDocumentAgainst(sessiondoc.State{}); err != nil {
			return err
		}
		j.reader = newDocReader(j, sessiondoc.State{})
		return nil
	}
	if ds.Doc.Fingerprint == j.doc.Fingerprint && ds.Marker == j.marker() {
		j.status = StatusUnchanged
		return nil
	}
	if err := j.readDocumentAgainst(ds.Doc); err != nil {
		return err
	}
	rs := ds.resume
	// The same reading under a new change marker goes the appended way too:
	// nothing new is written (reported unchanged), the marker is kept.
	j.status = StatusAppended
	// The whole document is read again: its problems are all reported
	// anew, none kept from before.
	rs.Offset, rs.Line, rs.Malformed, rs.Seq = 0, 0, 0, stored.Entries
	j.resume = &rs
	j.reader = newDocReader(j, ds.Doc)
	return nil
}

// docReader is a document session's sessionReader: the entries of the items
// the library does not hold yet, all settled (a document read whole has no
// half-written tail).
type docReader struct {
	doc     *sessiondoc.Doc
	marker  string // docState.Marker
	change  sessiondoc.Change
	next    int
	size    int64
	lines   int
	settled int // entries returned
}

func newDocReader(j *job, st sessiondoc.State) *docReader {
	return &docReader{doc: j.doc, marker: j.marker(), change: st.Diff(j.doc), size: int64(len(j.docBytes)),
		lines: sessiondoc.LineOf(j.docBytes, int64(len(j.docBytes))), settled: len(st.Keys)}
}

func (d *docReader) Header() (*session.Header, error) { return &d.doc.Header, nil }

func (d *docReader) Next() (*session.Entry, error) {
	if d.next >= len(d.change.Fresh) {
		return nil, io.EOF
	}
	e := d.change.Fresh[d.next]
	d.next++
	d.settled++
	return e, nil
}

func (d *docReader) Malformed() []session.Problem {
	return d.doc.Problems[:min(len(d.doc.Problems), session.MaxStoredProblems)]
}

func (d *docReader) MalformedCount() int       { return len(d.doc.Problems) }
func (d *docReader) Pending() *session.Problem { return d.doc.Pending }
func (d *docReader) Consumed() int64           { return d.size }
func (d *docReader) Lines() int                { return d.lines }

func (d *docReader) State() (json.RawMessage, int, error) {
	b, err := json.Marshal(docState{Doc: d.change.Next, Marker: d.marker})
	return b, len(d.change.Next.Keys), err
}

func (d *docReader) Meta() SessionMeta {
	return SessionMeta{Title: d.doc.Title, Models: d.doc.Models, Record: d.doc.Record, ForkPoint: d.doc.ForkPoint}
}

// marker is the change marker of j's database session ("" for a file).
func (j *job) marker() string {
	if j.src.db != nil {
		return j.src.db.marker
	}
	return ""
}

// docScanner stands for the gap scanner of a document session: its bytes
// are kept whole, not between entries.
type docScanner struct{ sum string }

func (docScanner) entry(*session.Entry) error { return nil }
func (docScanner) walkTo(int64) error         { return nil }
func (docScanner) hashState() []byte          { return nil }
func (d docScanner) sumHex() string           { return d.sum }
func (docScanner) release()                   {}
func (docScanner) implicitEnd() bool          { return false }
