-- Every entry is in entries_fts, those with no searchable text ('') too, so
-- that the index matches its content table row for row and FTS5's
-- integrity check ('integrity-check', rank 1) passes. An entry with empty
-- text adds no term, only its row count and size (0).
--
-- Before this migration the importer and the triggers left entries with
-- empty text out; this adds them to libraries written then, and replaces the
-- triggers that skipped them. The importer (Tx.InsertEntry) indexes every
-- entry from now on.
INSERT INTO entries_fts (rowid, text) SELECT pk, text FROM entries WHERE text = '';

DROP TRIGGER entries_fts_delete;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', old.pk, old.text);
END;

DROP TRIGGER entries_fts_update;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', old.pk, old.text);
    INSERT INTO entries_fts (rowid, text) VALUES (new.pk, new.text);
END;
