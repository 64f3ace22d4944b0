package ingest

import (
	"hash/maphash"
	"sync"
)

// Copies without the writer: a Claude Code file's entries are looked up by
// uuid among the entries stored before them (stream.findCopies), which only
// the writer's transaction sees whole: the files before this one in the
// import may be in its open batch. Asking it makes the reader wait until
// the writer has finished every file before, so that reading and writing
// took turns on a corpus of small files (pprof: the reader blocked 3.4 s of
// a 18 s import, the writer 2.5 s). Most files share no uuid with anything
// stored: the reader settles those itself. The keys of every file the
// import has read are held (importKeys), and the library as committed is
// asked; only when either may hold one of the keys does the writer answer.

// importKeys is the dedupe keys of the entries of every file an import has
// read so far, as 64-bit hashes (a key of 40-odd bytes took about 100 bytes
// of map; a hash 16: 300 MB of logs hold a hundred thousand keys), shared
// by its jobs (one reader goroutine fills it; the lock keeps it safe for
// others). Two keys with one hash only make the writer answer once more.
type importKeys struct {
	mu   sync.Mutex
	seen map[uint64]struct{}
}

// add records keys as read by the import.
func (k *importKeys) add(keys []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.seen == nil {
		k.seen = make(map[uint64]struct{}, len(keys))
	}
	for _, key := range keys {
		k.seen[keyHash(key)] = struct{}{}
	}
}

// anyOf reports whether a file read before may hold one of keys.
func (k *importKeys) anyOf(keys []string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range keys {
		if _, ok := k.seen[keyHash(key)]; ok {
			return true
		}
	}
	return false
}

// keyHashSeed seeds keyHash, the same for the whole process.
var keyHashSeed = maphash.MakeSeed()

func keyHash(key string) uint64 { return maphash.String(keyHashSeed, key) }

// mayHaveCopies reports whether keys may name entries stored before: held
// by a file this import read before, or by the library as committed (which
// holds what the writer's transaction began from). False means none does,
// and the writer need not be asked. Another process that stores the same
// uuids between this look-up and the writer's next batch is not seen: those
// copies are then counted twice, never lost.
func (s *stream) mayHaveCopies(keys []string) (bool, error) {
	if s.j.keys == nil || s.j.keys.anyOf(keys) {
		return true, nil
	}
	return s.st.HasDedupeKeys(s.ctx, keys)
}
