package loom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// hashSeparator joins the parts of a node's hash input. Only the first part,
// the content JSON, can contain it, so the parts stay unambiguous.
const hashSeparator = "|"

// isoMillis is how times enter a hash: ISO 8601, UTC, milliseconds, "Z"
// (what JavaScript's Date.toISOString writes).
const isoMillis = "2006-01-02T15:04:05.000Z07:00"

// ISOTime formats t as it is hashed and stored: UTC, milliseconds.
func ISOTime(t time.Time) string { return t.UTC().Format(isoMillis) }

// normalTime is t in UTC at millisecond precision, the precision nodes keep.
func normalTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// ComputeHash returns the content hash n should carry: the SHA-256 (hex) of
//
//	canonical JSON of n.Content (keys sorted)
//	| the hashes of n.Parents, sorted, joined by ","  ("" for a root)
//	| n.CreatedAt as ISO 8601 UTC with milliseconds
//	| n.AuthorAgentID
//	| n.RawResponseHash                                (model nodes only)
//
// It reads only fields fixed at creation: the parents' hashes are those
// recorded on n, not the parents' current ones, so versions added later never
// change it (ERRATA.md, "Content hash" and "Buffer mode breaks that chain").
func ComputeHash(n *Node) (string, error) {
	content, err := CanonicalJSON(n.Content)
	if err != nil {
		return "", fmt.Errorf("loom: unable to hash node %s: %w", n.ID, err)
	}
	parents := make([]string, len(n.Parents))
	for i, p := range n.Parents {
		parents[i] = p.Hash
	}
	slices.Sort(parents)
	parts := []string{string(content), strings.Join(parents, ","), ISOTime(n.CreatedAt), n.AuthorAgentID}
	if n.AuthorType == AuthorModel {
		parts = append(parts, n.RawResponseHash)
	}
	return SHA256Hex([]byte(strings.Join(parts, hashSeparator))), nil
}

// CanonicalJSON returns v's JSON with object keys sorted, no insignificant
// whitespace and no HTML escaping (<, > and & stay as they are).
func CanonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var generic any
	if err := d.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(generic); err != nil { // maps encode with sorted keys
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
