-- The totals an import reports for a session, kept as the rows they count
-- change (issue 11 §2: an append's cost depends on the bytes appended, not
-- on the session's length). Counting them again on every append read every
-- segment's boundaries and every structural edge of the session.
--
-- kind 'segment' (type ''): the session's segments.
-- kind 'boundary': the boundaries that start its segments, by boundary type.
-- kind 'edge': the structural edges (created_by 'boundary') into or out of
--   its nodes, by edge type; an edge between two sessions counts for both.
--
-- The triggers below keep the counts in the same transaction as the rows,
-- so they roll back with it. A count may fall to 0 and stay as a row;
-- readers skip those. No foreign key: the counts of a session deleted are
-- removed by session_counts_session_delete, whatever order SQLite deletes
-- its cascade in.
CREATE TABLE session_counts (
    session_pk INTEGER NOT NULL,
    kind       TEXT NOT NULL,                   -- segment, boundary or edge
    type       TEXT NOT NULL,                   -- boundary or edge type; '' for segment
    n          INTEGER NOT NULL,
    PRIMARY KEY (session_pk, kind, type)
) WITHOUT ROWID;

-- Backfill from the library as it is.
INSERT INTO session_counts (session_pk, kind, type, n)
SELECT session_pk, 'segment', '', count(*) FROM segments GROUP BY session_pk;
INSERT INTO session_counts (session_pk, kind, type, n)
SELECT g.session_pk, 'boundary', coalesce(json_extract(b.value, '$.type'), ''), count(*)
FROM segments g, json_each(g.boundaries) b GROUP BY 1, 3;
INSERT INTO session_counts (session_pk, kind, type, n)
SELECT s, 'edge', type, count(*) FROM (
    SELECT DISTINCT e.id, e.type, m.session_pk AS s FROM edges e
    JOIN nodes m ON m.id = e.source_id OR m.id = e.target_id
    WHERE e.created_by = 'boundary')
GROUP BY s, type;

-- Segments and their boundaries.
CREATE TRIGGER session_counts_segment_insert AFTER INSERT ON segments BEGIN
    INSERT INTO session_counts (session_pk, kind, type, n) VALUES (new.session_pk, 'segment', '', 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO session_counts (session_pk, kind, type, n)
    SELECT new.session_pk, 'boundary', coalesce(json_extract(value, '$.type'), ''), count(*)
    FROM json_each(new.boundaries) WHERE true GROUP BY 3
        ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER session_counts_segment_delete AFTER DELETE ON segments BEGIN
    UPDATE session_counts SET n = n - 1
    WHERE session_pk = old.session_pk AND kind = 'segment' AND type = '';
    UPDATE session_counts SET n = n - (SELECT count(*) FROM json_each(old.boundaries)
        WHERE coalesce(json_extract(value, '$.type'), '') = session_counts.type)
    WHERE session_pk = old.session_pk AND kind = 'boundary';
END;
CREATE TRIGGER session_counts_segment_update AFTER UPDATE OF session_pk, boundaries ON segments BEGIN
    UPDATE session_counts SET n = n - 1
    WHERE session_pk = old.session_pk AND kind = 'segment' AND type = '';
    UPDATE session_counts SET n = n - (SELECT count(*) FROM json_each(old.boundaries)
        WHERE coalesce(json_extract(value, '$.type'), '') = session_counts.type)
    WHERE session_pk = old.session_pk AND kind = 'boundary';
    INSERT INTO session_counts (session_pk, kind, type, n) VALUES (new.session_pk, 'segment', '', 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO session_counts (session_pk, kind, type, n)
    SELECT new.session_pk, 'boundary', coalesce(json_extract(value, '$.type'), ''), count(*)
    FROM json_each(new.boundaries) WHERE true GROUP BY 3
        ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;

-- Structural edges: an edge counts for the sessions of its two ends.
CREATE TRIGGER session_counts_edge_insert AFTER INSERT ON edges WHEN new.created_by = 'boundary' BEGIN
    INSERT INTO session_counts (session_pk, kind, type, n)
    SELECT DISTINCT session_pk, 'edge', new.type, 1 FROM nodes WHERE id IN (new.source_id, new.target_id)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- An edge deleted with one of its nodes (ON DELETE CASCADE) was already
-- taken off by session_counts_node_delete, which ran while both ends were
-- there: only an edge deleted on its own, both ends present, is counted
-- here.
CREATE TRIGGER session_counts_edge_delete AFTER DELETE ON edges WHEN old.created_by = 'boundary'
    AND EXISTS (SELECT 1 FROM nodes WHERE id = old.source_id)
    AND EXISTS (SELECT 1 FROM nodes WHERE id = old.target_id) BEGIN
    UPDATE session_counts SET n = n - 1
    WHERE kind = 'edge' AND type = old.type
      AND session_pk IN (SELECT session_pk FROM nodes WHERE id IN (old.source_id, old.target_id));
END;
CREATE TRIGGER session_counts_edge_update AFTER UPDATE OF created_by, type, source_id, target_id ON edges
    WHEN old.created_by = 'boundary' OR new.created_by = 'boundary' BEGIN
    UPDATE session_counts SET n = n - 1
    WHERE old.created_by = 'boundary' AND kind = 'edge' AND type = old.type
      AND session_pk IN (SELECT session_pk FROM nodes WHERE id IN (old.source_id, old.target_id));
    INSERT INTO session_counts (session_pk, kind, type, n)
    SELECT DISTINCT session_pk, 'edge', new.type, 1 FROM nodes
    WHERE new.created_by = 'boundary' AND id IN (new.source_id, new.target_id)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- A node about to be deleted takes its structural edges off the counts of
-- the sessions of their ends (the edges go with it, by cascade).
CREATE TRIGGER session_counts_node_delete BEFORE DELETE ON nodes BEGIN
    UPDATE session_counts SET n = n - (
        SELECT count(*) FROM edges e
        WHERE (e.source_id = old.id OR e.target_id = old.id) AND e.created_by = 'boundary'
          AND e.type = session_counts.type
          AND session_counts.session_pk IN (SELECT m.session_pk FROM nodes m WHERE m.id IN (e.source_id, e.target_id)))
    WHERE kind = 'edge' AND session_pk IN (
        SELECT m.session_pk FROM edges e JOIN nodes m ON m.id = e.source_id OR m.id = e.target_id
        WHERE (e.source_id = old.id OR e.target_id = old.id) AND e.created_by = 'boundary');
END;
-- A node moved to another session moves its edges' counts: the old session
-- loses the edges whose other end is not its own, the new one gains those
-- whose other end is not already its own (an edge from the node to itself
-- moves whole).
CREATE TRIGGER session_counts_node_move AFTER UPDATE OF session_pk ON nodes
    WHEN old.session_pk <> new.session_pk BEGIN
    UPDATE session_counts SET n = n - (
        SELECT count(*) FROM edges e
        WHERE (e.source_id = new.id OR e.target_id = new.id) AND e.created_by = 'boundary'
          AND e.type = session_counts.type
          AND (e.source_id = e.target_id OR (SELECT m.session_pk FROM nodes m
               WHERE m.id = CASE WHEN e.source_id = new.id THEN e.target_id ELSE e.source_id END) <> old.session_pk))
    WHERE session_pk = old.session_pk AND kind = 'edge';
    INSERT INTO session_counts (session_pk, kind, type, n)
    SELECT new.session_pk, 'edge', e.type, count(*) FROM edges e
    WHERE (e.source_id = new.id OR e.target_id = new.id) AND e.created_by = 'boundary'
      AND (e.source_id = e.target_id OR (SELECT m.session_pk FROM nodes m
           WHERE m.id = CASE WHEN e.source_id = new.id THEN e.target_id ELSE e.source_id END) <> new.session_pk)
    GROUP BY e.type
        ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER session_counts_session_delete AFTER DELETE ON sessions BEGIN
    DELETE FROM session_counts WHERE session_pk = old.pk;
END;
