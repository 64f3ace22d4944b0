// Package store keeps a Rhizome library in one SQLite file: sessions and
// their entries as imported, segments, knowledge-graph nodes with all their
// versions, edges, full-text indexes over nodes and entries, loom trees,
// settings and UI state. Beside the file it keeps what does not belong in
// it: loom images and audio (LoomBlobs) and API keys (Secrets), every such
// file written atomically (WriteFile). It stores; it decides no business
// rules (those are backend/'s and app/'s).
//
// The schema is store/migrations/*.sql (0001_library.sql reads as the whole
// schema); one file here per entity, with the SQL in the method that uses it.
// Every error says what failed: "store: unable to ...: cause".
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrNotFound is returned (wrapped) when a session or node asked for by id is
// not in the library.
var ErrNotFound = errors.New("store: not found")

// Store is an open library file. It is safe for concurrent use: reads run in
// parallel (WAL) and never wait for writers; writers, in this process and
// in others, take turns through the write gate (see writeGate) and wait up
// to busyTimeout for the write lock.
type Store struct {
	db   *sql.DB
	path string
	gate *writeGate
	// presence is this Store's hold on <library>.open (presence.go): nil
	// when the file system has no locks; alone, that no other process had
	// the library open when this Store opened it.
	presence *presence
	alone    bool

	stmts stmtCache // statements run often, prepared once per connection
	docs  docCache  // what searches read of entries and nodes, while unchanged

	// Checkpoints of large transactions run beside the next one (see
	// checkpointer): commits add their size to logged and wake the
	// checkpointer past checkpointBytes; they add it to sinceReset too, and
	// past walResetBytes the next Begin truncates the log (truncateLog).
	mu         sync.Mutex
	logged     int64
	sinceReset int64
	ckpt       sync.Mutex // one checkpoint at a time
	wake       chan struct{}
	stop       chan struct{}
	stopped    chan struct{}
}

// checkpointBytes is how much a Tx writes to the log (roughly: entry bytes)
// before the checkpointer copies the log into the database.
const checkpointBytes = 16 << 20

// walResetBytes is how much the transactions (Tx) write to the log
// (roughly: entry bytes) before Begin truncates it. The log then stays
// bounded, at about twice this size (its pages hold more than the bytes
// counted, and the transactions committed meanwhile add theirs), instead of
// growing to the size of a whole import.
const walResetBytes = 32 << 20

// Open opens the library at path, creating the file (mode 0600: SQLite gives
// its -wal and -shm files the same) and its missing parent directories (0700)
// when missing, and applies the migrations it lacks. Every connection runs
// with journal_mode WAL, foreign_keys ON, busy_timeout busyTimeout and
// synchronous NORMAL, with a 16 MB page cache; write transactions begin
// IMMEDIATE, through the write gate. Opening a library whose migrations are
// all applied only reads it: it never waits for another process's import.
// The settings side files of an older Rhizome are moved into the library on
// the first open (see migrateSideFiles).
// See Begin for how the log is checkpointed.
func Open(path string) (*Store, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open under ctx: when ctx is done while the migrations wait
// for the write lock (another process is writing a library that lacks one),
// it stops waiting and returns the error.
func OpenContext(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: unable to open the library: empty path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: unable to create the library folder %s: %w", dir, err)
		}
	}
	// A new library is the user's alone; SQLite gives its -wal and -shm
	// files the library file's permissions.
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !errors.Is(err, fs.ErrExist) { // another process made it first: fine
			return nil, fmt.Errorf("store: unable to create the library %s: %w", path, err)
		}
		if err == nil {
			f.Close()
		}
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-16000)") // 16 MB per connection
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", autoCheckpointPages))
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+pathForDSN(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: unable to open the library %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	// Each connection keeps its own page cache (up to 16 MB): an import's
	// writer, the checkpointer beside it and the reader's look-ups opened a
	// third and fourth that stayed, warm, in the pool. With two kept idle,
	// the peak RSS of importing 300 MB of Claude Code and Codex logs
	// (build/bench) was 164-180 MB in 7 runs, against 181-241 MB with four.
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{db: db, path: path, gate: newWriteGate(path), stmts: stmtCache{db: db}, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.migrateSideFiles(ctx); err != nil {
		db.Close()
		return nil, err
	}
	var alone bool
	if s.presence, alone = takePresence(path); alone {
		s.alone = true
		if err := s.releaseOrphanedLeases(ctx, time.Now().UTC()); err != nil {
			s.presence.release()
			db.Close()
			return nil, err
		}
	}
	go s.checkpointer()
	return s, nil
}

// autoCheckpointPages is SQLite's automatic checkpoint threshold (pages of
// log) for the connections other than a Tx's: 4096 pages, 16 MB.
const autoCheckpointPages = 4096

// checkpointer copies the write-ahead log into the database when a Tx has
// logged checkpointBytes since the last time. A Tx turns SQLite's automatic
// checkpoint off on its connection, so that the copy (and its two fsyncs)
// runs here, on another connection, while the next transaction goes on,
// instead of inside a commit.
func (s *Store) checkpointer() {
	defer close(s.stopped)
	for {
		select {
		case <-s.stop:
			return
		case <-s.wake:
			s.ckpt.Lock()
			_, _ = s.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
			s.ckpt.Unlock()
		}
	}
}

// committed records n bytes committed by a Tx and wakes the checkpointer past
// checkpointBytes.
func (s *Store) committed(n int64) {
	s.mu.Lock()
	s.logged += n
	s.sinceReset += n
	full := s.logged >= checkpointBytes
	if full {
		s.logged = 0
	}
	s.mu.Unlock()
	if full {
		select {
		case s.wake <- struct{}{}:
		default: // already awake
		}
	}
}

// checkpointNow copies the write-ahead log into the library and truncates
// it, without waiting: while another process writes, or reads an older
// snapshot, it copies what it can and leaves the rest for later.
func (s *Store) checkpointNow(ctx context.Context) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	s.truncateLog(ctx, conn)
}

// truncateLog, on conn (outside a transaction), copies the write-ahead log
// into the library and truncates it to zero bytes, without waiting for other
// processes: while one writes, or reads an older snapshot, it copies what it
// can and the log is truncated on a later try. It reports whether the log
// was truncated.
func (s *Store) truncateLog(ctx context.Context, conn *sql.Conn) bool {
	s.ckpt.Lock()
	defer s.ckpt.Unlock()
	return s.truncateLogLocked(ctx, conn)
}

// truncateLogLocked is truncateLog with s.ckpt held.
func (s *Store) truncateLogLocked(ctx context.Context, conn *sql.Conn) bool {
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return false
	}
	var busy, frames, copied int
	err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &copied)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds())); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // do not pool a connection that would not wait
	}
	return err == nil && busy == 0
}

// truncateLogIfDue truncates the write-ahead log on conn (see truncateLog)
// once the Tx have written walResetBytes since it was last truncated.
func (s *Store) truncateLogIfDue(ctx context.Context, conn *sql.Conn) {
	s.mu.Lock()
	due := s.sinceReset >= walResetBytes
	s.mu.Unlock()
	if !due {
		return
	}
	// While the checkpointer copies the log, a later Begin truncates it:
	// waiting for it here held the import's writer up (0.45 s of a 16 s
	// import, block profile), and the log it is copying is what this
	// truncation would copy.
	if !s.ckpt.TryLock() {
		return
	}
	defer s.ckpt.Unlock()
	if s.truncateLogLocked(ctx, conn) {
		s.mu.Lock()
		s.sinceReset = 0
		s.mu.Unlock()
	}
}

// pathForDSN escapes the characters that would end or confuse the file name
// in a "file:" URI.
func pathForDSN(path string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(path)
}

// Close checkpoints the write-ahead log, as far as it can without waiting
// for another process's writer or readers, and closes the library.
func (s *Store) Close() error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.stopped
	s.docs.close()
	s.checkpointNow(context.Background())
	err := s.db.Close()
	s.presence.release()
	if err != nil {
		return fmt.Errorf("store: unable to close the library %s: %w", s.path, err)
	}
	return nil
}

// Path is the library file.
func (s *Store) Path() string { return s.path }

// migration is one embedded migrations/NNNN_name.sql file.
type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("store: unable to list migrations: %w", err)
	}
	var ms []migration
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: unable to read migration %s: name is not NNNN_name.sql", f)
		}
		b, err := migrations.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read migration %s: %w", f, err)
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies, in order and each in its own transaction, the migrations
// not yet recorded in schema_migrations. It reads first: the write lock is
// taken only when a migration is missing, so opening an up-to-date library
// never waits for (or fails because of) another process's import.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	var missing []migration
	for _, m := range ms {
		if !applied[m.version] {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := s.execWrite(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return fmt.Errorf("store: unable to create schema_migrations in %s: %w", s.path, err)
	}
	for _, m := range missing {
		if err := s.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// appliedMigrations reads the versions recorded in schema_migrations; none
// when the table is not there yet (a new library).
func (s *Store) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	applied := map[int]bool{}
	var tables int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).
		Scan(&tables); err != nil {
		return nil, fmt.Errorf("store: unable to read the schema of %s: %w", s.path, err)
	}
	if tables == 0 {
		return applied, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read schema_migrations in %s: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("store: unable to read schema_migrations in %s: %w", s.path, err)
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read schema_migrations in %s: %w", s.path, err)
	}
	return applied, nil
}

// apply applies migration m in a transaction of its own, unless another
// process applied it first.
func (s *Store) apply(ctx context.Context, m migration) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin migration %04d_%s: %w", m.version, m.name, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return fmt.Errorf("store: unable to read schema_migrations: %w", err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("store: unable to apply migration %04d_%s: %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, isoTime(time.Now())); err != nil {
		return fmt.Errorf("store: unable to record migration %04d_%s: %w", m.version, m.name, err)
	}
	// user_version is the newest migration applied, whatever the order
	// (a migration missing below newer ones is applied late).
	var newest int
	if err := tx.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("store: unable to read schema_migrations: %w", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, newest)); err != nil {
		return fmt.Errorf("store: unable to set user_version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit migration %04d_%s: %w", m.version, m.name, err)
	}
	return nil
}

// beginWrite begins a write transaction (BEGIN IMMEDIATE) on a connection
// of the pool, in turn with the library's other writers (writeGate).
func (s *Store) beginWrite(ctx context.Context) (*sql.Tx, error) {
	leave, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	return s.db.BeginTx(ctx, nil)
}

// execWrite runs one writing statement in a transaction of its own, in turn
// with the library's other writers (writeGate).
func (s *Store) execWrite(ctx context.Context, query string, args ...any) (sql.Result, error) {
	leave, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	return s.db.ExecContext(ctx, query, args...)
}

// queryer is what reads need: the library or an import transaction.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// isoTimeLayout is how the library writes times: UTC, milliseconds, "Z".
const isoTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// isoTime formats t for the library; "" for the zero time.
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(isoTimeLayout)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
