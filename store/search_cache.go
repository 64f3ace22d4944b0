package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"rhizome/backend/search"
)

// docCache keeps what the search read of entries and nodes (their
// search.Doc) from one search to the next while the library is unchanged:
// reading a search's few hundred candidates was 40 % of its time. Any
// commit, by this process or another (the window importing while `rhizome
// mcp` searches), empties it: SQLite's data_version, asked on a connection
// of the cache's own that never writes, changes whenever another
// connection commits. At most docCacheItems of each are kept; past that
// the cache starts again.
type docCache struct {
	mu      sync.Mutex
	conn    *sql.Conn // for PRAGMA data_version; nil until first asked
	version int64
	entries map[int64]search.Doc
	nodes   map[string]search.Doc
}

// docCacheItems bounds each of the cache's maps (about 1 KB a document
// for entries' text: tens of MB at most).
const docCacheItems = 50000

// sync empties the cache when the library changed since it was filled, and
// returns the library's version now, for keep. On an error the cache is
// emptied and stays off until asking works again.
func (c *docCache) sync(ctx context.Context, db *sql.DB) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		conn, err := db.Conn(ctx)
		if err != nil {
			c.entries, c.nodes = nil, nil
			return 0, fmt.Errorf("store: unable to open the search cache's connection: %w", err)
		}
		c.conn = conn
	}
	var v int64
	if err := c.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		c.conn.Close()
		c.conn, c.entries, c.nodes = nil, nil, nil
		return 0, fmt.Errorf("store: unable to ask whether the library changed: %w", err)
	}
	if c.entries == nil || v != c.version || len(c.entries) > docCacheItems || len(c.nodes) > docCacheItems {
		c.version, c.entries, c.nodes = v, map[int64]search.Doc{}, map[string]search.Doc{}
	}
	return v, nil
}

// entry returns the cached document of entry pk.
func (c *docCache) entry(pk int64) (search.Doc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.entries[pk]
	return d, ok
}

// node returns the cached document of node id.
func (c *docCache) node(id string) (search.Doc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.nodes[id]
	return d, ok
}

// keep caches documents read after a sync that returned version: not when
// another sync has seen a newer version since (they may have been read
// before that commit). A commit after they were kept empties them at the
// next sync.
func (c *docCache) keep(version int64, entries map[int64]search.Doc, nodes map[string]search.Doc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || version != c.version {
		return // off, closed, or changed meanwhile
	}
	for pk, d := range entries {
		c.entries[pk] = d
	}
	for id, d := range nodes {
		c.nodes[id] = d
	}
}

// close releases the cache's connection (Store.Close, before the pool).
func (c *docCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
	}
	c.conn, c.entries, c.nodes = nil, nil, nil
}
