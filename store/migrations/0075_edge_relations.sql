-- Relations across sessions (issue 9, section 3): every edge carries a
-- confidence from 0 to 1 (boundary edges are certain: 1), an optional
-- similarity, and the rationale in words. created_by now also takes
-- "offline" (backend/relate's derivations) and "model" (the analyzer's
-- proposed relationships). The offline edges of a project are replaced as a
-- whole each time they are derived again.
ALTER TABLE edges ADD COLUMN confidence REAL NOT NULL DEFAULT 1;
ALTER TABLE edges ADD COLUMN similarity REAL;
ALTER TABLE edges ADD COLUMN rationale TEXT NOT NULL DEFAULT '';
CREATE INDEX edges_created_by ON edges (created_by, source_id);
