package store

import (
	"context"

	"rhizome/backend/link"
)

// AllLinks returns every link of the library, by id (what `rhizome export`
// writes).
func (s *Store) AllLinks(ctx context.Context) ([]link.Link, error) {
	return s.queryLinks(ctx, "the links", `SELECT `+linkColumns+` FROM links ORDER BY id`)
}
