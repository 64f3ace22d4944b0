-- Links, notes and review marks (issue 8, "Links"), and one full-text index
-- over the items that are neither sessions nor their entries: loom trees,
-- loom nodes, notes and summaries. See backend/link for items, their URIs
-- and the relation vocabulary; store/links.go, notes.go, items.go.
--
-- Items are named by their URI (link.Item.String: rhizome:node/<id>,
-- rhizome:loom/<treeId>/<nodeId>, https://..., /a/file), so a link outlives
-- what it names: nothing here cascades from sessions, nodes or loom trees,
-- and a link whose target is gone is shown as broken, never dropped.

-- A typed link from one item to another: the Aspen Grove Link entity.
CREATE TABLE links (
    id         TEXT PRIMARY KEY,              -- ULID
    source_uri TEXT NOT NULL,                 -- a library item (rhizome:)
    target_uri TEXT NOT NULL,                 -- any item: rhizome:, https:, http: or a file path
    type       TEXT NOT NULL,                 -- a relation of link.Relations (RELATES_TO, ...)
    note       TEXT NOT NULL DEFAULT '',      -- markdown, at most link.MaxNoteBytes
    created_by TEXT NOT NULL,                 -- user, model, offline, boundary, consolidation
    created_at TEXT NOT NULL,                 -- ISO 8601 UTC, milliseconds
    updated_at TEXT NOT NULL DEFAULT ''       -- the last change of type or note; '' when none
) WITHOUT ROWID;
-- Outgoing links of an item, and backlinks (computed, never stored twice).
CREATE INDEX links_source ON links (source_uri, type);
CREATE INDEX links_target ON links (target_uri, type);

-- A person's note on an item: markdown, one per item; itself an item
-- (rhizome:note/<id>) that links and is found by search.
CREATE TABLE notes (
    pk         INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,          -- ULID
    item_uri   TEXT NOT NULL UNIQUE,          -- the item it is about
    markdown   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Earlier texts of a note, kept when it is rewritten.
CREATE TABLE note_versions (
    note_id    TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,              -- from 1, the first text
    markdown   TEXT NOT NULL,
    written_at TEXT NOT NULL,
    PRIMARY KEY (note_id, version)
) WITHOUT ROWID;

-- Review marks a person sets on an item.
CREATE TABLE review_marks (
    item_uri   TEXT NOT NULL,
    mark       TEXT NOT NULL CHECK (mark IN ('starred', 'to-revisit', 'done')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (item_uri, mark)
) WITHOUT ROWID;

-- Finding an entry by its id (rhizome:entry/<sessionId>/<entryId>): a link
-- or a mention names entries by id, and opening one needs its place.
CREATE INDEX entries_entry_id ON entries (session_pk, entry_id);

-- The searchable text of loom trees, loom nodes, notes and summaries, one
-- row per item, kept by the triggers below (summaries by
-- Store.IndexSummaryText until the summaries table's own triggers do it).
-- kind is a link.Kind ("loom", "loomNode", "note") or "summary" (item_id and
-- within then name the summarised item: its kind is in summary_of).
CREATE TABLE search_items (
    pk         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,
    item_id    TEXT NOT NULL,
    within     TEXT NOT NULL DEFAULT '',     -- the tree of a loom node, else ''
    summary_of TEXT NOT NULL DEFAULT '',     -- summaries: the summarised item's link.Kind
    title      TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL DEFAULT '',
    UNIQUE (kind, item_id, within, summary_of)
);

CREATE VIRTUAL TABLE search_items_fts USING fts5 (
    title, text,
    content = 'search_items', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER search_items_fts_insert AFTER INSERT ON search_items BEGIN
    INSERT INTO search_items_fts (rowid, title, text) VALUES (new.pk, new.title, new.text);
END;
CREATE TRIGGER search_items_fts_delete AFTER DELETE ON search_items BEGIN
    INSERT INTO search_items_fts (search_items_fts, rowid, title, text) VALUES ('delete', old.pk, old.title, old.text);
END;
CREATE TRIGGER search_items_fts_update AFTER UPDATE OF title, text ON search_items BEGIN
    INSERT INTO search_items_fts (search_items_fts, rowid, title, text) VALUES ('delete', old.pk, old.title, old.text);
    INSERT INTO search_items_fts (rowid, title, text) VALUES (new.pk, new.title, new.text);
END;

-- Loom nodes are immutable: inserted with their tree, deleted only with it.
-- Their text alone is searched (a tree's title finds the tree).
INSERT INTO search_items (kind, item_id, within, text) SELECT 'loomNode', id, tree_id, text FROM loom_nodes;
CREATE TRIGGER search_items_loom_node_insert AFTER INSERT ON loom_nodes BEGIN
    INSERT INTO search_items (kind, item_id, within, text) VALUES ('loomNode', new.id, new.tree_id, new.text);
END;
CREATE TRIGGER search_items_loom_node_delete AFTER DELETE ON loom_nodes BEGIN
    DELETE FROM search_items WHERE kind = 'loomNode' AND item_id = old.id AND within = old.tree_id AND summary_of = '';
END;

INSERT INTO search_items (kind, item_id, title, text)
SELECT 'loom', id, title, trim(description || char(10) || summary) FROM loom_trees;
CREATE TRIGGER search_items_loom_tree_insert AFTER INSERT ON loom_trees BEGIN
    INSERT INTO search_items (kind, item_id, title, text)
    VALUES ('loom', new.id, new.title, trim(new.description || char(10) || new.summary));
END;
CREATE TRIGGER search_items_loom_tree_update AFTER UPDATE OF title, description, summary ON loom_trees
WHEN new.title IS NOT old.title OR new.description IS NOT old.description OR new.summary IS NOT old.summary
BEGIN
    UPDATE search_items SET title = new.title, text = trim(new.description || char(10) || new.summary)
    WHERE kind = 'loom' AND item_id = new.id AND within = '' AND summary_of = '';
END;
CREATE TRIGGER search_items_loom_tree_delete AFTER DELETE ON loom_trees BEGIN
    DELETE FROM search_items WHERE kind = 'loom' AND item_id = old.id AND within = '' AND summary_of = '';
END;

CREATE TRIGGER search_items_note_insert AFTER INSERT ON notes BEGIN
    INSERT INTO search_items (kind, item_id, title, text) VALUES ('note', new.id, '', new.markdown);
END;
CREATE TRIGGER search_items_note_update AFTER UPDATE OF markdown ON notes BEGIN
    UPDATE search_items SET text = new.markdown WHERE kind = 'note' AND item_id = new.id AND within = '' AND summary_of = '';
END;
CREATE TRIGGER search_items_note_delete AFTER DELETE ON notes BEGIN
    DELETE FROM search_items WHERE kind = 'note' AND item_id = old.id AND within = '' AND summary_of = '';
END;
