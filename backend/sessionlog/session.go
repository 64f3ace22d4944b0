package sessionlog

import (
	"io"

	"rhizome/backend/session"
)

// State is where a read stopped, for an append import to resume from it
// (ResumeAt): the byte offset and line (Consumed, Lines), the number of
// entries before it (Seq), the header and the format's state. It is small (a
// few KB) and serialises to JSON. Entries with Seq >= State.Seq that the
// reader returned come again from ResumeAt in their final form (a response
// whose usage a later line settles, an event whose twin comes later, a line
// partly returned): the import replaces them.
type State[S any] struct {
	Offset int64          `json:"offset"`
	Line   int            `json:"line"`
	Seq    int            `json:"seq"`
	Header session.Header `json:"header"`
	Parse  S              `json:"parse"`
}

// State returns where the read stands: the point up to which every entry
// has been returned (see Position), with the header as the lines up to there
// make it (a read that began early in a file being written saw fewer of
// them). Call it after Next returned io.EOF to store it with the session.
// It needs the header: before it, the zero State.
func (r *Reader[S]) State() State[S] {
	h, err := r.Header()
	if err != nil {
		return State[S]{}
	}
	off, line, seq, st := r.Position()
	if hh, err := r.format.Header(&st, r.file); err == nil {
		h = hh
	}
	return State[S]{Offset: off, Line: line, Seq: seq, Header: *h, Parse: st}
}

// ResumeAt returns a Reader that goes on from st (what State returned): r
// must be positioned at byte st.Offset of the file. Lines, offsets, Seq and
// the format's state continue as in a full read.
func ResumeAt[S any](r io.Reader, file string, f Format[S], st State[S]) *Reader[S] {
	return NewReaderAt(r, file, f, &st.Header, st.Parse, st.Offset, st.Line, st.Seq)
}

// Session is a whole file read into memory: its entries in file order, M
// the format's metadata (what the lines say about the session as a whole),
// what was reported, and where the read ended.
type Session[M, S any] struct {
	Header         session.Header
	Entries        []session.Entry
	Metadata       M
	Malformed      []session.Problem
	Warnings       []session.Problem
	MalformedCount int
	WarningCount   int
	Pending        *session.Problem
	Consumed       int64
	Lines          int
	State          State[S]
}

// ReadAll reads rd to the end of its input into a Session whose Metadata is
// meta of the format's final state. It returns the Header error (matching
// session.ErrNoHeader) or a read error; malformed lines are not errors.
func ReadAll[M, S any](rd *Reader[S], meta func(*S) M) (*Session[M, S], error) {
	h, err := rd.Header()
	if err != nil {
		return nil, err
	}
	s := &Session[M, S]{Header: *h}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s.Entries = append(s.Entries, *e)
	}
	s.Metadata = meta(rd.Live())
	s.Malformed, s.Warnings = rd.Malformed(), rd.Warnings()
	s.MalformedCount, s.WarningCount = rd.MalformedCount(), rd.WarningCount()
	s.Pending, s.Consumed, s.Lines = rd.Pending(), rd.Consumed(), rd.Lines()
	s.State = rd.State()
	return s, nil
}
