-- Knowledge nodes (issue 9, section 2): timestamped items of ccmemory's kinds
-- (decision, correction, exception, failedApproach, insight, question,
-- projectFact) and pi-brain's lesson, per project or cross-project, with who
-- made them, a confidence, a status and every version. The item itself is
-- backend/knowledge.Item as JSON; the columns beside it are copies for
-- filtering and ordering. See store/knowledge.go and
-- ../shared/specs/context-graph-dag.md.

-- The current version of each item.
CREATE TABLE knowledge (
    id              TEXT PRIMARY KEY,            -- ULID, stable across versions
    version         INTEGER NOT NULL,            -- of the current version
    kind            TEXT NOT NULL,
    project         TEXT NOT NULL DEFAULT '',    -- '' for a cross-project item
    timestamp       TEXT NOT NULL,               -- when it was stated, ISO 8601 UTC
    created_at      TEXT NOT NULL,               -- when this version was made
    status          TEXT NOT NULL,               -- active, superseded, stale
    confidence      REAL NOT NULL,
    created_by      TEXT NOT NULL,               -- of this version: offline, model, user, agent
    first_by        TEXT NOT NULL,               -- of version 1
    session_id      TEXT NOT NULL DEFAULT '',    -- provenance
    segment_node_id TEXT NOT NULL DEFAULT '',
    title           TEXT NOT NULL,               -- Item.Title()
    open_question   INTEGER NOT NULL DEFAULT 0,  -- a question with no answer
    text            TEXT NOT NULL,               -- every text field, lower case, for filtering
    item            TEXT NOT NULL                -- the Item as JSON
);

CREATE INDEX knowledge_kind_time ON knowledge (kind, timestamp);
CREATE INDEX knowledge_project_time ON knowledge (project, timestamp);
CREATE INDEX knowledge_session ON knowledge (session_id);
CREATE INDEX knowledge_segment ON knowledge (segment_node_id);

-- Every version of every item, the current one included.
CREATE TABLE knowledge_versions (
    id         TEXT NOT NULL REFERENCES knowledge (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    item       TEXT NOT NULL,
    PRIMARY KEY (id, version)
);

-- Stated SUPERSEDES relations: newer replaces older. Stated by the model, the
-- user or an agent, never inferred (ERRATA.md, "ccmemory").
CREATE TABLE knowledge_supersessions (
    newer     TEXT NOT NULL REFERENCES knowledge (id) ON DELETE CASCADE,
    older     TEXT NOT NULL REFERENCES knowledge (id) ON DELETE CASCADE,
    stated_by TEXT NOT NULL,
    reason    TEXT NOT NULL DEFAULT '',
    stated_at TEXT NOT NULL,
    PRIMARY KEY (newer, older)
);

CREATE INDEX knowledge_supersessions_older ON knowledge_supersessions (older);
