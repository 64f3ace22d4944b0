-- What the hybrid search filters and scores nodes by that lives only inside
-- the node JSON (tools used, models, importance), copied out when a node is
-- written so that a search does not parse hundreds of node documents. See
-- store/search_source.go.
CREATE TABLE search_node_facets (
    node_pk    INTEGER PRIMARY KEY REFERENCES nodes (pk) ON DELETE CASCADE,
    tools      TEXT NOT NULL DEFAULT '',   -- content.toolsUsed, one per line
    models     TEXT NOT NULL DEFAULT '',   -- observations.modelsUsed[].model, one per line
    importance REAL NOT NULL DEFAULT 0     -- $.importance when the node has one, in [0, 1]
);

INSERT INTO search_node_facets (node_pk, tools, models, importance)
SELECT pk,
    coalesce((SELECT group_concat(value, char(10)) FROM json_each(node, '$.content.toolsUsed')), ''),
    coalesce((SELECT group_concat(json_extract(value, '$.model'), char(10)) FROM json_each(node, '$.observations.modelsUsed')), ''),
    coalesce(json_extract(node, '$.importance'), 0)
FROM nodes;

-- Delete then insert: an OR REPLACE inside a trigger gives way to the
-- conflict handling of the statement that fired it (PutNode's upsert).
CREATE TRIGGER search_node_facets_insert AFTER INSERT ON nodes BEGIN
    DELETE FROM search_node_facets WHERE node_pk = new.pk;
    INSERT INTO search_node_facets (node_pk, tools, models, importance) VALUES (new.pk,
        coalesce((SELECT group_concat(value, char(10)) FROM json_each(new.node, '$.content.toolsUsed')), ''),
        coalesce((SELECT group_concat(json_extract(value, '$.model'), char(10)) FROM json_each(new.node, '$.observations.modelsUsed')), ''),
        coalesce(json_extract(new.node, '$.importance'), 0));
END;

CREATE TRIGGER search_node_facets_update AFTER UPDATE OF node ON nodes BEGIN
    DELETE FROM search_node_facets WHERE node_pk = new.pk;
    INSERT INTO search_node_facets (node_pk, tools, models, importance) VALUES (new.pk,
        coalesce((SELECT group_concat(value, char(10)) FROM json_each(new.node, '$.content.toolsUsed')), ''),
        coalesce((SELECT group_concat(json_extract(value, '$.model'), char(10)) FROM json_each(new.node, '$.observations.modelsUsed')), ''),
        coalesce(json_extract(new.node, '$.importance'), 0));
END;
