-- Sessions stored as whole JSON documents (Cline CLI's <id>.messages.json,
-- rewritten on every change; see backend/sessiondoc): the document as the
-- last good import read it, whole. It, not the entries and gaps, gives the
-- file back (export-session): an entry keeps the bytes of its message in the
-- document it was first read from, and entries a later rewrite dropped stay
-- in the library (meta.rolledBack, meta.dropped) though the document no
-- longer holds them. A session of a line format has no row here.
CREATE TABLE session_documents (
    session_pk INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,
    bytes      BLOB NOT NULL
);
