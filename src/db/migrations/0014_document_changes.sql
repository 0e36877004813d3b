-- A document's own fields (title, url, ...) changed with its chunks kept (a rename found unchanged):
-- its chunks are listed in lexical_changes too, so that processes holding their search hits in
-- memory (retrieval/lexical-index) read them again. Chunks replaced or deleted are listed by
-- chunk_terms' triggers already.
CREATE FUNCTION "lexical_changes_after_document_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lexical_changes (team_id, chunk_id)
  SELECT c.team_id, c.id FROM chunks AS c WHERE c.document_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "documents_lexical_changes_update" AFTER UPDATE ON "documents" FOR EACH ROW
  WHEN (OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.title IS DISTINCT FROM NEW.title
    OR OLD.file_name IS DISTINCT FROM NEW.file_name OR OLD.url IS DISTINCT FROM NEW.url
    OR OLD.mime_type IS DISTINCT FROM NEW.mime_type OR OLD.created_at IS DISTINCT FROM NEW.created_at
    OR OLD.source_modified_at IS DISTINCT FROM NEW.source_modified_at)
  EXECUTE FUNCTION lexical_changes_after_document_update();
