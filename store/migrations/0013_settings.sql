-- Settings and UI state live in the library, not in side files: what the
-- person chose once per library (the model that generates loom
-- continuations, as JSON without its API key) and what Rhizome remembers for
-- them (the last active path of each loom tree). API keys stay out of the
-- library, in "<library>.config/secrets.json" (mode 0600).
--
-- Before this migration they were "<library>.config/llm.json" and
-- "<library>.config/settings.json"; Open moves those into these tables and
-- deletes them (store/settings.go, migrateSideFiles).

-- One row per setting: its key ("llm") and its JSON value.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- The path a loom tree was last open on (loom.ActivePath): UI state, not
-- hashed, exported with the tree, and gone with it.
CREATE TABLE loom_active_paths (
    tree_id    TEXT PRIMARY KEY REFERENCES loom_trees (id) ON DELETE CASCADE,
    node_id    TEXT NOT NULL,                -- the node the path ends at
    versions   TEXT NOT NULL DEFAULT '{}',   -- JSON {familyId: versionId}, buffer mode
    updated_at TEXT NOT NULL
);
