-- Projects whose relations across sessions are to be derived again. An
-- import marks the project of every session it writes, in the same
-- transaction; the derivation (app/relations.go) clears the mark it read
-- before deriving, unless a later import marked the project again. A window
-- closed between an append and the derivation its queue would have run
-- (app/relations_queue.go) leaves the mark, and the next start derives
-- what it names. marked_at is an RFC 3339 time with nanoseconds: a later
-- mark is another value.
CREATE TABLE relations_pending (
    project   TEXT PRIMARY KEY,
    marked_at TEXT NOT NULL
) WITHOUT ROWID;
