package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/search"
)

// EmbeddingItem is a searchable item's text to embed, with its fingerprint
// (SHA-256, hex, of the text).
type EmbeddingItem struct {
	Item        string
	Text        string
	Fingerprint string
}

func fingerprint(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// embedText caps what is sent to be embedded (bytes): embedding models read
// a few thousand tokens at most.
const embedText = 8 << 10

// nodeEmbeddingText is what stands for a node in vector search: its
// summary, tags, topics and files.
func nodeEmbeddingText(summary, tags, topics, files string) string {
	return capText(strings.Join([]string{summary, strings.ReplaceAll(tags, "\n", ", "), strings.ReplaceAll(topics, "\n", ", "),
		strings.ReplaceAll(files, "\n", " ")}, "\n"), embedText)
}

// NodesToEmbed returns the nodes whose vector for model is missing or was
// made from another text (the node was analyzed again).
func (s *Store) NodesToEmbed(ctx context.Context, model string) ([]EmbeddingItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.summary, n.tags, n.topics, n.files, coalesce(v.fingerprint, '')
		FROM nodes n LEFT JOIN search_vectors v ON v.model = ? AND v.item = 'node:' || n.id ORDER BY n.pk`, model)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the nodes to embed: %w", err)
	}
	defer rows.Close()
	var out []EmbeddingItem
	for rows.Next() {
		var id, summary, tags, topics, files, fp string
		if err := rows.Scan(&id, &summary, &tags, &topics, &files, &fp); err != nil {
			return nil, fmt.Errorf("store: unable to list the nodes to embed: %w", err)
		}
		text := nodeEmbeddingText(summary, tags, topics, files)
		if f := fingerprint(text); f != fp {
			out = append(out, EmbeddingItem{Item: NodeItem(id), Text: text, Fingerprint: f})
		}
	}
	return out, rows.Err()
}

// embeddedEntries is which entries get vectors: what people and models
// wrote (user and assistant messages, compaction and branch summaries) of
// at least 20 bytes, not tool output.
const embeddedEntries = `(e.role IN ('user', 'assistant') OR e.type IN ('compaction', 'branch_summary')) AND length(e.text) >= 20`

// EntriesToEmbed returns at most limit entries with keys after afterPK, in
// key order, that have no vector for model (see embeddedEntries for which
// entries are embedded); call it again with the last key returned until it
// returns none.
func (s *Store) EntriesToEmbed(ctx context.Context, model string, afterPK int64, limit int) ([]EmbeddingItem, int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.pk, e.text FROM entries e WHERE e.pk > ? AND `+embeddedEntries+`
		AND NOT EXISTS (SELECT 1 FROM search_vectors v WHERE v.model = ? AND v.item = 'entry:' || e.pk)
		ORDER BY e.pk LIMIT ?`, afterPK, model, limit)
	if err != nil {
		return nil, afterPK, fmt.Errorf("store: unable to list the entries to embed: %w", err)
	}
	defer rows.Close()
	var out []EmbeddingItem
	last := afterPK
	for rows.Next() {
		var pk int64
		var text string
		if err := rows.Scan(&pk, &text); err != nil {
			return nil, afterPK, fmt.Errorf("store: unable to list the entries to embed: %w", err)
		}
		text = capText(text, embedText)
		out = append(out, EmbeddingItem{Item: EntryItem(pk), Text: text, Fingerprint: fingerprint(text)})
		last = pk
	}
	return out, last, rows.Err()
}

// EmbeddingCorpus calls fn with every text vector search covers (node texts,
// then embedded entries), for training the offline model, until fn returns
// an error (returned).
func (s *Store) EmbeddingCorpus(ctx context.Context, fn func(text string) error) error {
	nodes, err := s.NodesToEmbed(ctx, "")
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if err := fn(n.Text); err != nil {
			return err
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT e.text FROM entries e WHERE `+embeddedEntries+` ORDER BY e.pk`)
	if err != nil {
		return fmt.Errorf("store: unable to read the texts to learn from: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return fmt.Errorf("store: unable to read the texts to learn from: %w", err)
		}
		if err := fn(capText(text, embedText)); err != nil {
			return err
		}
	}
	return rows.Err()
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%d bytes is not a float32 vector", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	return v, nil
}

// PutVectors stores the vectors of items made by model (vecs[i] is
// items[i]'s), replacing older ones, in one transaction.
func (s *Store) PutVectors(ctx context.Context, model string, items []EmbeddingItem, vecs [][]float32) error {
	if len(items) != len(vecs) {
		return fmt.Errorf("store: unable to save vectors: %d items, %d vectors", len(items), len(vecs))
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to save vectors: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO search_vectors (model, item, fingerprint, vector) VALUES (?, ?, ?, ?)
		ON CONFLICT (model, item) DO UPDATE SET fingerprint = excluded.fingerprint, vector = excluded.vector`)
	if err != nil {
		return fmt.Errorf("store: unable to save vectors: %w", err)
	}
	defer st.Close()
	for i, it := range items {
		if _, err := st.ExecContext(ctx, model, it.Item, it.Fingerprint, encodeVector(vecs[i])); err != nil {
			return fmt.Errorf("store: unable to save the vector of %s: %w", it.Item, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to save vectors: %w", err)
	}
	return nil
}

// Vectors calls fn with every vector stored for model, until fn returns an
// error (returned). Vectors of items no longer in the library are skipped.
func (s *Store) Vectors(ctx context.Context, model string, fn func(item string, v []float32) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT v.item, v.vector FROM search_vectors v WHERE v.model = ?
		AND CASE WHEN v.item LIKE 'node:%' THEN EXISTS (SELECT 1 FROM nodes n WHERE n.id = substr(v.item, 6))
			ELSE EXISTS (SELECT 1 FROM entries e WHERE e.pk = CAST(substr(v.item, 7) AS INTEGER)) END`, model)
	if err != nil {
		return fmt.Errorf("store: unable to read the vectors of %s: %w", model, err)
	}
	defer rows.Close()
	for rows.Next() {
		var item string
		var b []byte
		if err := rows.Scan(&item, &b); err != nil {
			return fmt.Errorf("store: unable to read the vectors of %s: %w", model, err)
		}
		v, err := decodeVector(b)
		if err != nil {
			return fmt.Errorf("store: unable to read the vector of %s (%s): %w", item, model, err)
		}
		if err := fn(item, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountVectors is how many vectors are stored for model.
func (s *Store) CountVectors(ctx context.Context, model string) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM search_vectors WHERE model = ?`, model).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: unable to count the vectors of %s: %w", model, err)
	}
	return n, nil
}

// DeleteVectorsExcept drops the vectors of every model but keep (the
// embedding model changed), and those of items no longer in the library. It
// returns how many were dropped.
func (s *Store) DeleteVectorsExcept(ctx context.Context, keep string) (int64, error) {
	res, err := s.execWrite(ctx, `DELETE FROM search_vectors WHERE model <> ?
		OR (item LIKE 'node:%' AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = substr(item, 6)))
		OR (item LIKE 'entry:%' AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.pk = CAST(substr(item, 7) AS INTEGER)))`, keep)
	if err != nil {
		return 0, fmt.Errorf("store: unable to drop old vectors: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// PutSearchBlob stores a model or index (see migrations/0040) under name.
func (s *Store) PutSearchBlob(ctx context.Context, name, kind string, data []byte) error {
	if _, err := s.execWrite(ctx, `INSERT INTO search_blobs (name, kind, data, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, data = excluded.data, updated_at = excluded.updated_at`,
		name, kind, data, isoTime(time.Now())); err != nil {
		return fmt.Errorf("store: unable to save %s: %w", name, err)
	}
	return nil
}

// SearchBlobsStamp changes whenever a search blob is saved: the names and
// save times (milliseconds) of all of them, "" when there are none. A
// process that loaded the vectors (`rhizome mcp`) compares it to load them
// again once the window's background queue saved new ones.
func (s *Store) SearchBlobsStamp(ctx context.Context) (string, error) {
	var stamp string
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(group_concat(name || ' ' || updated_at, ','), '')
		FROM (SELECT name, updated_at FROM search_blobs ORDER BY name)`).Scan(&stamp); err != nil {
		return "", fmt.Errorf("store: unable to read when the search models were saved: %w", err)
	}
	return stamp, nil
}

// SearchBlob returns the blob stored under name; the error wraps ErrNotFound
// when there is none.
func (s *Store) SearchBlob(ctx context.Context, name string) ([]byte, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM search_blobs WHERE name = ?`, name).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read %s: %w", name, err)
	}
	return b, nil
}

// SearchGraph returns the knowledge graph's edges, and those consolidation
// made between nodes, as bridges walk them, node items as ends. An edge's confidence is its metadata's "confidence" (a
// number in (0, 1]), else 1; its rationale the metadata's "rationale", else
// "reason", else its creator.
func (s *Store) SearchGraph(ctx context.Context) ([]search.GraphEdge, error) {
	edges, err := s.Edges(ctx)
	if err != nil {
		return nil, err
	}
	more, err := s.MemoryEdges(ctx)
	if err != nil {
		return nil, err
	}
	edges = append(edges, more...)
	out := make([]search.GraphEdge, 0, len(edges))
	for _, e := range edges {
		out = append(out, graphEdge(e))
	}
	return out, nil
}

func graphEdge(e graph.Edge) search.GraphEdge {
	ge := search.GraphEdge{Source: NodeItem(e.SourceNodeID), Target: NodeItem(e.TargetNodeID), Type: e.Type, Confidence: 1}
	if c, ok := e.Metadata["confidence"].(float64); ok && c > 0 && c <= 1 {
		ge.Confidence = c
	}
	for _, k := range []string{"rationale", "reason"} {
		if r, ok := e.Metadata[k].(string); ok && r != "" {
			ge.Rationale = r
			break
		}
	}
	if ge.Rationale == "" {
		ge.Rationale = "made by " + string(e.CreatedBy)
	}
	return ge
}
