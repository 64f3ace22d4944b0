package gemini

import "rhizome/backend/session"

// engineSurface is what app/ingest's sessionReader (formats.go) needs of a
// format's reader, before its wrapper adds State as JSON and Meta: the
// same methods claudecode.Reader and copilot.Reader give it. The
// assignment fails to compile if Reader loses one.
type engineSurface interface {
	Header() (*session.Header, error)
	Next() (*session.Entry, error)
	Malformed() []session.Problem
	MalformedCount() int
	Pending() *session.Problem
	Consumed() int64
	Lines() int
	State() State
	Metadata() Metadata
}

var _ engineSurface = (*Reader)(nil)
