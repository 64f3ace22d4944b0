-- Consolidation (issue 10, section 3; backend/consolidate): each item's
-- stored relevance and archive flag, the nodes the cluster cycle makes
-- (MetaPatterns) and the edges consolidation adds, and the log of every run
-- (kept for the window and for undo). Items are rhizome: URIs. Edges here
-- are not in `edges`: their ends need not be segment nodes.
CREATE TABLE memory_state (
    item          TEXT PRIMARY KEY,             -- rhizome:node/<id>, rhizome:knowledge/<id>
    relevance     REAL,                         -- NULL: never scored
    archived      INTEGER NOT NULL DEFAULT 0,   -- 1: out of the default graph and search
    last_accessed TEXT NOT NULL DEFAULT ''      -- RFC 3339, when a person last opened it
) WITHOUT ROWID;

CREATE TABLE memory_nodes (
    item       TEXT PRIMARY KEY,                -- rhizome:knowledge/<id>
    kind       TEXT NOT NULL,                   -- MetaPattern
    node       TEXT NOT NULL,                   -- consolidate.Node JSON
    created_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE memory_edges (
    id         TEXT PRIMARY KEY,
    source     TEXT NOT NULL,                   -- rhizome: URI
    target     TEXT NOT NULL,
    type       TEXT NOT NULL,                   -- SHARES_THEME, RELATES_TO, PART_OF
    edge       TEXT NOT NULL,                   -- consolidate.Edge JSON
    created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX memory_edges_source ON memory_edges (source);
CREATE INDEX memory_edges_target ON memory_edges (target);

CREATE TABLE memory_runs (
    id        TEXT PRIMARY KEY,                 -- the run's ULID
    at        TEXT NOT NULL,                    -- RFC 3339, the run's time
    cycles    TEXT NOT NULL,                    -- comma-separated
    undo_of   TEXT NOT NULL DEFAULT '',         -- the run this one undoes
    undone_by TEXT NOT NULL DEFAULT '',         -- the run that undid this one
    scheduled INTEGER NOT NULL DEFAULT 0,       -- 1: started by the schedule
    log       TEXT NOT NULL                     -- consolidate.RunLog JSON
) WITHOUT ROWID;
CREATE INDEX memory_runs_at ON memory_runs (at);
