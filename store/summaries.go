package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/summary"
)

// Summaries (schema migrations/0020_summaries.sql): every summary made for
// an item, the one it shows, and the background queue. Which one shows is
// not decided here: the writer passes a ShowFunc (the app's
// summary.Choose and summary.Shown).

// What an item is queued for (SummaryRow.Queued, SummaryWrite.Queue).
const (
	QueueNone    = ""        // nothing to make
	QueueOffline = "offline" // make the offline summary (a session: of it and its segments)
	QueueModel   = "model"   // make the model's (after the offline one when missing)
	// Dequeue, as SummaryWrite.Queue, takes the item off the queue.
	Dequeue = "dequeue"
)

// SummaryVersion is one summary made for an item.
type SummaryVersion struct {
	Version   int // 1, 2, ... per item
	Title     string
	Text      string
	Label     string
	Source    string // offline, pi, human, model:<provider>/<model>
	InputHash string // the inputs it was made from
	MadeAt    time.Time
}

// SummaryKey names an item: its URI, the summary kind and its own id.
type SummaryKey struct {
	Item    string // rhizome: URI
	Kind    string // summary.Kind
	Subject string // session id, node id, tree id, loom node id, project path
}

// SessionSummaryKey is the key of session id's summary.
func SessionSummaryKey(id string) SummaryKey {
	return SummaryKey{Item: link.Session(id).String(), Kind: string(summary.KindSession), Subject: id}
}

// NodeSummaryKey is the key of the summary of the segment whose node is nodeID.
func NodeSummaryKey(nodeID string) SummaryKey {
	return SummaryKey{Item: link.Node(nodeID).String(), Kind: string(summary.KindSegment), Subject: nodeID}
}

// ProjectSummaryKey is the key of the summary of the project at path.
func ProjectSummaryKey(path string) SummaryKey {
	return SummaryKey{Item: link.Project(path).String(), Kind: string(summary.KindProject), Subject: path}
}

// SummaryRow is an item's summary state: the summary it shows, its current
// inputs and its place in the queue.
type SummaryRow struct {
	SummaryKey
	InputHash string // of the item's current inputs; "" unknown
	// The summary shown: Version is the generated version it shows (0 when
	// none), MadeFrom (InputHash) the inputs that one was made from.
	Shown SummaryVersion
	Human int // version of the person's edit in force; 0 none

	Queued   string    // QueueNone, QueueOffline or QueueModel
	QueuedAt time.Time // zero when not queued
	NextTry  time.Time // not before; zero: at once
	Forced   bool      // asked for on demand (SummaryWrite.Retry): made again even when fresh
	Attempts int       // model failures since its last success
	Error    string    // the last failure
	Basis    int       // a loom tree: its node count when its summary was last made
}

// Stale reports whether the summary shown was made from other inputs than
// the item's current ones (false while those are unknown).
func (r *SummaryRow) Stale() bool {
	return r.InputHash != "" && r.Shown.Source != "" && r.Shown.InputHash != r.InputHash
}

// ShowFunc decides what an item shows: from its versions (oldest first),
// the version of the person's edit in force (0 none) and its current input
// hash, the summary shown. Its Version is the generated version shown (0
// none), its InputHash what that was made from.
type ShowFunc func(versions []SummaryVersion, human int, inputHash string) SummaryVersion

// SummaryFailure is a failed attempt at an item's model summary.
type SummaryFailure struct {
	Error   string
	NextTry time.Time // when to try again
}

// SummaryWrite is one change to an item's summaries. Nil and zero fields
// change nothing.
type SummaryWrite struct {
	Key SummaryKey
	// InputHash, when set, is the hash of the item's current inputs.
	InputHash *string
	// Add is a new version (its Version is assigned). An older version of
	// the same source is dropped unless it is a person's edit. A model's
	// summary clears the item's error and attempts.
	Add *SummaryVersion
	// EditInForce, when set, makes the person's edit in force: EditAdded
	// (the version Add makes), 0 (none: back to the generated one) or a
	// version number.
	EditInForce *int
	// Queue is QueueOffline or QueueModel to queue the item (a model job
	// covers an offline one: queueing offline keeps a model job), Dequeue
	// to take it off, "" to leave it.
	Queue string
	// Failed records a failed attempt: attempts + 1, the error, the next try.
	Failed *SummaryFailure
	// Done, when set, is the QueuedAt of the job that made this write: the
	// item leaves the queue if it was not queued again since (else it is
	// due again at once, to be made from its newer inputs).
	Done *time.Time
	// Retry makes a queued item due at once, its failures forgotten, and
	// Forced (a person asked for it again).
	Retry bool
	// Basis, when set, is a loom tree's node count its summary was made at.
	Basis *int
}

// EditAdded, as SummaryWrite.EditInForce, names the version Add makes.
const EditAdded = -1

// WriteSummaries applies ws in one transaction, in order, show deciding
// what each item changed shows.
func (s *Store) WriteSummaries(ctx context.Context, ws []SummaryWrite, show ShowFunc, now time.Time) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to save summaries: %w", err)
	}
	defer tx.Rollback()
	for i := range ws {
		if err := writeSummary(ctx, tx, &ws[i], show, now); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to save summaries: %w", err)
	}
	return nil
}

// WriteSummaries applies ws inside the import's transaction (see
// Store.WriteSummaries).
func (t *Tx) WriteSummaries(ws []SummaryWrite, show ShowFunc, now time.Time) error {
	for i := range ws {
		if err := writeSummary(t.ctx, txQueryer{t}, &ws[i], show, now); err != nil {
			return err
		}
	}
	return nil
}

// queueRank orders queue values: a model job covers an offline one.
func queueRank(q string) int {
	switch q {
	case QueueModel:
		return 2
	case QueueOffline:
		return 1
	}
	return 0
}

func writeSummary(ctx context.Context, q queryer, w *SummaryWrite, show ShowFunc, now time.Time) error {
	k := w.Key
	if k.Item == "" || k.Kind == "" {
		return fmt.Errorf("store: unable to save the summary of %q: no item or kind", k.Item)
	}
	var exists int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM summaries WHERE item = ?`, k.Item).Scan(&exists)
	if err != nil {
		return fmt.Errorf("store: unable to look up the summary of %s: %w", k.Item, err)
	}
	if exists == 0 {
		return insertSummary(ctx, q, w, show, now)
	}
	row, err := summaryRow(ctx, q, k.Item)
	if err != nil {
		return err
	}
	if w.Add != nil {
		v := *w.Add
		var last int
		if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM summary_versions WHERE item = ?`, k.Item).Scan(&last); err != nil {
			return fmt.Errorf("store: unable to number the summary of %s: %w", k.Item, err)
		}
		v.Version = last + 1
		if v.Source != "human" {
			if _, err := q.ExecContext(ctx, `DELETE FROM summary_versions WHERE item = ? AND source = ? AND version <> ?`,
				k.Item, v.Source, row.Human); err != nil {
				return fmt.Errorf("store: unable to replace the summary of %s: %w", k.Item, err)
			}
		}
		if err := insertSummaryVersion(ctx, q, k.Item, &v); err != nil {
			return err
		}
		w.applyAdded(row, v.Version)
	}
	before := *row
	w.apply(row, now)
	if w.Add == nil && row.Human == before.Human && row.InputHash == before.InputHash {
		// What the item shows is made from its versions, the edit in
		// force and its inputs, none of which changed: only its queue
		// state is written (a project queued again by each file of an
		// import), without touching its full-text index.
		if *row == before {
			return nil
		}
		_, err = q.ExecContext(ctx, `UPDATE summaries SET queued = ?, queued_at = ?, next_try = ?, forced = ?, attempts = ?,
			error = ?, basis = ? WHERE item = ?`, row.Queued, isoTime(row.QueuedAt), isoTime(row.NextTry), boolInt(row.Forced),
			row.Attempts, row.Error, row.Basis, k.Item)
		if err != nil {
			return fmt.Errorf("store: unable to save the summary of %s: %w", k.Item, err)
		}
		return nil
	}
	versions, err := summaryVersions(ctx, q, k.Item)
	if err != nil {
		return err
	}
	sh := show(versions, row.Human, row.InputHash)
	_, err = q.ExecContext(ctx, `UPDATE summaries SET input_hash = ?, title = ?, text = ?, label = ?, source = ?,
		made_from = ?, made_at = ?, human = ?, queued = ?, queued_at = ?, next_try = ?, forced = ?, attempts = ?, error = ?,
		basis = ? WHERE item = ?`, row.InputHash, sh.Title, sh.Text, sh.Label, sh.Source, sh.InputHash, isoTime(sh.MadeAt),
		row.Human, row.Queued, isoTime(row.QueuedAt), isoTime(row.NextTry), boolInt(row.Forced), row.Attempts, row.Error,
		row.Basis, k.Item)
	if err != nil {
		return fmt.Errorf("store: unable to save the summary of %s: %w", k.Item, err)
	}
	return nil
}

// insertSummary is writeSummary for an item that has no summary row yet
// (an import's new sessions and segments: most of its writes): the row is
// what w makes of an empty one, written by one INSERT, and w.Add its first
// version. Two statements where an existing item takes seven.
func insertSummary(ctx context.Context, q queryer, w *SummaryWrite, show ShowFunc, now time.Time) error {
	k := w.Key
	row := &SummaryRow{SummaryKey: k}
	var versions []SummaryVersion
	if w.Add != nil {
		v := *w.Add
		v.Version = 1
		versions = []SummaryVersion{v}
		w.applyAdded(row, v.Version)
	}
	w.apply(row, now)
	sh := show(versions, row.Human, row.InputHash)
	if _, err := q.ExecContext(ctx, `INSERT INTO summaries (item, kind, subject, input_hash, title, text, label, source,
		made_from, made_at, human, queued, queued_at, next_try, forced, attempts, error, basis)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.Item, k.Kind, k.Subject, row.InputHash, sh.Title, sh.Text, sh.Label, sh.Source, sh.InputHash, isoTime(sh.MadeAt),
		row.Human, row.Queued, isoTime(row.QueuedAt), isoTime(row.NextTry), boolInt(row.Forced), row.Attempts, row.Error,
		row.Basis); err != nil {
		return fmt.Errorf("store: unable to save the summary of %s: %w", k.Item, err)
	}
	if len(versions) == 1 {
		return insertSummaryVersion(ctx, q, k.Item, &versions[0])
	}
	return nil
}

func insertSummaryVersion(ctx context.Context, q queryer, item string, v *SummaryVersion) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO summary_versions (item, version, title, text, label, source, input_hash, made_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, item, v.Version, v.Title, v.Text, v.Label, v.Source, v.InputHash, isoTime(v.MadeAt)); err != nil {
		return fmt.Errorf("store: unable to save the summary of %s: %w", item, err)
	}
	return nil
}

// applyAdded is what w's new version (numbered version) does to row.
func (w *SummaryWrite) applyAdded(row *SummaryRow, version int) {
	if strings.HasPrefix(w.Add.Source, "model:") {
		row.Attempts, row.Error = 0, ""
	}
	if w.EditInForce != nil && *w.EditInForce == EditAdded {
		row.Human = version
	}
}

// apply is what the rest of w (all but its new version) does to row.
func (w *SummaryWrite) apply(row *SummaryRow, now time.Time) {
	if w.InputHash != nil {
		row.InputHash = *w.InputHash
	}
	if w.EditInForce != nil && *w.EditInForce != EditAdded {
		row.Human = *w.EditInForce
	}
	switch {
	case w.Queue == Dequeue:
		row.Queued, row.QueuedAt, row.NextTry, row.Forced = QueueNone, time.Time{}, time.Time{}, false
	case w.Queue != "":
		// Queued again: stamped anew, so that a job under way does not
		// take it off (see Done); a lease or back-off in force stays.
		if row.Queued == QueueNone {
			row.NextTry = time.Time{}
		}
		if queueRank(w.Queue) > queueRank(row.Queued) {
			row.Queued = w.Queue
		}
		row.QueuedAt = now
	}
	if w.Retry && row.Queued != QueueNone {
		row.Attempts, row.NextTry, row.Forced = 0, time.Time{}, true
	}
	if w.Failed != nil {
		row.Attempts++
		row.Error, row.NextTry = w.Failed.Error, w.Failed.NextTry
	}
	if w.Done != nil && row.Queued != QueueNone {
		if row.QueuedAt.Equal(*w.Done) {
			row.Queued, row.QueuedAt, row.NextTry, row.Forced = QueueNone, time.Time{}, time.Time{}, false
		} else if w.Failed == nil {
			row.NextTry = time.Time{}
		}
	}
	if w.Basis != nil {
		row.Basis = *w.Basis
	}
}

const summaryColumns = `item, kind, subject, input_hash, title, text, label, source, made_from, made_at, human,
	queued, queued_at, next_try, forced, attempts, error, basis`

func scanSummaryRow(r scanner) (*SummaryRow, error) {
	var row SummaryRow
	var madeAt, queuedAt, nextTry string
	var forced int
	if err := r.Scan(&row.Item, &row.Kind, &row.Subject, &row.InputHash, &row.Shown.Title, &row.Shown.Text,
		&row.Shown.Label, &row.Shown.Source, &row.Shown.InputHash, &madeAt, &row.Human, &row.Queued, &queuedAt,
		&nextTry, &forced, &row.Attempts, &row.Error, &row.Basis); err != nil {
		return nil, err
	}
	row.Forced = forced != 0
	var err error
	if row.Shown.MadeAt, err = parseTime(madeAt); err != nil {
		return nil, err
	}
	if row.QueuedAt, err = parseTime(queuedAt); err != nil {
		return nil, err
	}
	if row.NextTry, err = parseTime(nextTry); err != nil {
		return nil, err
	}
	return &row, nil
}

func summaryRow(ctx context.Context, q queryer, item string) (*SummaryRow, error) {
	row, err := scanSummaryRow(q.QueryRowContext(ctx, `SELECT `+summaryColumns+` FROM summaries WHERE item = ?`, item))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find the summary of %s: %w", item, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch the summary of %s: %w", item, err)
	}
	return row, nil
}

func summaryVersions(ctx context.Context, q queryer, item string) ([]SummaryVersion, error) {
	rows, err := q.QueryContext(ctx, `SELECT version, title, text, label, source, input_hash, made_at
		FROM summary_versions WHERE item = ? ORDER BY version`, item)
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch the summaries of %s: %w", item, err)
	}
	defer rows.Close()
	var out []SummaryVersion
	for rows.Next() {
		var v SummaryVersion
		var madeAt string
		if err := rows.Scan(&v.Version, &v.Title, &v.Text, &v.Label, &v.Source, &v.InputHash, &madeAt); err != nil {
			return nil, fmt.Errorf("store: unable to read a summary of %s: %w", item, err)
		}
		if v.MadeAt, err = parseTime(madeAt); err != nil {
			return nil, fmt.Errorf("store: unable to read a summary of %s: %w", item, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to fetch the summaries of %s: %w", item, err)
	}
	return out, nil
}

// Summary returns an item's summary state and every version made for it,
// oldest first. The error wraps ErrNotFound when the item has none.
func (s *Store) Summary(ctx context.Context, item string) (*SummaryRow, []SummaryVersion, error) {
	row, err := summaryRow(ctx, s.db, item)
	if err != nil {
		return nil, nil, err
	}
	vs, err := summaryVersions(ctx, s.db, item)
	if err != nil {
		return nil, nil, err
	}
	return row, vs, nil
}

// Summary returns an item's summary state inside the import's transaction
// (see Store.Summary); nil and no error when it has none.
func (t *Tx) Summary(item string) (*SummaryRow, error) {
	row, err := summaryRow(t.ctx, t.tx, item)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return row, err
}

// SummariesOf returns the summary states of the items of kind whose
// subjects are given (all of that kind when subjects is nil), by subject.
func (s *Store) SummariesOf(ctx context.Context, kind string, subjects []string) (map[string]*SummaryRow, error) {
	query := `SELECT ` + summaryColumns + ` FROM summaries WHERE kind = ?`
	args := []any{kind}
	if subjects != nil {
		query += ` AND subject IN (SELECT value FROM json_each(?))`
		args = append(args, jsonStrings(subjects))
	}
	rows, err := (cachedDB{s}).QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the %s summaries: %w", kind, err)
	}
	defer rows.Close()
	out := map[string]*SummaryRow{}
	for rows.Next() {
		r, err := scanSummaryRow(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a %s summary: %w", kind, err)
		}
		out[r.Subject] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the %s summaries: %w", kind, err)
	}
	return out, nil
}

// SummaryHeadings returns, for each of subjects (of kind) that has a
// summary, the title it shows and the first maxRunes characters of its
// text: what a list of search hits is labelled with, without reading the
// whole rows (SummariesOf).
func (s *Store) SummaryHeadings(ctx context.Context, kind string, subjects []string, maxRunes int) (map[string]SummaryHeading, error) {
	out := map[string]SummaryHeading{}
	if len(subjects) == 0 {
		return out, nil
	}
	rows, err := (cachedDB{s}).QueryContext(ctx, `SELECT subject, title, substr(text, 1, ?) FROM summaries
		WHERE kind = ? AND subject IN (SELECT DISTINCT value FROM json_each(?))`, maxRunes, kind, jsonStrings(subjects))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the %s summaries' headings: %w", kind, err)
	}
	defer rows.Close()
	for rows.Next() {
		var subject string
		var h SummaryHeading
		if err := rows.Scan(&subject, &h.Title, &h.Text); err != nil {
			return nil, fmt.Errorf("store: unable to read a %s summary's heading: %w", kind, err)
		}
		out[subject] = h
	}
	return out, rows.Err()
}

// SummaryHeading is a summary's title and the start of its text.
type SummaryHeading struct {
	Title string
	Text  string
}

// RenewSummaryLease extends the lease ClaimSummaries took on item to now +
// lease, while it is still held (a finished job's item is left alone).
func (s *Store) RenewSummaryLease(ctx context.Context, item string, now time.Time, lease time.Duration) error {
	if _, err := s.execWrite(ctx, `UPDATE summaries SET next_try = ? WHERE item = ? AND queued <> '' AND next_try > ?`,
		isoTime(now.Add(lease)), item, isoTime(now)); err != nil {
		return fmt.Errorf("store: unable to renew the lease on %s: %w", item, err)
	}
	return nil
}

// ReleaseSummaryLease takes the lease ClaimSummaries took on item off
// while the item is still queued: a job stopped before its end (Cancel
// stops the running jobs and keeps a session's derivation queued) is due
// again at once instead of when its lease would have ended.
func (s *Store) ReleaseSummaryLease(ctx context.Context, item string, now time.Time) error {
	if _, err := s.execWrite(ctx, `UPDATE summaries SET next_try = '' WHERE item = ? AND queued <> '' AND next_try > ?`,
		item, isoTime(now)); err != nil {
		return fmt.Errorf("store: unable to release the lease on %s: %w", item, err)
	}
	return nil
}

// ClaimSummaries takes up to limit queued items that are due (NextTry at
// or before now), offline jobs first, then in the order they were queued,
// and leases them: their NextTry becomes now + lease, so that no other
// worker (in this process or another) takes them meanwhile, and a worker
// that dies leaves them to the next once the lease ends. Only the queue
// values in want are taken (QueueOffline, QueueModel).
func (s *Store) ClaimSummaries(ctx context.Context, limit int, want []string, now time.Time, lease time.Duration) ([]SummaryRow, error) {
	return s.ClaimSummariesOf(ctx, limit, want, nil, now, lease)
}

// ClaimSummariesOf is ClaimSummaries among items only (nil: every item):
// a process that derives what it imported takes its own items, not those
// another import is queueing meanwhile.
func (s *Store) ClaimSummariesOf(ctx context.Context, limit int, want, items []string, now time.Time, lease time.Duration) ([]SummaryRow, error) {
	if limit <= 0 || len(want) == 0 || items != nil && len(items) == 0 {
		return nil, nil
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: unable to take summary jobs: %w", err)
	}
	defer tx.Rollback()
	only := ""
	args := []any{jsonStrings(want), isoTime(now)}
	if items != nil {
		only = ` AND item IN (SELECT value FROM json_each(?))`
		args = append(args, jsonStrings(items))
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+summaryColumns+` FROM summaries
		WHERE queued IN (SELECT value FROM json_each(?)) AND next_try <= ?`+only+`
		ORDER BY queued = 'model', queued_at, pk LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to take summary jobs: %w", err)
	}
	var out []SummaryRow
	for rows.Next() {
		r, err := scanSummaryRow(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: unable to read a summary job: %w", err)
		}
		out = append(out, *r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to take summary jobs: %w", err)
	}
	until := isoTime(now.Add(lease))
	for i := range out {
		if _, err := tx.ExecContext(ctx, `UPDATE summaries SET next_try = ? WHERE item = ?`, until, out[i].Item); err != nil {
			return nil, fmt.Errorf("store: unable to take the summary job of %s: %w", out[i].Item, err)
		}
		out[i].NextTry = now.Add(lease)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: unable to take summary jobs: %w", err)
	}
	return out, nil
}

// DequeueSummaries takes every item off the queue (Cancel) and returns how
// many were on it.
func (s *Store) DequeueSummaries(ctx context.Context) (int, error) {
	// The sessions still being analysed (migration 0140) keep an offline
	// job: their derivation is part of their import, not a summary a
	// person may decline (a model job becomes an offline one).
	res, err := s.execWrite(ctx, `UPDATE summaries SET
		queued = CASE WHEN pending THEN 'offline' ELSE '' END, queued_at = CASE WHEN pending THEN queued_at ELSE '' END,
		next_try = '', forced = 0
	FROM (SELECT pk AS spk, kind = 'session' AND subject IN (SELECT id FROM sessions WHERE derive_pending = 1) AS pending
		FROM summaries WHERE queued <> '') AS q
	WHERE summaries.pk = q.spk AND NOT (q.pending AND summaries.queued = 'offline')`)
	if err != nil {
		return 0, fmt.Errorf("store: unable to empty the summary queue: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// SummaryQueueStats counts the queue.
type SummaryQueueStats struct {
	Offline  int       // items queued for their offline summary
	Model    int       // items queued for a model's summary
	Retrying int       // of those, waiting for a retry after a failure
	Failed   int       // items whose last model attempt failed (queued or not)
	NextTry  time.Time // the earliest time a queued item is due; zero when none
}

// SummaryQueue counts the queue at time now.
func (s *Store) SummaryQueue(ctx context.Context, now time.Time) (SummaryQueueStats, error) {
	return s.SummaryQueueOf(ctx, nil, now)
}

// SummaryQueueOf counts the queue among items only (nil: every item).
func (s *Store) SummaryQueueOf(ctx context.Context, items []string, now time.Time) (SummaryQueueStats, error) {
	var st SummaryQueueStats
	var next string
	where, args := "", []any{isoTime(now)}
	if items != nil {
		where = ` WHERE item IN (SELECT value FROM json_each(?))`
		args = append(args, jsonStrings(items))
	}
	err := s.db.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE queued = 'offline'),
		count(*) FILTER (WHERE queued = 'model'),
		count(*) FILTER (WHERE queued <> '' AND attempts > 0 AND next_try > ?),
		count(*) FILTER (WHERE error <> ''),
		coalesce(min(next_try) FILTER (WHERE queued <> ''), '')
		FROM summaries`+where, args...).Scan(&st.Offline, &st.Model, &st.Retrying, &st.Failed, &next)
	if err != nil {
		return st, fmt.Errorf("store: unable to count the summary queue: %w", err)
	}
	if st.NextTry, err = parseTime(next); err != nil {
		return st, fmt.Errorf("store: unable to count the summary queue: %w", err)
	}
	return st, nil
}

// SubjectsWithoutSummary lists, of the library's sessions (kind "session"),
// loom trees ("loomTree") and projects ("project"), the ids (paths) of
// those with no summary row yet: what a library made before summaries, or
// by a command that does not summarise, still lacks. Loom trees archived
// are left out.
func (s *Store) SubjectsWithoutSummary(ctx context.Context, kind string) ([]string, error) {
	var query string
	switch kind {
	case "session":
		query = `SELECT id FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM summaries m WHERE m.kind = 'session' AND m.subject = s.id) ORDER BY pk`
	case "loomTree":
		query = `SELECT id FROM loom_trees t WHERE t.archived_at = '' AND NOT EXISTS (SELECT 1 FROM summaries m WHERE m.kind = 'loomTree' AND m.subject = t.id) ORDER BY created_at`
	case "project":
		query = `SELECT DISTINCT cwd FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM summaries m WHERE m.kind = 'project' AND m.subject = s.cwd) ORDER BY cwd`
	default:
		return nil, fmt.Errorf("store: unable to list items without summaries: unknown kind %q", kind)
	}
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the %s items without summaries: %w", kind, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: unable to list the %s items without summaries: %w", kind, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// QueueModelSummaries queues for a model's summary (QueueModel) the items
// of the given kinds that show no fresh model summary (nor a fresh one pi
// wrote: a model's already), have no person's edit in force, are not
// queued already and failed fewer than maxAttempts times; it returns how
// many it queued.
func (s *Store) QueueModelSummaries(ctx context.Context, kinds []string, maxAttempts int, now time.Time) (int, error) {
	res, err := s.execWrite(ctx, `UPDATE summaries SET queued = 'model', queued_at = ?, next_try = ''
		WHERE queued = '' AND human = 0 AND attempts < ? AND kind IN (SELECT value FROM json_each(?))
		AND NOT (source LIKE 'model:%' AND made_from = input_hash) AND NOT (source = 'pi' AND made_from = input_hash)`, isoTime(now), maxAttempts, jsonStrings(kinds))
	if err != nil {
		return 0, fmt.Errorf("store: unable to queue model summaries: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// SummaryItemsQueued lists the items on the queue (queued at all), oldest
// first, at most limit of them (0: all).
func (s *Store) SummaryItemsQueued(ctx context.Context, limit int) ([]string, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT item FROM summaries WHERE queued <> '' ORDER BY queued_at, pk LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the summary queue: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var it string
		if err := rows.Scan(&it); err != nil {
			return nil, fmt.Errorf("store: unable to list the summary queue: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// SearchSummaries finds items by the summary they show: an FTS5 query over
// title, text and label (MatchQuery makes one of words), best first, at
// most limit.
func (s *Store) SearchSummaries(ctx context.Context, match string, limit int) ([]SummaryRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+prefixColumns("m.", summaryColumns)+` FROM summaries_fts f
		JOIN summaries m ON m.pk = f.rowid WHERE summaries_fts MATCH ? ORDER BY f.rank LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search summaries: %w", err)
	}
	defer rows.Close()
	var out []SummaryRow
	for rows.Next() {
		r, err := scanSummaryRow(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a summary found: %w", err)
		}
		out = append(out, *r)
	}
	return out, rows.Err()
}

// prefixColumns qualifies each column of a comma-separated list with p.
func prefixColumns(p, cols string) string {
	fields := strings.Split(cols, ",")
	for i, f := range fields {
		fields[i] = p + strings.TrimSpace(f)
	}
	return strings.Join(fields, ", ")
}

// jsonStrings encodes a list of strings as a JSON array for json_each.
func jsonStrings(ss []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(s)
		b.Write(q)
	}
	b.WriteByte(']')
	return b.String()
}

// QueueStaleSummaries queues (as want: QueueOffline or QueueModel) the
// items not queued whose shown summary was made from other inputs than
// their current ones, leaving out those showing a person's edit; it
// returns how many it queued.
func (s *Store) QueueStaleSummaries(ctx context.Context, want string, now time.Time) (int, error) {
	res, err := s.execWrite(ctx, `UPDATE summaries SET queued = ?, queued_at = ?, next_try = ''
		WHERE queued = '' AND human = 0 AND input_hash <> '' AND made_from <> input_hash`, want, isoTime(now))
	if err != nil {
		return 0, fmt.Errorf("store: unable to queue stale summaries: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
