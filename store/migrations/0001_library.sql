-- The whole schema of a Rhizome library: imported pi sessions, their
-- entries, the segments they were cut into, one knowledge-graph node per
-- segment (every version kept) and the edges between nodes.
--
-- Conventions: timestamps are ISO 8601 text in UTC ('' when unknown), money is
-- USD, sizes are bytes, JSON columns hold UTF-8 JSON text. Child tables point
-- at their session by its integer key (sessions.pk), which stays the same
-- when a session is re-imported.
-- See ../shared/specs/pi-brain-node-model.md for nodes, edges and versions.

-- One imported session file.
CREATE TABLE sessions (
    pk               INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,          -- session id from the header
    path             TEXT NOT NULL,                 -- file path as imported (a dropped file: its name)
    file_name        TEXT NOT NULL,                 -- base name of path
    cwd              TEXT NOT NULL DEFAULT '',      -- the project: the session's working directory
    version          INTEGER NOT NULL,              -- session format version (1 to 3)
    timestamp        TEXT NOT NULL DEFAULT '',      -- header timestamp
    header           TEXT NOT NULL,                 -- header object exactly as in the file
    parent_session   TEXT NOT NULL DEFAULT '',      -- header parentSession: the parent's path where it was recorded
    parent_file_name TEXT NOT NULL DEFAULT '',      -- base name of parent_session
    parent_uuid      TEXT NOT NULL DEFAULT '',      -- session id at the end of parent_file_name (<time>_<uuid>.jsonl)
    name             TEXT NOT NULL DEFAULT '',      -- name from the last session_info entry
    is_new_project   INTEGER NOT NULL DEFAULT 0,    -- no other session of cwd was in the library when imported
    imported_bytes   INTEGER NOT NULL DEFAULT 0,    -- file prefix imported: up to the end of the last complete line
    imported_sha256  TEXT NOT NULL DEFAULT '',      -- SHA-256 (hex) of that prefix, to detect appends
    file_bytes       INTEGER NOT NULL DEFAULT 0,    -- size of the whole file when imported
    file_sha256      TEXT NOT NULL DEFAULT '',      -- SHA-256 (hex) of the whole file, to detect "unchanged"
    lines            INTEGER NOT NULL DEFAULT 0,    -- complete lines read, header included
    entries          INTEGER NOT NULL DEFAULT 0,    -- entries stored (header excluded)
    entries_by_type  TEXT NOT NULL DEFAULT '{}',    -- JSON {type or "message:<role>": count}
    pending_tail     INTEGER NOT NULL DEFAULT 0,    -- the file ended in a half-written line, not imported
    malformed        INTEGER NOT NULL DEFAULT 0,    -- rows in import_problems
    imported_at      TEXT NOT NULL,                 -- first import
    updated_at       TEXT NOT NULL                  -- last import that changed it
);
CREATE INDEX sessions_cwd ON sessions (cwd);
CREATE INDEX sessions_path ON sessions (path);
CREATE INDEX sessions_file_name ON sessions (file_name);
-- Forked sessions waiting for (or linked to) their parent.
CREATE INDEX sessions_parent ON sessions (parent_session) WHERE parent_session <> '';
CREATE INDEX sessions_parent_file_name ON sessions (parent_file_name) WHERE parent_file_name <> '';
CREATE INDEX sessions_parent_uuid ON sessions (parent_uuid) WHERE parent_uuid <> '';

-- Every entry of every session, in file order, never dropped: unknown types
-- are kept with their JSON.
CREATE TABLE entries (
    pk          INTEGER PRIMARY KEY,
    session_pk  INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,               -- 0-based index in file order (header excluded)
    entry_id    TEXT NOT NULL DEFAULT '',       -- id (synthetic for version 1 files)
    parent_id   TEXT NOT NULL DEFAULT '',
    type        TEXT NOT NULL,                  -- entry type (message, compaction, label, ...)
    role        TEXT NOT NULL DEFAULT '',       -- message role
    timestamp   TEXT NOT NULL DEFAULT '',
    line        INTEGER NOT NULL,               -- 1-based line of the object in the file
    byte_offset INTEGER NOT NULL,               -- offset of the object's first byte
    target_id   TEXT NOT NULL DEFAULT '',       -- label: the entry it names
    text        TEXT NOT NULL DEFAULT '',       -- searchable text (pisession.EntryText, capped)
    raw         TEXT NOT NULL                   -- the object exactly as in the file
);
CREATE UNIQUE INDEX entries_session_seq ON entries (session_pk, seq);
CREATE INDEX entries_labels ON entries (session_pk, target_id) WHERE type = 'label';

-- Lines of a session file that could not be read as an entry.
CREATE TABLE import_problems (
    pk          INTEGER PRIMARY KEY,
    session_pk  INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    line        INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    reason      TEXT NOT NULL
);
CREATE INDEX import_problems_session ON import_problems (session_pk, line);

-- Runs of consecutive entries between boundaries: one node each.
CREATE TABLE segments (
    session_pk      INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    idx             INTEGER NOT NULL,           -- 0-based position in the session
    start_entry_id  TEXT NOT NULL,
    end_entry_id    TEXT NOT NULL,
    start_seq       INTEGER NOT NULL,
    end_seq         INTEGER NOT NULL,           -- inclusive
    entry_count     INTEGER NOT NULL,
    start_timestamp TEXT NOT NULL DEFAULT '',
    end_timestamp   TEXT NOT NULL DEFAULT '',
    boundaries      TEXT NOT NULL DEFAULT '[]', -- JSON [segment.Boundary] that start it
    PRIMARY KEY (session_pk, idx)
) WITHOUT ROWID;

-- The current version of every node; node is the whole graph.Node as JSON,
-- the other columns copy what lists, filters and search need.
CREATE TABLE nodes (
    pk          INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,           -- 16 hex characters, stable across versions
    session_pk  INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    segment_idx INTEGER NOT NULL,
    version     INTEGER NOT NULL,               -- current version, from 1
    type        TEXT NOT NULL DEFAULT '',
    outcome     TEXT NOT NULL DEFAULT '',
    project     TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT '',
    tags        TEXT NOT NULL DEFAULT '',       -- semantic tags, one per line
    topics      TEXT NOT NULL DEFAULT '',       -- semantic topics, one per line
    files       TEXT NOT NULL DEFAULT '',       -- files touched, one per line
    timestamp   TEXT NOT NULL DEFAULT '',       -- segment start
    cost        REAL NOT NULL DEFAULT 0,        -- USD
    tokens      INTEGER NOT NULL DEFAULT 0,
    entry_count INTEGER NOT NULL DEFAULT 0,
    node        TEXT NOT NULL
);
CREATE UNIQUE INDEX nodes_segment ON nodes (session_pk, segment_idx);
CREATE INDEX nodes_timestamp ON nodes (timestamp);
CREATE INDEX nodes_project ON nodes (project);

-- Every version of every node, the current one included; never deleted while
-- the node exists.
CREATE TABLE node_versions (
    node_id          TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    version          INTEGER NOT NULL,
    node             TEXT NOT NULL,             -- graph.Node JSON of that version
    analyzer_version TEXT NOT NULL DEFAULT '',
    analyzed_at      TEXT NOT NULL DEFAULT '',
    trigger_reason   TEXT NOT NULL,             -- initial, append, replace, prompt_update, ...
    PRIMARY KEY (node_id, version)
) WITHOUT ROWID;

-- Typed, directed relationships between current nodes. Ids are derived from
-- source, target and type, so importing again makes the same edges.
CREATE TABLE edges (
    id         TEXT PRIMARY KEY,
    source_id  TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    target_id  TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL                    -- boundary, daemon, user
);
CREATE INDEX edges_source ON edges (source_id);
CREATE INDEX edges_target ON edges (target_id);

-- Full-text search over nodes and entries (external content: the text lives
-- in nodes and entries, the triggers below keep the indexes in step).
CREATE VIRTUAL TABLE nodes_fts USING fts5 (
    summary, tags, topics, files,
    content = 'nodes', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts (rowid, summary, tags, topics, files)
    VALUES (new.pk, new.summary, new.tags, new.topics, new.files);
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts (nodes_fts, rowid, summary, tags, topics, files)
    VALUES ('delete', old.pk, old.summary, old.tags, old.topics, old.files);
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF summary, tags, topics, files ON nodes BEGIN
    INSERT INTO nodes_fts (nodes_fts, rowid, summary, tags, topics, files)
    VALUES ('delete', old.pk, old.summary, old.tags, old.topics, old.files);
    INSERT INTO nodes_fts (rowid, summary, tags, topics, files)
    VALUES (new.pk, new.summary, new.tags, new.topics, new.files);
END;

-- New entries are indexed by the importer (Tx.InsertEntry), a few MB of text
-- at a time, with
--   INSERT INTO entries_fts (rowid, text) SELECT pk, text FROM entries WHERE pk BETWEEN ...
-- rather than by an insert trigger: FTS5 writes its pending terms to disk at
-- every statement savepoint, so a trigger made one small index segment per
-- insert statement (and merged them): a 30 MB import took 1.5 times as long.
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    content = 'entries', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
);
-- Merge index segments 16 at a time (the default is 4): about half the merge
-- work while importing, for a few more segments to read per query.
INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 16);
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries WHEN old.text <> '' BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', old.pk, old.text);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) SELECT 'delete', old.pk, old.text WHERE old.text <> '';
    INSERT INTO entries_fts (rowid, text) SELECT new.pk, new.text WHERE new.text <> '';
END;
