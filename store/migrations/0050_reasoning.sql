-- MemoBrain reasoning graphs (issue 12): an agent's reasoning as task,
-- subtask, evidence and summary nodes, grown by memory patches and
-- compressed by flush and fold (backend/memobrain). A graph is imported from
-- a MemoBrain snapshot or made by running MemoBrain's loop on a session.
-- Every operation applied to it is kept (reasoning_steps), so any past state
-- can be rebuilt from where the log starts (base).
CREATE TABLE reasoning_graphs (
    id            TEXT PRIMARY KEY,            -- ULID
    title         TEXT NOT NULL,
    source_name   TEXT NOT NULL DEFAULT '',    -- the file it was imported from (its name); '' when made from a session
    source_sha256 TEXT NOT NULL DEFAULT '',    -- SHA-256 (hex) of that file: importing the same file again changes nothing
    session_id    TEXT NOT NULL DEFAULT '',    -- the session it was made from; '' for an import (no foreign key: a link may outlive it)
    model         TEXT NOT NULL DEFAULT '',    -- "provider/model" that made it; '' for an import
    snapshot      TEXT NOT NULL,               -- the graph now, as a MemoBrain snapshot (memobrain.WriteSnapshot): what an export writes
    base          TEXT NOT NULL DEFAULT '',    -- where the log starts: a bare snapshot (memobrain.Log.Base); '' for the empty graph
    messages      TEXT NOT NULL DEFAULT '',    -- the conversation, a JSON list of MemoBrain messages; '' for none
    steps         INTEGER NOT NULL DEFAULT 0,  -- rows in reasoning_steps
    counts        TEXT NOT NULL DEFAULT '{}',  -- memobrain.Counts of the graph now, JSON
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX reasoning_graphs_source ON reasoning_graphs (source_sha256) WHERE source_sha256 <> '';
CREATE INDEX reasoning_graphs_session ON reasoning_graphs (session_id) WHERE session_id <> '';

-- The op log: step seq (from 0) of a graph, a memobrain.Step as JSON, and a
-- summary of what it changed (JSON counts) that lists read without the step.
CREATE TABLE reasoning_steps (
    graph_id   TEXT NOT NULL REFERENCES reasoning_graphs (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('init', 'patch', 'flush', 'fold')),
    step       TEXT NOT NULL,
    summary    TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    PRIMARY KEY (graph_id, seq)
) WITHOUT ROWID;

-- A graph made from a session: the session entries each turn (message of
-- the conversation) was made from, as rhizome:entry/<session>/<entry> links.
CREATE TABLE reasoning_turn_entries (
    graph_id   TEXT NOT NULL REFERENCES reasoning_graphs (id) ON DELETE CASCADE,
    turn       INTEGER NOT NULL,
    ord        INTEGER NOT NULL,               -- the entry's place among the turn's, in file order
    session_id TEXT NOT NULL,
    entry_id   TEXT NOT NULL,
    PRIMARY KEY (graph_id, turn, ord)
) WITHOUT ROWID;
CREATE INDEX reasoning_turn_entries_entry ON reasoning_turn_entries (session_id, entry_id);
