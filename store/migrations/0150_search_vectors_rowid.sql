-- search_vectors becomes a rowid table with a unique index on (model,
-- item). As a WITHOUT ROWID table a row lives in its primary key's b-tree,
-- whose cells keep about 1,000 bytes of payload on a 4 KB page: a vector of
-- 228 float32 values (the LSA blended with GloVe, issue 23) spilled into an
-- overflow page of its own, 3.5 KB of it unused, and 12,294 vectors took
-- 57 MB. A rowid table keeps up to about 4,000 bytes on its leaf page.
CREATE TABLE search_vectors_rowid (
    model       TEXT NOT NULL,
    item        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,            -- SHA-256 (hex) of the text embedded
    vector      BLOB NOT NULL             -- little-endian float32 values
);
INSERT INTO search_vectors_rowid (model, item, fingerprint, vector)
    SELECT model, item, fingerprint, vector FROM search_vectors ORDER BY model, item;
DROP TABLE search_vectors;
ALTER TABLE search_vectors_rowid RENAME TO search_vectors;
CREATE UNIQUE INDEX search_vectors_model_item ON search_vectors (model, item);
