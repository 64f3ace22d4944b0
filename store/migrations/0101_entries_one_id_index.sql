-- entries_entry_id (0060) and entries_session_entry_id (0030) index the same
-- columns, (session_pk, entry_id): every entry imported was written into
-- both (5.6 MB each for 223,425 entries). One is enough; SQLite picks
-- entries_entry_id for the queries that named either.
DROP INDEX IF EXISTS entries_session_entry_id;
