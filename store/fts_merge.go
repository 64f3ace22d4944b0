package store

import (
	"context"
	"fmt"
)

// Merging the full-text indexes. FTS5 keeps each index as segments: every
// statement that writes one adds a small segment, and FTS5 merges them as
// it goes (automerge), a little work for each write. A level holding
// crisismerge (16) segments is merged at once, in whichever statement adds
// the sixteenth: after an import of 155 MB, whose index chunks leave large
// segments queued for merging, the fifth append of 1 KB then paid for
// merging them (150-170 ms of a 5-15 ms append; issue 11 §2). Merging in
// the background after imports, a bounded step at a time, leaves the
// appends only their own small segments.

// fullTextIndexes are the library's FTS5 tables that imports write.
var fullTextIndexes = []string{"entries_fts", "nodes_fts", "summaries_fts", "search_items_fts"}

// pageBytes is the library's page size (SQLite's default), for the bytes a
// merge step writes to the log.
const pageBytes = 4096

// MergeFullTextIndexes does one step of merging on each full-text index
// that has segments to merge: FTS5's 'merge' command with pages, about how
// many pages (4 KB) of merged segments each step may write, each index in
// a transaction of its own so that other writers take their turn between
// them. It reports whether any index did some work: call it again until it
// reports none (FTS5 merges a level once it holds usermerge, 4, segments;
// then no level does). See SQLite FTS5, "The 'merge' Command". The error
// says which index could not be merged; what earlier steps merged stays.
func (s *Store) MergeFullTextIndexes(ctx context.Context, pages int) (worked bool, err error) {
	for _, table := range fullTextIndexes {
		w, err := s.mergeFullTextIndex(ctx, table, pages)
		if err != nil {
			return worked, err
		}
		worked = worked || w
	}
	return worked, nil
}

// mergeFullTextIndex does one merge step of at most pages on table. A step
// that changed fewer than two rows did no work (the FTS5 documentation's
// test, on sqlite3_total_changes).
func (s *Store) mergeFullTextIndex(ctx context.Context, table string, pages int) (bool, error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var before, after int64
	if err := tx.queryRow(`SELECT total_changes()`).Scan(&before); err != nil {
		return false, fmt.Errorf("store: unable to merge the full-text index %s: %w", table, err)
	}
	if _, err := tx.exec(`INSERT INTO `+table+` (`+table+`, rank) VALUES ('merge', ?)`, pages); err != nil {
		return false, fmt.Errorf("store: unable to merge the full-text index %s: %w", table, err)
	}
	if err := tx.queryRow(`SELECT total_changes()`).Scan(&after); err != nil {
		return false, fmt.Errorf("store: unable to merge the full-text index %s: %w", table, err)
	}
	worked := after-before >= 2
	if !worked {
		return false, nil // Rollback: nothing to keep
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: unable to merge the full-text index %s: %w", table, err)
	}
	// The log grows by what the step wrote: let the checkpointer know.
	s.committed(int64(pages) * pageBytes)
	return true, nil
}
