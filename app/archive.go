package app

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"rhizome/backend/link"
	"rhizome/store"
)

// The library is the archive: a session stays when its file is deleted
// (Claude Code removes transcripts after 30 days), and its file can be
// written back byte for byte from what the library holds (the entries'
// objects and the bytes between them; see import_gaps.go).

// ExportedSession is what ExportSession wrote.
type ExportedSession struct {
	Session SessionSummary `json:"session"`
	Path    string         `json:"path"`
	Bytes   int64          `json:"bytes"`
}

// ExportSession writes the file of a library session back, byte for byte as
// it was when last imported (checked against its size and SHA-256), to the
// file out (replaced whole or not at all, mode 0600). item names the
// session: a rhizome:session/, rhizome:node/ or rhizome:entry/ URI, a
// session id, or the path of the file it was imported from. Not bound to
// the window: `rhizome export-session` calls it. The error names the item
// when the library has no such session, and says so when the library does
// not hold every byte of it (a session imported before it kept them: import
// its file again).
func (a *App) ExportSession(item, out string) (ExportedSession, error) {
	sess, err := a.resolveSession(item)
	if err != nil {
		return ExportedSession{}, err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return ExportedSession{}, fmt.Errorf("app: %s: %w", out, err)
	}
	var n int64
	err = store.WriteFileFrom(abs, 0o600, func(w io.Writer) error {
		var err error
		n, err = a.c.store.WriteSessionFile(a.c.context(), sess.ID, w)
		return err
	})
	if errors.Is(err, store.ErrExportMismatch) {
		return ExportedSession{}, fmt.Errorf("app: session %s: %w; import %s again to keep every byte", sess.ID, err, sess.Path)
	}
	if err != nil {
		return ExportedSession{}, err
	}
	name := sess.Name
	if name == "" {
		name = sess.FileName
	}
	return ExportedSession{Session: sessionSummary(sess, name), Path: abs, Bytes: n}, nil
}

// resolveSession finds the session an item names (see ExportSession).
func (a *App) resolveSession(item string) (*store.Session, error) {
	ctx, st := a.c.context(), a.c.store
	item = strings.TrimSpace(item)
	if it, err := link.Parse(item); err == nil {
		switch it.Kind {
		case link.KindSession:
			return st.SessionByID(ctx, it.ID)
		case link.KindEntry:
			return st.SessionByID(ctx, it.Within)
		case link.KindNode:
			n, err := st.Node(ctx, it.ID)
			if err != nil {
				return nil, err
			}
			return st.SessionByID(ctx, n.SessionID)
		case link.KindFile:
			ss, err := st.SessionsByPath(ctx, it.ID)
			if err != nil {
				return nil, err
			}
			if len(ss) == 0 {
				return nil, fmt.Errorf("app: no session of the library was imported from %s: %w", it.ID, store.ErrNotFound)
			}
			return &ss[len(ss)-1], nil
		}
		return nil, fmt.Errorf("app: %s names a %s, not a session", item, it.Kind)
	}
	s, err := st.SessionByID(ctx, item)
	if errors.Is(err, store.ErrNotFound) {
		if abs, aerr := filepath.Abs(item); aerr == nil {
			if ss, perr := st.SessionsByPath(ctx, abs); perr == nil && len(ss) > 0 {
				return &ss[len(ss)-1], nil
			}
		}
		return nil, fmt.Errorf("app: %q is no session of the library (give a rhizome:session/ URI, a session id or the path it was imported from): %w", item, store.ErrNotFound)
	}
	return s, err
}
