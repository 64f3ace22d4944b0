-- Search beyond FTS5: a keyword index that lets a query for a common word
-- stop early, vectors for semantic search, and the models and
-- nearest-neighbour graphs built from them. See store/search.go and
-- backend/search (its package comment explains the design).

-- The keyword index: every term of the entries' searchable text (folded as
-- FTS5's unicode61 tokenizer folds it, by backend/search.Tokenize), with the
-- number of entries holding it; a term held by more than
-- a few thousand entries (store tuning.common) also keeps its champion list: the entries
-- where it weighs most (highest bm25 term weight), best first, packed as
-- a uvarint count, then (uvarint entry key, float32 weight) pairs. Built and brought up
-- to date by Store.RefreshSearchIndex from the entries after indexed_to.
CREATE TABLE search_terms (
    term TEXT PRIMARY KEY,
    df   INTEGER NOT NULL,              -- entries holding the term (those up to search_index.indexed_to)
    top  BLOB                           -- champion list, NULL for a rare term
) WITHOUT ROWID;

-- One row: how far the keyword index has read the entries.
CREATE TABLE search_index (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_to INTEGER NOT NULL,        -- entries with keys up to this one are counted in search_terms
    docs       INTEGER NOT NULL,        -- entries counted
    tokens     INTEGER NOT NULL,        -- their tokens
    champions  INTEGER NOT NULL,        -- the champion list length it was built with
    common     INTEGER NOT NULL,        -- the df above which a term keeps a champion list
    updated_at TEXT NOT NULL
);

-- Embedding vectors of searchable items, by model: "node:<id>" or
-- "entry:<key>". fingerprint is the SHA-256 (hex) of the text embedded, so
-- that a node whose text changed is embedded again (an entry's text never
-- changes); a model change is a new model name, and the other models'
-- vectors are dropped by Store.DeleteVectorsExcept.
CREATE TABLE search_vectors (
    model       TEXT NOT NULL,
    item        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,            -- SHA-256 (hex) of the text embedded
    vector      BLOB NOT NULL,           -- little-endian float32 values
    PRIMARY KEY (model, item)
) WITHOUT ROWID;

-- Whole models and indexes kept as one blob each: the offline latent
-- semantic model ("lsa"), the nearest-neighbour graph of a model's vectors
-- ("hnsw:<model>"). kind says what the blob is.
CREATE TABLE search_blobs (
    name       TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    data       BLOB NOT NULL,
    updated_at TEXT NOT NULL
);
