-- Claude Code sessions imported before 0110 kept the previews of their
-- large tool outputs only: the next import that meets their file unchanged
-- reads the outputs saved beside it (app: readUnreadToolOutputs), before
-- Claude Code deletes them, and takes the session off this list. A session
-- whose file is gone stays on it and keeps what it has.
CREATE TABLE tool_outputs_unread (
    session_pk INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE
);
INSERT INTO tool_outputs_unread (session_pk)
SELECT DISTINCT e.session_pk FROM entries e JOIN sessions s ON s.pk = e.session_pk
WHERE s.format = 'claude-code' AND e.role = 'toolResult' AND instr(unpack_raw(e.raw), '<persisted-output>') > 0;
