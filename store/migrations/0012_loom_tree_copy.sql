-- A loom tree imported as a copy (new ids) records where it came from:
-- the id of the tree it copies and the file it was imported from. ''
-- for an original. Not hashed; see loom.ImportCopy.
ALTER TABLE loom_trees ADD COLUMN copied_from TEXT NOT NULL DEFAULT '';
ALTER TABLE loom_trees ADD COLUMN copy_source TEXT NOT NULL DEFAULT '';
