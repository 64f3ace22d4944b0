package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"rhizome/backend/search"
)

// Stored vectors take about their own bytes: 2,000 vectors of the offline
// model's 228 values (912 bytes each) grow the library by less than twice
// that. Each one took an overflow page of its own (4 KB) while the table
// kept its rows in its primary key's b-tree.
func TestVectorsStoredCompactly(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "library.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pages := func() int64 {
		var n, free int64
		if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
			t.Fatal(err)
		}
		return n - free
	}
	before := pages()
	const n, dims = 2000, 128 + search.WordVectorDims
	model := "lsa-0123456789ab+glove100"
	items := make([]EmbeddingItem, n)
	vecs := make([][]float32, n)
	for i := range items {
		items[i] = EmbeddingItem{Item: fmt.Sprintf("entry:%d", i+1), Fingerprint: fingerprint(fmt.Sprint(i))}
		vecs[i] = make([]float32, dims)
		for j := range vecs[i] {
			vecs[i][j] = float32(i*dims+j) / 1e6
		}
	}
	if err := s.PutVectors(ctx, model, items, vecs); err != nil {
		t.Fatal(err)
	}
	grown := (pages() - before) * 4096
	if payload := int64(n * dims * 4); grown > 2*payload {
		t.Errorf("%d vectors of %d bytes grew the library by %d bytes", n, dims*4, grown)
	}
	if c, err := s.CountVectors(ctx, model); err != nil || c != n {
		t.Fatalf("%d vectors counted (%v)", c, err)
	}
}
