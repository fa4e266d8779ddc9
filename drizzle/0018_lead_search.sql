-- Console lead search by name, email or external id (any part of them, three characters or
-- more): an FTS5 trigram index over the leads table's own rows (external content, by the
-- table's rowid), so nothing is stored twice. New leads are indexed in the background, in
-- rowid order up to a mark (lead_search_state): a trigger on every insert doubled the cost of
-- writing a lead. Search reads the few leads past the mark without the index.
CREATE VIRTUAL TABLE lead_search USING fts5(name, email, external_id, content='leads', content_rowid='rowid', tokenize='trigram', detail='full');
--> statement-breakpoint
CREATE TABLE `lead_search_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`indexed_to` integer NOT NULL,
	CONSTRAINT "lead_search_state_one_row" CHECK("lead_search_state"."id" = 1)
);
--> statement-breakpoint
INSERT INTO lead_search_state (id, indexed_to) VALUES (1, 0);
--> statement-breakpoint
-- Only a change of a searched column of an indexed lead touches the index, never the status
-- changes the dialer makes all day.
CREATE TRIGGER lead_search_update AFTER UPDATE OF name, email, external_id ON leads
WHEN OLD.rowid <= (SELECT indexed_to FROM lead_search_state WHERE id = 1)
BEGIN
  INSERT INTO lead_search (lead_search, rowid, name, email, external_id) VALUES ('delete', OLD.rowid, OLD.name, OLD.email, OLD.external_id);
  INSERT INTO lead_search (rowid, name, email, external_id) VALUES (NEW.rowid, NEW.name, NEW.email, NEW.external_id);
END;
--> statement-breakpoint
-- A deleted lead leaves the index; and SQLite gives rowids past the newest remaining row out
-- again, so the mark comes back to that row (a new lead is then always past the mark).
CREATE TRIGGER lead_search_delete AFTER DELETE ON leads
BEGIN
  INSERT INTO lead_search (lead_search, rowid, name, email, external_id)
    SELECT 'delete', OLD.rowid, OLD.name, OLD.email, OLD.external_id WHERE OLD.rowid <= (SELECT indexed_to FROM lead_search_state WHERE id = 1);
  UPDATE lead_search_state SET indexed_to = (SELECT coalesce(max(rowid), 0) FROM leads)
    WHERE id = 1 AND indexed_to > (SELECT coalesce(max(rowid), 0) FROM leads);
END;
