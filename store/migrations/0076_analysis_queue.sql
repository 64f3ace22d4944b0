-- The model analyzer (issue 9, section 1). analysis_queue is the batch
-- waiting to be analysed: it survives a restart, so a paused, interrupted
-- or rate-limited batch resumes where it stopped. node_analyses records
-- every analysis of a node, successful or not: who made it, the node
-- version it wrote (NULL when it failed), what it spent, and the failure.
CREATE TABLE analysis_queue (
    node_id     TEXT PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,              -- order of enqueueing
    manual      INTEGER NOT NULL DEFAULT 0,    -- the user asked: a new version even when current
    enqueued_at TEXT NOT NULL,
    last_error  TEXT NOT NULL DEFAULT ''       -- why the last attempt could not be made now (429, budget, ...)
);
CREATE INDEX analysis_queue_seq ON analysis_queue (seq);

CREATE TABLE node_analyses (
    pk               INTEGER PRIMARY KEY,
    node_id          TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    at               TEXT NOT NULL,             -- ISO 8601
    source           TEXT NOT NULL,             -- offline, or model:<provider>/<model>
    analyzer_version TEXT NOT NULL DEFAULT '',
    trigger_reason   TEXT NOT NULL DEFAULT '',  -- of the version written
    version          INTEGER,                   -- the node version written; NULL when none was
    calls            INTEGER NOT NULL DEFAULT 0,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    usd              REAL NOT NULL DEFAULT 0,
    price_known      INTEGER NOT NULL DEFAULT 0,
    failure          TEXT NOT NULL DEFAULT ''   -- analyze.Failure JSON; '' on success
);
CREATE INDEX node_analyses_node ON node_analyses (node_id, pk);
