-- The modification time of a session's file when it was last read or
-- checked (nanoseconds since 1970, UTC; 0: unknown, a file not on disk or
-- imported before this column). A file of the same size and the same time
-- is unchanged without being opened (store.FileStamps), as git and rsync
-- trust them: an import of an unchanged corpus reads no file.
ALTER TABLE sessions ADD COLUMN file_mtime_ns INTEGER NOT NULL DEFAULT 0;
