-- node_versions was a WITHOUT ROWID table: such a table keeps at most about
-- a quarter of a page of a row in its B-tree and the rest in an overflow
-- page of its own, so every version of a node (its graph.Node JSON, 1-3 KB)
-- took a whole extra 4 KB page: 71 MB for 12,909 versions in a library of
-- 300 MB of Claude Code and Codex logs, written twice (log and database) by
-- the import. As an ordinary table, a row of up to about 4 KB stays in its
-- page. Same columns, same key (now a unique index), same cascade.
CREATE TABLE node_versions_rowid (
    node_id          TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    version          INTEGER NOT NULL,
    node             TEXT NOT NULL,             -- graph.Node JSON of that version
    analyzer_version TEXT NOT NULL DEFAULT '',
    analyzed_at      TEXT NOT NULL DEFAULT '',
    trigger_reason   TEXT NOT NULL              -- initial, append, replace, prompt_update, ...
);
INSERT INTO node_versions_rowid (node_id, version, node, analyzer_version, analyzed_at, trigger_reason)
SELECT node_id, version, node, analyzer_version, analyzed_at, trigger_reason FROM node_versions ORDER BY node_id, version;
DROP TABLE node_versions;
ALTER TABLE node_versions_rowid RENAME TO node_versions;
CREATE UNIQUE INDEX node_versions_key ON node_versions (node_id, version);
