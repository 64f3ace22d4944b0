-- Knowledge items (decisions, lessons, facts, questions…) in the item
-- search (the search box and the picker that finds any item to link to), by
-- their title and text, kept by the triggers below. kind is the link.Kind
-- "knowledge".

CREATE TRIGGER search_items_knowledge_insert AFTER INSERT ON knowledge BEGIN
    INSERT INTO search_items (kind, item_id, title, text) VALUES ('knowledge', new.id, new.title, new.text);
END;

CREATE TRIGGER search_items_knowledge_update AFTER UPDATE OF title, text ON knowledge BEGIN
    UPDATE search_items SET title = new.title, text = new.text WHERE kind = 'knowledge' AND item_id = new.id;
END;

CREATE TRIGGER search_items_knowledge_delete AFTER DELETE ON knowledge BEGIN
    DELETE FROM search_items WHERE kind = 'knowledge' AND item_id = old.id;
END;

-- The items already in the library.
INSERT INTO search_items (kind, item_id, title, text) SELECT 'knowledge', id, title, text FROM knowledge;
