-- Reasoning graphs and their nodes in the item search (the search box and
-- the picker that finds any item to link to): a graph by its title, a node
-- by its kind and id ("evidence 9") and its thought — the text of a text
-- thought, the content of its notes, or an encoded list as written; any
-- other form of thought (MemoBrain keeps whatever JSON it was given) is left
-- out, never an error. Kept by the triggers below from the graph's snapshot
-- (bare, or under "memory"). kind is the link.Kind: "reasoning" (item_id the
-- graph), "reasoningNode" (item_id the node id, within the graph).

-- Each node of each graph's snapshot as search_items holds it: the one
-- reading of a snapshot the triggers and the backfill share.
CREATE VIEW reasoning_node_texts AS
SELECT g.id AS graph_id, n.key AS node_id,
    CASE WHEN n.type = 'object' THEN coalesce(json_extract(n.value, '$.kind'), 'node') ELSE 'node' END || ' ' || n.key AS title,
    CASE WHEN n.type <> 'object' THEN '' ELSE CASE json_type(n.value, '$.thought')
        WHEN 'text' THEN json_extract(n.value, '$.thought')
        WHEN 'object' THEN coalesce(json_extract(n.value, '$.thought.content'), '')
        WHEN 'array' THEN coalesce((SELECT group_concat(json_extract(n.value, t.fullkey || '.content'), ' ')
            FROM json_each(n.value, '$.thought') t), '')
        ELSE '' END END AS text
FROM reasoning_graphs g, json_each(CASE WHEN json_valid(g.snapshot)
    THEN coalesce(json_extract(g.snapshot, '$.memory.nodes'), json_extract(g.snapshot, '$.nodes'), '{}') ELSE '{}' END) n;

CREATE TRIGGER search_items_reasoning_insert AFTER INSERT ON reasoning_graphs BEGIN
    INSERT INTO search_items (kind, item_id, title) VALUES ('reasoning', new.id, new.title);
    INSERT INTO search_items (kind, item_id, within, title, text)
    SELECT 'reasoningNode', node_id, graph_id, title, text FROM reasoning_node_texts WHERE graph_id = new.id;
END;

CREATE TRIGGER search_items_reasoning_update AFTER UPDATE OF title, snapshot ON reasoning_graphs BEGIN
    UPDATE search_items SET title = new.title WHERE kind = 'reasoning' AND item_id = new.id;
    DELETE FROM search_items WHERE kind = 'reasoningNode' AND within = new.id;
    INSERT INTO search_items (kind, item_id, within, title, text)
    SELECT 'reasoningNode', node_id, graph_id, title, text FROM reasoning_node_texts WHERE graph_id = new.id;
END;

CREATE TRIGGER search_items_reasoning_delete AFTER DELETE ON reasoning_graphs BEGIN
    DELETE FROM search_items WHERE (kind = 'reasoning' AND item_id = old.id) OR (kind = 'reasoningNode' AND within = old.id);
END;

-- The graphs already in the library.
INSERT INTO search_items (kind, item_id, title) SELECT 'reasoning', id, title FROM reasoning_graphs;
INSERT INTO search_items (kind, item_id, within, title, text)
SELECT 'reasoningNode', node_id, graph_id, title, text FROM reasoning_node_texts;
