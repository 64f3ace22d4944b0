-- A sub-agent's spawn is looked up by its agent id within its parent
-- session (Tx.SubagentSpawn, once per sub-agent file imported): the index
-- on the agent id alone made that read every entry naming the agent id in
-- any session, and agent ids repeat wherever a session was copied. The
-- index now holds the session and the entry's place too; same name, so the
-- queries naming it read the new one.
DROP INDEX entries_subagent_id;
CREATE INDEX entries_subagent_id ON entries (subagent_id, session_pk, seq) WHERE subagent_id <> '';
