-- Summaries (issue 8): what every session, segment (knowledge-graph node),
-- loom tree, loom node and project is about, keyed by the item's rhizome:
-- URI (backend/link). Every summary made is a version; the summary an item
-- shows is copied into its row (summary.Choose and summary.Shown decide
-- which), with the item's current input hash (stale when the shown one was
-- made from other inputs) and its place in the background queue, which
-- survives a restart.

-- One row per item that has, or is to have, a summary.
CREATE TABLE summaries (
    pk          INTEGER PRIMARY KEY,
    item        TEXT NOT NULL UNIQUE,          -- the item's rhizome: URI
    kind        TEXT NOT NULL,                 -- session, segment, loomTree, loomNode, project (summary.Kind)
    subject     TEXT NOT NULL,                 -- the item's own id: session id, node id, tree id, loom node id, project path
    input_hash  TEXT NOT NULL DEFAULT '',      -- hash of the item's current inputs ('' unknown)
    -- The summary shown, as summary.Shown made it from the versions:
    title       TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL DEFAULT '',
    label       TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',      -- offline, pi, human, model:<provider>/<model>; '' none yet
    made_from   TEXT NOT NULL DEFAULT '',      -- the input hash the summary shown was made from
    made_at     TEXT NOT NULL DEFAULT '',
    human       INTEGER NOT NULL DEFAULT 0,    -- the version of the person's edit in force; 0 none
    -- The background queue:
    queued      TEXT NOT NULL DEFAULT '',      -- what to make: '' nothing, 'offline', 'model'
    queued_at   TEXT NOT NULL DEFAULT '',
    next_try    TEXT NOT NULL DEFAULT '',      -- not before: a retry's back-off, a running job's lease
    forced      INTEGER NOT NULL DEFAULT 0,    -- asked for on demand: made again even when fresh
    attempts    INTEGER NOT NULL DEFAULT 0,    -- model failures since the last summary the model made
    error       TEXT NOT NULL DEFAULT '',      -- the last failure, kept until a model summary succeeds
    basis       INTEGER NOT NULL DEFAULT 0     -- a loom tree: its node count when its summary was last made
);
CREATE INDEX summaries_subject ON summaries (kind, subject);
CREATE INDEX summaries_queue ON summaries (next_try, queued_at) WHERE queued <> '';

-- Every summary made for an item: all of a person's edits, and the latest
-- of every other source (an older one of the same source is replaced).
CREATE TABLE summary_versions (
    item       TEXT NOT NULL REFERENCES summaries (item) ON DELETE CASCADE,
    version    INTEGER NOT NULL,               -- 1, 2, ... per item, never reused
    title      TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL DEFAULT '',
    label      TEXT NOT NULL DEFAULT '',
    source     TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    made_at    TEXT NOT NULL,
    PRIMARY KEY (item, version)
) WITHOUT ROWID;

-- Full-text search over the summaries shown (title, text, label), kept in
-- step by the triggers below. Search.Query is not wired to it here: it is
-- the index the search over summaries reads.
CREATE VIRTUAL TABLE summaries_fts USING fts5 (
    title, text, label,
    content = 'summaries', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER summaries_fts_insert AFTER INSERT ON summaries BEGIN
    INSERT INTO summaries_fts (rowid, title, text, label) VALUES (new.pk, new.title, new.text, new.label);
END;
CREATE TRIGGER summaries_fts_delete AFTER DELETE ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, title, text, label) VALUES ('delete', old.pk, old.title, old.text, old.label);
END;
CREATE TRIGGER summaries_fts_update AFTER UPDATE OF title, text, label ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, title, text, label) VALUES ('delete', old.pk, old.title, old.text, old.label);
    INSERT INTO summaries_fts (rowid, title, text, label) VALUES (new.pk, new.title, new.text, new.label);
END;
