package pisession

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"rhizome/backend/session"
)

// SyntheticID is the id the reader gives the version 1 entry at 0-based
// position seq (header excluded) of the session sessionID: the first 8 hex
// characters of sha256(sessionID + ":" + seq). Version 1 files have no ids;
// pi invents random ones on every load, Rhizome needs ids that are the same
// on every read and on an append import (NewReaderAt).
func SyntheticID(sessionID string, seq int) string {
	var buf [64]byte
	b := append(buf[:0], sessionID...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(seq), 10)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}

// parseTimestamp reads an entry's ISO 8601 timestamp (pi writes
// Date.toISOString(): "2025-12-24T00:32:29.373Z"). It returns false for an
// absent or unparseable value.
func parseTimestamp(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	// ISO 8601 without a zone: read as UTC.
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// setHeader records the header and the migration it calls for.
func (r *Reader) setHeader(h *session.Header) {
	r.hdr = h
	r.v1 = h.Version < 2 // pi: version ?? 1; migrate when < 2
	r.v2 = h.Version < 3
}

// migrate brings a decoded entry to version 3 meaning, as pi's
// migrateV1ToV2 and migrateV2ToV3 do.
func (r *Reader) migrate(e *session.Entry, x *entryExtras) {
	// Version 3 renamed the role hookMessage to custom.
	if r.v2 && e.Message != nil && e.Message.Role == session.RoleHookMessage {
		e.Message.Role = session.RoleCustom
	}
	if r.v1 {
		r.migrateV1(e, x)
	}
}

// migrateV1 gives a version 1 entry its synthetic id, chains it to the
// previous entry, and turns a compaction's firstKeptEntryIndex into
// FirstKeptEntryID.
//
// firstKeptEntryIndex indexes the file's objects with the header at 0 (pi v1
// kept the header in its entries array, and its cut point is always a user or
// assistant message, which the real files confirm only with that counting),
// so index i names the entry with Seq i-1. Like pi, only an index naming an
// entry up to the compaction itself resolves: 0 (the header), a negative, a
// fractional or a later index leaves FirstKeptEntryID empty. An index equal to
// the compaction's own position (pi v1 wrote that when it kept nothing) gives
// the compaction's own id, exactly as pi's migration does.
func (r *Reader) migrateV1(e *session.Entry, x *entryExtras) {
	e.ID = SyntheticID(r.hdr.ID, e.Seq)
	e.ParentID = r.prevID
	r.prevID = e.ID
	if e.Type != session.TypeCompaction || !x.hasFirstKept {
		return
	}
	idx := x.firstKeptIndex
	if idx >= 1 && idx <= float64(e.Seq+1) && idx == float64(int64(idx)) {
		e.FirstKeptEntryID = SyntheticID(r.hdr.ID, int(idx)-1)
	}
}
