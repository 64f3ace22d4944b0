-- Sessions of the three formats Rhizome reads (pi, Claude Code, Codex), kept
-- as an archive that outlives their files, and imported as they grow
-- without reading them again. See ../shared/specs/claude-code-codex-formats.md.

-- The format of the file ("pi", "claude-code" or "codex"); what the import
-- needs to go on from where it stopped when the file grows (JSON, app's
-- resumeState: the reader's state at imported_bytes, the segment builder's
-- state, the open segment's accumulator, the SHA-256 state of the imported
-- prefix; '' for a session imported before this migration, which is read
-- again from its start); a sample hash of the imported prefix that tells a
-- grown file from a rewritten one without hashing it whole; the sub-agent
-- a transcript records (parent_session then names the session that spawned
-- it); when the watcher found the source file gone ('' while it is there:
-- the library keeps the session); what the format's metadata lines say
-- (JSON: title, models, models without a price).
ALTER TABLE sessions ADD COLUMN format TEXT NOT NULL DEFAULT 'pi';
ALTER TABLE sessions ADD COLUMN resume TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN imported_probe TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN agent_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN source_deleted_at TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN meta TEXT NOT NULL DEFAULT '{}';
CREATE INDEX sessions_agent_id ON sessions (agent_id) WHERE agent_id <> '';

-- Per entry, what its reader derived from other lines (JSON, '' for
-- nothing: rewind, duplicateOf, replayed, rolledBack, sidechain, toolName
-- of a result, rolledBackTurns), the turn it belongs to (Codex turn_id,
-- Claude Code promptId), the key its copies in other files share (a Claude
-- Code line's uuid: resumed and forked copies are found by it), and the
-- sub-agent a tool result spawned.
ALTER TABLE entries ADD COLUMN meta TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN turn_id TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN dedupe_key TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN subagent_id TEXT NOT NULL DEFAULT '';
-- An entry by id within its session: where a branch returns to, when an
-- append goes on from the stored state.
CREATE INDEX entries_session_entry_id ON entries (session_pk, entry_id);
CREATE INDEX entries_dedupe_key ON entries (dedupe_key) WHERE dedupe_key <> '';
CREATE INDEX entries_subagent_id ON entries (subagent_id) WHERE subagent_id <> '';

-- The bytes of a session file that are not an entry's object: the pi
-- header line, blank lines, malformed lines, whitespace between objects,
-- line ends other than "\n" and "\r\n", a half-written last line. Between
-- two consecutive objects (entries' raw, in offset order) and after the last
-- one, a stretch with no row here is "\n" (1 byte) or "\r\n" (2 bytes), as
-- its length says. Stretches are cut after each "\n", so that none crosses
-- a line start (where an append goes on). With entries.raw they give back
-- the file byte for byte (export-session).
CREATE TABLE session_gaps (
    session_pk  INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    byte_offset INTEGER NOT NULL,
    bytes       BLOB NOT NULL,
    PRIMARY KEY (session_pk, byte_offset)
) WITHOUT ROWID;
