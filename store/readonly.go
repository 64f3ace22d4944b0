package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
)

// ErrReadOnly is returned (wrapped) by OpenReadOnly for a library that needs
// a migration it cannot apply.
var ErrReadOnly = errors.New("store: the library is open read-only")

// OpenReadOnly opens the library at path for reading only (`rhizome mcp
// --read-only`): SQLite opens the file read-only and every connection runs
// with query_only, so no statement can change it; nothing is created, no
// migration is applied and no log is checkpointed. The file must exist
// (ErrNotExist wrapped otherwise) and hold every migration this Rhizome
// knows (ErrReadOnly wrapped otherwise: open it once for writing). Every
// writing method fails.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: unable to open the library: empty path")
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("store: unable to open the library %s read-only: %w", path, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("store: unable to open the library %s read-only: %w", path, err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "cache_size(-16000)")
	q.Add("_pragma", "temp_store(MEMORY)")
	db, err := sql.Open("sqlite", "file:"+pathForDSN(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: unable to open the library %s read-only: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	s := &Store{db: db, path: path, gate: newWriteGate(path), stmts: stmtCache{db: db}, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	ms, err := loadMigrations()
	if err != nil {
		db.Close()
		return nil, err
	}
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	for _, m := range ms {
		if !applied[m.version] {
			db.Close()
			return nil, fmt.Errorf("store: unable to open the library %s read-only: it lacks migration %04d_%s; open it once without --read-only to update it: %w", path, m.version, m.name, ErrReadOnly)
		}
	}
	go s.checkpointer()
	return s, nil
}
