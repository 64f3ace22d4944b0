-- Tool outputs Claude Code saved beside a session, in <session>/tool-results/,
-- because they were too large for the line, which keeps a preview and the
-- path (claude-code-codex-formats.md §1.1): kept here so that the library
-- holds the whole output once Claude Code deletes its files, and the search
-- reads it. One row per file a tool result names; content is NULL when it
-- was not read (absent says why), and goes with its entry.
CREATE TABLE tool_outputs (
    pk            INTEGER PRIMARY KEY,
    session_pk    INTEGER NOT NULL,
    seq           INTEGER NOT NULL,             -- the tool result entry naming it
    name          TEXT NOT NULL,                -- its file name in tool-results/
    recorded_path TEXT NOT NULL,                -- the path the line names (on the machine that wrote it)
    bytes         INTEGER NOT NULL DEFAULT 0,   -- the file's size
    sha256        TEXT NOT NULL DEFAULT '',     -- of content (hex)
    content       BLOB,                         -- the file's bytes; NULL when not read
    absent        TEXT NOT NULL DEFAULT '',     -- why content is NULL: not found, too large
    FOREIGN KEY (session_pk, seq) REFERENCES entries (session_pk, seq) ON DELETE CASCADE
);
CREATE UNIQUE INDEX tool_outputs_entry ON tool_outputs (session_pk, seq, name);
