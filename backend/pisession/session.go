package pisession

import (
	"fmt"
	"io"
	"os"

	"rhizome/backend/session"
)

// Session is a whole session file read into memory: the header, every entry
// in file order (version 3 meaning, see Entry), and what the Reader reported.
// Consumed and Lines say where an append import resumes (NewReaderAt).
type Session struct {
	Header    session.Header
	Entries   []session.Entry
	Malformed []session.Problem // lines reported and skipped (Reader.Malformed; at most session.MaxStoredProblems)
	Warnings  []session.Problem // entries kept with fields left empty (Reader.Warnings; at most session.MaxStoredProblems)

	MalformedCount int // all malformed lines, stored or not (Reader.MalformedCount)
	WarningCount   int // all warnings (Reader.WarningCount)

	Pending  *session.Problem // half-written last line, or nil (Reader.Pending)
	Consumed int64            // bytes up to the end of the last complete line (Reader.Consumed)
	Lines    int              // complete lines (Reader.Lines)
}

// Read reads a whole session from r; file names it in problems and errors.
// It returns the Header error (matching ErrNoHeader) when there is no session
// header, or a read error; malformed lines are not errors (Session.Malformed).
// The entries are held in memory: for large files prefer NewReader.
func Read(r io.Reader, file string) (*Session, error) {
	rd := NewReader(r, file)
	h, err := rd.Header()
	if err != nil {
		return nil, err
	}
	s := &Session{Header: *h}
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
	s.Malformed = rd.Malformed()
	s.Warnings = rd.Warnings()
	s.MalformedCount = rd.MalformedCount()
	s.WarningCount = rd.WarningCount()
	s.Pending = rd.Pending()
	s.Consumed = rd.Consumed()
	s.Lines = rd.Lines()
	return s, nil
}

// ReadFile opens the session file at path and reads it whole with Read;
// problems and errors name the file by path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pisession: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}
