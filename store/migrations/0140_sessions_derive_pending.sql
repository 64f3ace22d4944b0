-- 1 while a session's derivation (its summaries and offline knowledge,
-- made by the summaries queue's session job from its stored entries) has
-- not run since an import made it readable without deriving (issue 25);
-- search, graph and MCP answers count these sessions ("still being
-- analysed"). The index holds the few pending rows only.
ALTER TABLE sessions ADD COLUMN derive_pending INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_derive_pending ON sessions (pk) WHERE derive_pending = 1;
