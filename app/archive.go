package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rhizome/backend/link"
	"rhizome/store"
)

// The library is the archive: a session stays when its file is deleted
// (Claude Code removes transcripts after 30 days), and its file can be
// written back byte for byte from what the library holds (the entries'
// objects and the bytes between them; see app/ingest/gaps.go).

// ExportedSession is what ExportSession wrote: the session's file at Path
// (Bytes long) and, for a Claude Code session, the tool outputs the library
// keeps (ToolOutputs: their paths) where Claude Code keeps them beside its
// <sessionId>.jsonl: <Path's folder>/<sessionId>/tool-results/.
type ExportedSession struct {
	Session     SessionSummary `json:"session"`
	Path        string         `json:"path"`
	Bytes       int64          `json:"bytes"`
	ToolOutputs []string       `json:"toolOutputs,omitempty"`
}

// ExportSession writes the file of a library session back, byte for byte as
// it was when last imported (checked against its size and SHA-256), to the
// file out (replaced whole or not at all, mode 0600), and the tool outputs
// a Claude Code session keeps in files of their own (tool-results/, which
// the library keeps) beside it, as Claude Code lays them out: the session
// written to a Claude Code project folder is whole again. item names the
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
	res := ExportedSession{Path: abs, Bytes: n}
	err = a.c.store.EachToolOutput(a.c.context(), sess.PK, func(o store.ToolOutput) error {
		p := filepath.Join(filepath.Dir(abs), sess.ID, "tool-results", o.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fmt.Errorf("app: %w", err)
		}
		if err := store.WriteFile(p, o.Content, 0o600); err != nil {
			return err
		}
		res.ToolOutputs = append(res.ToolOutputs, p)
		return nil
	})
	if err != nil {
		return ExportedSession{}, err
	}
	name := sess.Name
	if name == "" {
		name = sess.FileName
	}
	res.Session = sessionSummary(sess, name)
	return res, nil
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
