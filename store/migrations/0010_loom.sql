-- Loom trees (Aspen Grove): groves of trees of immutable nodes joined by
-- hyperedges, the agents that wrote them, the raw API responses model nodes
-- came from, and the mutable UI state kept beside the nodes.
--
-- Nodes, edges and raw responses are immutable: an edit makes a new node
-- (editedFrom), so the triggers below refuse any UPDATE of them. What does
-- change after creation, bookmarks, pruning, exclusion and the generated
-- summary, lives in loom_node_state and is not covered by the hash chain.
-- Image and audio bytes are files beside the library (<library>.blobs/,
-- named by SHA-256); the content JSON holds their reference and hash.
-- Times are ISO 8601 UTC with milliseconds; '' means none.
-- See ../shared/specs/aspen-grove-core-entities.md, corrected by ERRATA.md.

CREATE TABLE groves (
    id         TEXT PRIMARY KEY,              -- ULID
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- Who writes nodes: this library's human and one agent per configured model
-- (local = 1), and the agents of trees imported from elsewhere (local = 0),
-- kept with their ids because node hashes cover them.
CREATE TABLE loom_agents (
    id               TEXT PRIMARY KEY,        -- ULID
    type             TEXT NOT NULL CHECK (type IN ('human', 'model')),
    name             TEXT NOT NULL,
    model_config_ref TEXT NOT NULL DEFAULT '', -- the llm settings key of a model
    local            INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL
);
CREATE UNIQUE INDEX loom_agents_local_human ON loom_agents (type) WHERE type = 'human' AND local = 1;
CREATE UNIQUE INDEX loom_agents_local_model ON loom_agents (model_config_ref) WHERE type = 'model' AND local = 1;

CREATE TABLE loom_trees (
    id             TEXT PRIMARY KEY,          -- ULID
    grove_id       TEXT NOT NULL REFERENCES groves (id),
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    summary        TEXT NOT NULL DEFAULT '',  -- generated
    root_node_id   TEXT NOT NULL REFERENCES loom_nodes (id) DEFERRABLE INITIALLY DEFERRED,
    mode           TEXT NOT NULL CHECK (mode IN ('dialogue', 'buffer')),
    system_context TEXT NOT NULL DEFAULT '',
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    archived_at    TEXT NOT NULL DEFAULT ''   -- soft delete; '' while active
);
CREATE INDEX loom_trees_grove ON loom_trees (grove_id, created_at);
CREATE INDEX loom_trees_active ON loom_trees (grove_id, created_at) WHERE archived_at = '';

-- A tree's identity, grove, mode and root are fixed at creation.
CREATE TRIGGER loom_trees_fixed BEFORE UPDATE OF id, grove_id, mode, root_node_id, created_at ON loom_trees
WHEN new.id IS NOT old.id OR new.grove_id IS NOT old.grove_id OR new.mode IS NOT old.mode
    OR new.root_node_id IS NOT old.root_node_id OR new.created_at IS NOT old.created_at
BEGIN
    SELECT RAISE(ABORT, 'loom: a tree''s id, grove, mode and root are fixed at creation');
END;

CREATE TABLE loom_nodes (
    id                TEXT PRIMARY KEY,       -- ULID
    tree_id           TEXT NOT NULL REFERENCES loom_trees (id) ON DELETE CASCADE,
    local_id          TEXT NOT NULL,          -- 6-8 characters, unique in the tree
    content           TEXT NOT NULL,          -- Content JSON: {"type": "text" | "image" | "audio" | "mixed", ...}
    content_type      TEXT NOT NULL,
    text              TEXT NOT NULL DEFAULT '', -- the content's plain text
    author_type       TEXT NOT NULL CHECK (author_type IN ('human', 'model')),
    author_agent_id   TEXT NOT NULL REFERENCES loom_agents (id),
    content_hash      TEXT NOT NULL,          -- SHA-256 hex, see loom.ComputeHash
    created_at        TEXT NOT NULL,
    edited_from       TEXT REFERENCES loom_nodes (id) DEFERRABLE INITIALLY DEFERRED, -- NULL unless made by editing
    parents           TEXT NOT NULL DEFAULT '[]', -- JSON [{nodeId, role, hash}]: the parents at creation
    raw_response_hash TEXT NOT NULL DEFAULT ''    -- SHA-256 hex of the raw API response (model nodes)
);
CREATE UNIQUE INDEX loom_nodes_local_id ON loom_nodes (tree_id, local_id);
CREATE INDEX loom_nodes_tree ON loom_nodes (tree_id, created_at);
CREATE INDEX loom_nodes_author ON loom_nodes (author_agent_id);
CREATE INDEX loom_nodes_author_type ON loom_nodes (tree_id, author_type);
CREATE INDEX loom_nodes_edited_from ON loom_nodes (edited_from) WHERE edited_from IS NOT NULL;

CREATE TRIGGER loom_nodes_immutable BEFORE UPDATE ON loom_nodes
BEGIN
    SELECT RAISE(ABORT, 'loom: nodes are immutable: an edit makes a new node');
END;
-- A node goes only with its tree (ON DELETE CASCADE from loom_trees).
CREATE TRIGGER loom_nodes_kept BEFORE DELETE ON loom_nodes
WHEN EXISTS (SELECT 1 FROM loom_trees WHERE id = old.tree_id)
BEGIN
    SELECT RAISE(ABORT, 'loom: nodes are never deleted: prune them');
END;

-- The mutable UI state of a node; a node without a row has the defaults.
CREATE TABLE loom_node_state (
    node_id        TEXT PRIMARY KEY REFERENCES loom_nodes (id) ON DELETE CASCADE,
    bookmarked     INTEGER NOT NULL DEFAULT 0,
    bookmark_label TEXT NOT NULL DEFAULT '',
    pruned         INTEGER NOT NULL DEFAULT 0,
    excluded       INTEGER NOT NULL DEFAULT 0,
    summary        TEXT NOT NULL DEFAULT '',  -- generated after creation
    updated_at     TEXT NOT NULL
);
CREATE INDEX loom_node_state_bookmarked ON loom_node_state (node_id) WHERE bookmarked = 1;

-- Hyperedges: each node but a root has one incoming edge, made with it.
CREATE TABLE loom_edges (
    id             TEXT PRIMARY KEY,          -- ULID
    tree_id        TEXT NOT NULL REFERENCES loom_trees (id) ON DELETE CASCADE,
    target_node_id TEXT NOT NULL REFERENCES loom_nodes (id) ON DELETE CASCADE,
    type           TEXT NOT NULL CHECK (type IN ('continuation', 'annotation')),
    created_at     TEXT NOT NULL
);
CREATE INDEX loom_edges_tree ON loom_edges (tree_id, created_at);
CREATE INDEX loom_edges_target ON loom_edges (target_node_id);

CREATE TABLE loom_edge_sources (
    edge_id  TEXT NOT NULL REFERENCES loom_edges (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    node_id  TEXT NOT NULL REFERENCES loom_nodes (id) ON DELETE CASCADE,
    role     TEXT NOT NULL CHECK (role IN ('primary', 'context', 'instruction')),
    PRIMARY KEY (edge_id, position)
);
CREATE INDEX loom_edge_sources_node ON loom_edge_sources (node_id);

CREATE TRIGGER loom_edges_immutable BEFORE UPDATE ON loom_edges
BEGIN
    SELECT RAISE(ABORT, 'loom: edges are immutable');
END;
CREATE TRIGGER loom_edge_sources_immutable BEFORE UPDATE ON loom_edge_sources
BEGIN
    SELECT RAISE(ABORT, 'loom: edges are immutable');
END;

-- The raw API response each model node came from (its hash is in the node's).
CREATE TABLE raw_responses (
    node_id TEXT PRIMARY KEY REFERENCES loom_nodes (id) ON DELETE CASCADE,
    sha256  TEXT NOT NULL,
    data    BLOB NOT NULL
);
CREATE TRIGGER raw_responses_immutable BEFORE UPDATE ON raw_responses
BEGIN
    SELECT RAISE(ABORT, 'loom: raw responses are immutable');
END;
