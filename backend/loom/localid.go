package loom

import (
	"crypto/sha256"
	"encoding/base32"
	"strconv"
)

// localIDEncoding is Crockford's base32 in lower case (no i, l, o, u): easy
// for a model to copy, hard to misread.
var localIDEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// Local ID lengths: the usual one, and the spec's maximum.
const (
	LocalIDLength    = 6
	LocalIDMaxLength = 8
)

// LocalID returns the short, tree-unique id of the node whose ULID is nodeID:
// the first 6 characters of the base32 SHA-256 of the whole ULID, extended
// one character at a time while taken reports a collision. Past 8 characters
// (one collision in a tree of ~10^6 nodes) it keeps extending, up to the 52
// characters of the hash, then appends "-2", "-3", ... so it never fails.
//
// The spec's "first 6 characters of the ULID" is its millisecond timestamp:
// it changes every ~17.5 minutes, so nodes made in a burst collide past the
// 8-character limit. The ULID's random part is no better here: ULIDs made in
// the same millisecond by a monotonic entropy source (as NewID does) differ
// only by an increment in their last characters. A hash of the whole ULID
// spreads both. See ERRATA.md, "localId".
func LocalID(nodeID string, taken func(string) bool) string {
	sum := sha256.Sum256([]byte(nodeID))
	full := localIDEncoding.EncodeToString(sum[:])
	for n := LocalIDLength; n <= len(full); n++ {
		if !taken(full[:n]) {
			return full[:n]
		}
	}
	for i := 2; ; i++ {
		id := full + "-" + strconv.Itoa(i)
		if !taken(id) {
			return id
		}
	}
}
