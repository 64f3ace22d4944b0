package ingest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"rhizome/store"
)

// Batches: the writer writes many files in one transaction, each file
// between a savepoint and its release (or its rollback when it fails), so
// that a failing file still leaves the library as it was for that file
// while its neighbours import; one commit (and one write of the pages every
// file touches: index and table roots, the session list) serves the whole
// batch instead of each small file. A batch is bounded: it is committed
// once it holds batchBytes of files or has been open for batchTime (other
// writers, and the write-ahead log's checkpoints, get their turn), when
// the reader waits for a file of the batch to be committed (the same
// session again: see prepareJob), and at the end of the import, cancelled
// or not.

// batchBytes is how many bytes of files (their sizes) a batch holds before
// it is committed; a larger file is a batch of its own. 4 MB keeps the
// commits of thousands of small files rare (a hundred files to a batch)
// and the peak RSS of importing 300 MB of them where it was (16 MB
// batches: 190-240 MB against 165-190 MB, build/bench).
const batchBytes = 4 << 20

// batchTime is how long a batch stays open at most (checked between files).
const batchTime = time.Second

// writeBatch is the writer's open transaction and the files written into it.
type writeBatch struct {
	st *store.Store
	// wrote is told, after each commit, how many of its files' sessions
	// were imported or appended to (progress.wrote); nil: nobody listens.
	wrote func(n int)
	tx    *store.Tx
	began time.Time
	bytes int64
	jobs  []*job // written into tx (or dropped from it): done once it ends
	files []int  // the reports (rep.Files) of the files kept in tx
	// awaited is the job the reader waits for and the writer has not
	// written yet: the batch is committed once it is (see await).
	awaited *job
}

// open returns the batch's transaction, beginning one when none is open; ctx
// bounds the wait for the write lock only (store.BeginBatch).
func (b *writeBatch) open(ctx context.Context) (*store.Tx, error) {
	if b.tx != nil {
		return b.tx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := b.st.BeginBatch(ctx)
	if err != nil {
		return nil, err
	}
	b.tx, b.began, b.bytes = tx, time.Now(), 0
	return tx, nil
}

// expiry is a channel that is ready once the open batch has been open for
// batchTime; nil (never ready) when no batch is open.
func (b *writeBatch) expiry() <-chan time.Time {
	if b.tx == nil {
		return nil
	}
	return time.After(batchTime - time.Since(b.began))
}

// add records job j, written into the batch (its report rep.Files[i] kept
// when kept is true), and commits the batch when it is full or when the
// reader waits for j.
func (b *writeBatch) add(j *job, rep *Report, i int, kept bool) {
	b.jobs = append(b.jobs, j)
	if kept {
		b.files = append(b.files, i)
	}
	b.bytes += j.src.size
	if j == b.awaited || b.tx != nil && (b.bytes >= batchBytes || time.Since(b.began) >= batchTime) {
		b.commit(rep)
	}
}

// await is the reader's word that it waits for job p to be committed (the
// same session again: see prepareJob). A batch holding p is committed now;
// when p has not reached the writer yet (it is still in the jobs channel,
// sent before the reader asked), the batch is committed right after p is
// written, not when batchTime runs out.
func (b *writeBatch) await(p *job, rep *Report) {
	select {
	case <-p.done:
		return // committed already
	default:
	}
	if slices.Contains(b.jobs, p) {
		b.commit(rep)
		return
	}
	b.awaited = p
}

// commit commits the batch, if one is open. When the commit fails, nothing
// of the batch was written: its files' reports say so.
func (b *writeBatch) commit(rep *Report) {
	if b.tx != nil {
		if err := b.tx.Commit(); err != nil {
			b.fail(rep, err)
		} else if b.wrote != nil {
			n := 0
			for _, i := range b.files {
				if s := rep.Files[i].Status; s == StatusImported || s == StatusAppended {
					n++
				}
			}
			b.wrote(n)
		}
		b.tx = nil
	}
	b.end()
}

// abandon rolls the whole batch back (its transaction can no longer be
// trusted: a savepoint could not be rolled back) and fails its files.
func (b *writeBatch) abandon(rep *Report, err error) {
	if b.tx != nil {
		b.tx.Rollback()
		b.tx = nil
	}
	b.fail(rep, err)
	b.end()
}

// fail turns the reports of the files kept in the batch into failures.
func (b *writeBatch) fail(rep *Report, err error) {
	for _, i := range b.files {
		fr := rep.Files[i]
		rep.Files[i] = Failed(fr, fr.Path, fmt.Errorf("nothing of this file was written: the transaction it was written in failed: %w", err))
	}
}

// end forgets the batch's files, telling the reader they are settled.
func (b *writeBatch) end() {
	for _, j := range b.jobs {
		close(j.done)
		if j == b.awaited {
			b.awaited = nil
		}
	}
	b.jobs, b.files = nil, nil
}
